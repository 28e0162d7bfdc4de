// Paints a headless Figure (render/figure.h) into an ImGui window: the same items the PNG and SVG
// exports draw, so a view and its export come from one layout. Rectangles, lines, circles and
// horizontal text; a colour bar as its colour map's ramp.
#pragma once
#include <imgui.h>

#include "render/figure.h"

namespace attnviz {

// origin: where the figure's (0, 0) goes; scale: screen pixels per figure pixel.
void figure_paint(ImDrawList* draw_list, const Figure& figure, ImVec2 origin, float scale);

}  // namespace attnviz
