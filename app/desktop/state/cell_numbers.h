// The size at which a heatmap writes each cell's value ("Numbers in cells"): the UI font's size when
// the widest value fits a cell with a margin, else smaller to fit, down to the smallest legible size;
// 0 when not even that fits (each cell's tooltip still gives its value). Pixels.
#pragma once

namespace attnviz {

inline constexpr float kCellNumberMinPx = 10.0f;  // the smallest legible value, at content scale 1

// widest: the widest value's width at font_px; scale: the monitor's content scale (presentation mode
// enlarges the text, not the smallest size still legible).
float cell_number_px(float cell, float widest, float font_px, float scale);

}  // namespace attnviz
