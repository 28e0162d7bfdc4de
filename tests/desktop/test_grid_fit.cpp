// The "Which heads matter" grid fitting its view: values while they fit, then narrower cells
// without them, then a sideways scroll; head numbers alone when "Head 16" does not fit.
#include <doctest/doctest.h>

#include "state/grid_fit.h"

namespace attnviz {
namespace {

// Sizes like the Statistics view's at 1280 × 800: an 883-pixel view, "Layer 00" 70 pixels, the
// widest value ("-0.001") 52 with its padding, the widest head label ("Head 16") 62.
GridFitInput view_of(int heads) { return GridFitInput{heads, 883, 70, 52, 62, 14}; }

TEST_CASE("grid fit: the shipped demo's 4 heads print their values under full labels") {
  const GridFit f = grid_fit(view_of(4));
  CHECK(f.cell_w == 62);  // as wide as "Head 16", the wider of label and value
  CHECK(f.values);
  CHECK_FALSE(f.short_labels);
  CHECK_FALSE(f.scrolls);
  CHECK(f.width == 70 + 4 * 62);
}

TEST_CASE("grid fit: 12 heads have full cells; at 14 the values stay under bare numbers") {
  const GridFit f = grid_fit(view_of(12));
  CHECK(f.cell_w == doctest::Approx(62.0));  // (883 - 70) / 12 = 67.75, capped at 62
  GridFitInput crowded = view_of(14);        // (883 - 70) / 14 = 58.1: no room for "Head 14"
  const GridFit g = grid_fit(crowded);
  CHECK(g.cell_w == doctest::Approx(813.0 / 14.0));
  CHECK(g.values);
  CHECK(g.short_labels);
}

TEST_CASE("grid fit: 16 heads share the width without values, and fit") {
  const GridFit f = grid_fit(view_of(16));
  CHECK(f.cell_w == doctest::Approx(813.0 / 16.0));
  CHECK_FALSE(f.values);  // 50.8 pixels cannot hold 52
  CHECK(f.short_labels);
  CHECK(f.width == doctest::Approx(883.0));
  CHECK_FALSE(f.scrolls);
}

TEST_CASE("grid fit: 64 heads stop at the narrowest cell and scroll sideways") {
  const GridFit f = grid_fit(view_of(64));
  CHECK(f.cell_w == 14);
  CHECK_FALSE(f.values);
  CHECK(f.short_labels);
  CHECK(f.scrolls);
  CHECK(f.width == 70 + 64 * 14);
}

TEST_CASE("grid fit: no columns is an empty grid, not a division by zero") {
  const GridFit f = grid_fit(GridFitInput{0, 883, 70, 52, 62, 14});
  CHECK(f.width == 70);
  CHECK_FALSE(f.scrolls);
}

}  // namespace
}  // namespace attnviz
