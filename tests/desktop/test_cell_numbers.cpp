// "Numbers in cells": the UI font when the widest value fits, smaller to fit down to 10 px (times the
// UI's scale), none below; the old rule wrote them only in cells of 26 px or more, at any font size,
// so the default 20-pixel cells of the coreference demo showed none with the box ticked.
#include <doctest/doctest.h>

#include "state/cell_numbers.h"

namespace attnviz {
namespace {

TEST_CASE("cell numbers: the UI font when the widest value fits, smaller to fit, none when illegible") {
  // ".84" is about 22 px wide at 17 px.
  CHECK(cell_number_px(40, 22, 17, 1) == 17.0f);                             // room 36: the UI font
  CHECK(cell_number_px(26, 22, 17, 1) == 17.0f);                             // room 22: just fits
  CHECK(cell_number_px(20, 22, 17, 1) == doctest::Approx(17.0f * 16 / 22));  // 12.4 px
  CHECK(cell_number_px(16, 22, 17, 1) == 0.0f);                              // 9.3 px would be needed: none
  CHECK(cell_number_px(4, 22, 17, 1) == 0.0f);                               // no room at all
  CHECK(cell_number_px(20, 22, 0, 1) == 0.0f);
}

TEST_CASE("cell numbers: presentation mode and HiDPI scale the margin and the smallest size") {
  // At 1.6 times: 27.2 px text, ".84" about 35 px wide, margins 6.4 px, at least 16 px.
  CHECK(cell_number_px(60, 35, 27.2f, 1.6f) == 27.2f);
  CHECK(cell_number_px(32, 35, 27.2f, 1.6f) == doctest::Approx(27.2f * 25.6f / 35));  // 19.9 px
  CHECK(cell_number_px(24, 35, 27.2f, 1.6f) == 0.0f);                                 // 13.2 px is under 16
  // A value wider than the others ("12.5" of value-norm) sets the size for every cell.
  CHECK(cell_number_px(30, 30, 17, 1) == doctest::Approx(17.0f * 26 / 30));
}

}  // namespace
}  // namespace attnviz
