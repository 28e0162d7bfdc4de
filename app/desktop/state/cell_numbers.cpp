#include "state/cell_numbers.h"

#include <algorithm>

namespace attnviz {

float cell_number_px(float cell, float widest, float font_px, float scale) {
  const float room = cell - 4.0f * scale;  // two pixels either side, at content scale 1
  if (room <= 0 || font_px <= 0) return 0.0f;
  // Text width scales with the font's size, so the size that fits is font_px × room / widest.
  const float px = widest <= room ? font_px : font_px * room / std::max(widest, 1e-3f);
  return px >= kCellNumberMinPx * scale ? px : 0.0f;
}

}  // namespace attnviz
