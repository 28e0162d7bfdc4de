// The flow graph and the query/key picture in exported figures (PNG, SVG, slides), drawn with the
// window's geometry (state/explain_layout.h) on a white page. Headless.
#pragma once
#include "base/result.h"
#include "render/figure.h"
#include "state/figure_page.h"

namespace attnviz {

// The flow graph into the lens's position (the Statistics figure), when the panel's graph is current
// for the shown trace; nothing otherwise. Each edge is a line tagged panel "flow.l<L>.h<H>", row =
// the token it moves into, col = the token it moves from, value = its share (layers and heads from 0).
Status flow_page_part(FigurePage& page, const AppState& app);

// Head (layer, head)'s queries (circles) and keys (squares) of trace t in their 2-D projection, with
// lines from the chosen query (app.query) to its three strongest keys; titled. Errors: qk_projection's.
Result<Figure> qk_figure(const AppState& app, const Trace& t, int layer, int head, const FontRaster* font);

}  // namespace attnviz
