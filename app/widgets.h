// Small drawing helpers shared by panels (ImGui 1.86 lacks some of them).
#pragma once
#include <imgui.h>

#include "core/colormap.h"

namespace attnviz {

// A titled separator (1.86 has no SeparatorText).
void section_header(const char* title);

// Text rotated 90° counter-clockwise, reading bottom to top; `bottom_left` is where the text's
// top-left corner would be before rotation. Text longer than max_len pixels ends in "…".
void draw_text_vertical(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text, float max_len);

// A horizontal colour bar for `cmap` over [vmin, vmax] with tick labels at both ends and the middle,
// drawn at the cursor as one item of the given width.
void colormap_legend(Colormap cmap, float vmin, float vmax, float width);

// Black or white, whichever reads better on `background`.
ImU32 contrast_text_color(ImU32 background);

}  // namespace attnviz
