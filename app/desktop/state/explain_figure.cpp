#include "state/explain_figure.h"

#include <algorithm>
#include <string>

#include "analysis/answer.h"
#include "analysis/qk_projection.h"
#include "render/text_raster.h"
#include "state/app_state.h"
#include "state/explain_layout.h"

namespace attnviz {

namespace {

constexpr Rgba kResidual{160, 160, 170, 255};

FigureLine segment(PlotPoint a, PlotPoint b, Rgba color, float width) {
  FigureLine line;
  line.points = {{a.x, a.y}, {b.x, b.y}};
  line.color = Rgba{color.r, color.g, color.b, 255};
  line.opacity = static_cast<float>(color.a) / 255.0f;
  line.width = width;
  return line;
}

}  // namespace

Status flow_page_part(FigurePage& page, const AppState& app) {
  const FlowShown* shown = flow_current(app);
  if (!shown || !shown->graph) return Ok{};
  const Lang L = app.lang;
  const Trace& t = *app.trace;
  const FlowGraph& g = *shown->graph;
  const int NL = static_cast<int>(t.layers.size()), T = t.n_queries(), NH = t.config.n_heads;
  page_gap(page, 8);
  page_line(page, tr_format(L, Str::flow_title, g.target, t.queries[static_cast<size_t>(g.target)].text.c_str()), 15, kPageInk, true);
  if (g.weight == FlowWeight::attribution)
    page_paragraph(page,
                   tr_format(L, Str::flow_figure_note_attr, answer_token_text(*app.trace_model, g.answer_id).c_str(),
                             answer_token_text(*app.trace_model, g.wrong_id).c_str(), static_cast<double>(g.threshold), static_cast<int>(g.edges.size())),
                   13);
  else
    page_line(page, tr_format(L, Str::flow_figure_note, static_cast<double>(g.threshold), static_cast<int>(g.edges.size())), 13, kPageDim);
  constexpr float px = 13, row_h = 22, head_h = 20;
  float label_w = 0;
  for (const TraceToken& tok : t.queries) label_w = std::max(label_w, static_cast<float>(text_width(page.font, tok.text, px)));
  label_w += 12;
  const float width = std::max(page.width, label_w + 60 + 90.0f * static_cast<float>(NL));
  const float left = page.margin, top = page.y;
  const FlowGeometry geo = flow_geometry(left, top, width, label_w, row_h, head_h, NL);
  Figure& fig = page.fig;
  for (int c = 0; c <= NL; ++c)
    fig.items.push_back(figure_text(geo.node(c, 0).x, top, c < NL ? tr_format(L, Str::flow_before, c + 1) : tr_format(L, Str::flow_after, NL), px,
                              kPageDim, TextAnchor::middle));
  for (int p = 0; p < T; ++p) {
    const PlotPoint a = geo.node(0, p);
    fig.items.push_back(figure_text(left + label_w - 8, a.y - px * 0.5f, t.queries[static_cast<size_t>(p)].text, px,
                              p == g.target ? Rgba{200, 120, 0, 255} : kPageInk, TextAnchor::end));
    for (int c = 0; c < NL; ++c)  // the residual stream of a reached token
      if (g.reached[static_cast<size_t>(c + 1)][static_cast<size_t>(p)])
        fig.items.push_back(segment(geo.node(c, p), geo.node(c + 1, p), Rgba{kResidual.r, kResidual.g, kResidual.b, 140}, 1.0f));
  }
  for (const FlowEdge& e : g.edges) {
    FigureLine line = segment(geo.node(e.layer, e.from), geo.node(e.layer + 1, e.to), flow_edge_color(e, NH, Backdrop::light), flow_edge_width(e.share));
    line.tag = FigureCellTag{"flow.l" + std::to_string(e.layer) + ".h" + std::to_string(e.head), e.to, e.from, e.share};
    fig.items.push_back(std::move(line));
  }
  for (int c = 0; c <= NL; ++c)
    for (int p = 0; p < T; ++p)
      if (g.reached[static_cast<size_t>(c)][static_cast<size_t>(p)]) {
        const PlotPoint n = geo.node(c, p);
        fig.items.push_back(FigureCircle{n.x, n.y, 3.5f, kPageInk});
      }
  // The heads' colours, as a legend under the graph.
  float x = left + label_w;
  const float legend_y = geo.node(0, T - 1).y + row_h;
  for (int h = 0; h < NH; ++h) {
    const std::string name = std::string(tr(L, Str::head)) + " " + std::to_string(h + 1);
    const Rgba col = flow_edge_color(h, NH, 1.0f, Backdrop::light);
    fig.items.push_back(segment({x, legend_y + px * 0.5f}, {x + 18, legend_y + px * 0.5f}, col, 4.0f));
    fig.items.push_back(figure_text(x + 22, legend_y, name, px, kPageInk));
    x += 22 + static_cast<float>(text_width(page.font, name, px)) + 14;
  }
  if (g.weight == FlowWeight::attribution) {  // the slate of edges that push against the answer
    const std::string against = tr(L, Str::flow_against);
    fig.items.push_back(segment({x, legend_y + px * 0.5f}, {x + 18, legend_y + px * 0.5f}, kAgainstLight, 4.0f));
    fig.items.push_back(figure_text(x + 22, legend_y, against, px, kPageInk));
  }
  page.y = legend_y + px * 1.6f;
  fig.width = std::max(fig.width, left + width + page.margin);
  return Ok{};
}

Result<Figure> qk_figure(const AppState& app, const Trace& t, int layer, int head, const FontRaster* font) {
  auto p = qk_projection(t.head(layer, head));
  if (!p) return make_error(p.error());
  const Lang L = app.lang;
  constexpr float side = 420, px = 13;
  FigurePage page = page_make(font, side);
  page_paragraph(page, tr_format(L, Str::qk_title, 100.0 * p->explained[0], 100.0 * p->explained[1]), 14, kPageInk);
  page_paragraph(page, tr(L, Str::qk_hint), 12);
  page_gap(page, 4);
  const float left = page.margin, top = page.y;
  Figure& fig = page.fig;
  FigureRect frame;
  frame.x = left;
  frame.y = top;
  frame.w = frame.h = side;
  frame.fill = Rgba{250, 250, 252, 255};
  frame.stroke = kPageFrame;
  fig.items.push_back(frame);
  const QKGeometry geo = qk_geometry(*p, left, top, side);
  const int q = app.query >= 0 && app.query < t.n_queries() ? app.query : -1;
  const std::shared_ptr<const Mat> map = app_head_weights(app, t, layer, head);
  const Mat& w = *map;
  for (int k : strongest_keys(w, q, 3))
    fig.items.push_back(segment(geo.at(p->queries, q), geo.at(p->keys, k), Rgba{24, 24, 24, static_cast<uint8_t>(80 + 175 * w(q, k))},
                                1.0f + 3.0f * w(q, k)));
  constexpr float r = 4.0f;
  for (Eigen::Index i = 0; i < p->keys.rows(); ++i) {
    const PlotPoint c = geo.at(p->keys, i);
    FigureRect square;
    square.x = c.x - r;
    square.y = c.y - r;
    square.w = square.h = 2 * r;
    square.fill = kKeyColor;
    fig.items.push_back(square);
    fig.items.push_back(figure_text(c.x + r + 2, c.y - px * 0.5f, t.keys[static_cast<size_t>(i)].text, px, Rgba{150, 90, 20, 255}));
  }
  for (Eigen::Index i = 0; i < p->queries.rows(); ++i) {
    const PlotPoint c = geo.at(p->queries, i);
    const bool chosen = i == q;
    if (chosen) {  // a ring around the chosen query
      fig.items.push_back(FigureCircle{c.x, c.y, r * 2.4f, kPageInk});
      fig.items.push_back(FigureCircle{c.x, c.y, r * 1.9f, Rgba{250, 250, 252, 255}});
    }
    fig.items.push_back(FigureCircle{c.x, c.y, chosen ? r * 1.6f : r, kQueryColor});
    fig.items.push_back(figure_text(c.x + (chosen ? r * 2.4f : r) + 2, c.y - px * 0.5f, t.queries[static_cast<size_t>(i)].text, px,
                              chosen ? kPageInk : Rgba{30, 90, 190, 255}));
  }
  page.y = top + side + page.margin;
  page.fig.width = std::max(page.fig.width, left + side + page.margin);
  return page_finish(std::move(page));
}

}  // namespace attnviz
