// Every view as a figure for export (PNG at a scale, or SVG): what the view shows for the current
// state (layer, head, query, step, toggles, words, colour map, language), drawn for a page, not a
// screenshot of the window. One builder per view lives in that view's folder (<view>_figure.cpp);
// all are headless. A view with nothing to show yet is an error that says so.
#pragma once
#include "base/result.h"
#include "render/figure.h"
#include "state/app_state.h"

namespace attnviz {

// AppState is not const: the Coreference view's cache may need refreshing first (as drawing would).
Result<Figure> view_figure(AppState& app, View view, const FontRaster* font);

Result<Figure> heads_figure(const AppState& app, const FontRaster* font);
Result<Figure> model_figure(const AppState& app, const FontRaster* font);
Result<Figure> arch_figure(const AppState& app, const FontRaster* font);
Result<Figure> lines_figure(const AppState& app, const FontRaster* font);
Result<Figure> compare_figure(const AppState& app, const FontRaster* font);
Result<Figure> steps_figure(const AppState& app, const FontRaster* font);
Result<Figure> stats_figure(const AppState& app, const FontRaster* font);
Result<Figure> coref_figure(AppState& app, const FontRaster* font);
Result<Figure> train_figure(const AppState& app, const FontRaster* font);
// AppState is not const: the translation is computed first when the view has not been drawn yet.
Result<Figure> translate_figure(AppState& app, const FontRaster* font);

}  // namespace attnviz
