// Mask rules one by one and combined, checked cell by cell against their definitions.
#include <doctest/doctest.h>

#include <cmath>

#include "model/mask.h"

using namespace attnviz;

namespace {
int visible_count(const Mat& m) { return static_cast<int>((m.array() == 0.0f).count()); }
}  // namespace

TEST_CASE("mask: none shows everything, causal hides the future") {
  CHECK(visible_count(mask_build(MaskSpec{}, 5, 5, 5)) == 25);
  MaskSpec causal;
  causal.causal = true;
  const Mat m = mask_build(causal, 5, 5, 5);
  CHECK(visible_count(m) == 15);  // lower triangle with the diagonal
  CHECK(m(1, 2) == -INFINITY);
  CHECK(m(2, 1) == 0.0f);
}

TEST_CASE("mask: window, strided, padding and custom cells") {
  MaskSpec window;
  window.window = 1;
  const Mat w = mask_build(window, 6, 6, 6);
  CHECK(visible_count(w) == 6 + 2 * 5);  // the band of width 3
  MaskSpec strided;
  strided.stride = 3;
  // visible when |i-j| < 3 or (i-j) divisible by 3
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      CHECK(mask_visible(strided, i, j, 8) == (std::abs(i - j) < 3 || (i - j) % 3 == 0));
  CHECK_FALSE(mask_visible(strided, 0, 4, 8));
  CHECK(mask_visible(strided, 0, 6, 8));
  CHECK(mask_visible(strided, 7, 1, 8));
  MaskSpec pad;
  pad.pad_to = 6;
  const Mat p = mask_build(pad, 6, 6, 4);
  CHECK(visible_count(p) == 6 * 4);
  CHECK(p(5, 3) == 0.0f);
  CHECK(p(0, 4) == -INFINITY);
  MaskSpec custom;
  custom.hidden_cells = {{0, 1}, {3, 3}, {99, 2}};  // out-of-range cells are ignored
  const Mat cm = mask_build(custom, 4, 4, 4);
  CHECK(visible_count(cm) == 14);
  CHECK(cm(3, 3) == -INFINITY);
}

TEST_CASE("mask: rules combine — a key is visible only if every rule allows it") {
  MaskSpec all;
  all.causal = true;
  all.window = 2;
  all.pad_to = 8;
  all.hidden_cells = {{4, 3}};
  const Mat m = mask_build(all, 8, 8, 6);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      const bool expect = j <= i && i - j <= 2 && j < 6 && !(i == 4 && j == 3);
      CHECK((m(i, j) == 0.0f) == expect);
    }
}

TEST_CASE("mask: cross-attention masks are rectangular") {
  MaskSpec causal;
  causal.causal = true;
  const Mat m = mask_build(causal, 3, 5, 5);
  CHECK(m.rows() == 3);
  CHECK(m.cols() == 5);
  CHECK(visible_count(m) == 1 + 2 + 3);
}

TEST_CASE("mask: rows whose every key is hidden are listed (their weights are all zeros)") {
  MaskSpec spec;
  spec.hidden_cells = {{1, 0}, {1, 1}, {1, 2}, {2, 0}};
  const Mat m = mask_build(spec, 3, 3, 3);
  CHECK(mask_fully_hidden_rows(m) == std::vector<int>{1});
  CHECK(mask_fully_hidden_rows(mask_build(MaskSpec{}, 4, 4, 4)).empty());
  CHECK(mask_fully_hidden_rows(Mat(2, 0)).empty());  // no keys at all: nothing to report
}
