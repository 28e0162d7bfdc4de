// Heatmap axis labels when cells are smaller than a line of text: every k-th, with the named
// ones (the query in focus, the coreference candidates) always shown and never overlapped.
#include <doctest/doctest.h>

#include <vector>

#include "state/axis_labels.h"

namespace attnviz {
namespace {

using V = std::vector<int>;

TEST_CASE("axis labels: every one when a cell holds a line of text") {
  CHECK(axis_labels_shown(5, 20, 17, {}) == V{0, 1, 2, 3, 4});
  CHECK(axis_labels_shown(0, 20, 17, {3}).empty());
}

TEST_CASE("axis labels: every k-th when cells are small, so that none overlap") {
  // The famous sentence's 12 tokens at 13-pixel cells and a 17-pixel line: every other.
  CHECK(axis_labels_shown(12, 13, 17, {}) == V{0, 2, 4, 6, 8, 10});
  CHECK(axis_labels_shown(12, 5, 17, {}) == V{0, 3, 6, 9});  // 0.85 lines = 14.45 px: every third
}

TEST_CASE("axis labels: the named ones always, their neighbours give way") {
  // "it" (7) is the query in focus: 6 and 8 would touch it and give way.
  CHECK(axis_labels_shown(12, 13, 17, {7}) == V{0, 2, 4, 7, 10});
  // The candidates animal (1) and street (5) and the property tired (10) as keys.
  CHECK(axis_labels_shown(12, 13, 17, {1, 5, 10}) == V{1, 5, 8, 10});
  // Out of range (a query row scrolled out of the window, no property word) is ignored.
  CHECK(axis_labels_shown(12, 13, 17, {-1, 40}) == V{0, 2, 4, 6, 8, 10});
  // With room for every label nothing gives way.
  CHECK(axis_labels_shown(4, 20, 17, {2}) == V{0, 1, 2, 3});
}

}  // namespace
}  // namespace attnviz
