// What the views' figure builders share (views/<view>/<view>_figure.cpp): a page that stacks
// titles, wrapped paragraphs and heatmap grids top to bottom, and a heatmap grid spec set up the
// way the app shows a trace (tokens, colour map, value labels). Headless; draws no pixel itself.
#pragma once
#include <string>
#include <vector>

#include "render/figure.h"
#include "render/heatmap.h"
#include "state/app_state.h"
#include "state/formula_markup.h"

namespace attnviz {

inline constexpr Rgba kPageInk{24, 24, 24, 255};
inline constexpr Rgba kPageDim{96, 96, 96, 255};
inline constexpr Rgba kPageFrame{150, 150, 150, 255};

struct FigurePage {
  const FontRaster* font = nullptr;
  float margin = 16, width = 640;  // width: the text column wrapped paragraphs fill (grows with blocks)
  float y = 16;                    // where the next block goes
  Figure fig;
};

FigurePage page_make(const FontRaster* font, float text_width = 760);
// One line of text (cut with an ellipsis at the page's width), then the cursor moves below it.
void page_line(FigurePage& page, const std::string& text, float px, Rgba color = kPageInk, bool bold = false);
// Text wrapped at spaces to the page's width.
void page_paragraph(FigurePage& page, const std::string& text, float px, Rgba color = kPageDim);
void page_gap(FigurePage& page, float px);
// A formula typeset as the app draws it (state/formula_layout.h): its parts as text and lines.
void page_formula(FigurePage& page, const FormulaNode& formula, float px, Rgba color);
// A whole figure below the cursor, x from the left, its cell tags' panel ids prefixed (its own
// margin overlaps the page's).
void page_block(FigurePage& page, const Figure& block, const std::string& prefix = {}, float x = 0);
// A heatmap grid as a block; an invalid spec is the error.
Status page_grid(FigurePage& page, const HeatmapGridSpec& spec, const std::string& prefix = {});
Figure page_finish(FigurePage&& page);

// Lines of at most max_width pixels, broken at spaces (a word longer than the line is cut).
std::vector<std::string> text_wrap(const FontRaster* font, const std::string& text, float px, float max_width);

// A grid of the trace's tokens (query rows, key columns) in the app's colour map and value labels;
// the caller adds the panels.
HeatmapGridSpec page_grid_spec(const AppState& app, const Trace& t);

// A grid of layers (rows "L1", ...) by heads (columns "H1", ...) in the app's colour map: the
// Statistics and Coreference figures' per-head grids. The caller adds the panels.
HeatmapGridSpec page_layer_head_spec(const AppState& app, int layers, int heads);

// The largest value over the maps (at least a tiny positive number), for a measure's colour range.
// What a figure's caption adds for the map display: " — log scale", " — first token apart (grey),
// rest renormalised"; "" when the maps are drawn plainly.
std::string map_display_caption(const AppState& app);
float maps_top(const std::vector<const Mat*>& maps);

}  // namespace attnviz
