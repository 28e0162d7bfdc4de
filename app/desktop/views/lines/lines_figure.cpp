// The Lines view as a figure: queries in a left column, keys in a right one, a line per (query,
// key, shown head) whose opacity is the weight, in the head's colour; with a chosen query only its
// lines, as the view shows them. Each line carries its weight as a tag in the SVG. Headless.
#include <algorithm>
#include <string>

#include "state/figure_page.h"
#include "state/view_figure.h"
#include "views/lines/lines_palette.h"

namespace attnviz {

namespace {

struct Link {
  float value, alpha;
  int q, k, rank;
};

}  // namespace

Result<Figure> lines_figure(const AppState& app, const FontRaster* font) {
  const Trace& t = app_shown_trace(app);
  if (app.layer < 0 || app.layer >= static_cast<int>(t.layers.size())) return make_error("lines: no such layer");
  const Lang L = app.lang;
  const int NH = t.config.n_heads, Tq = t.n_queries(), Tk = t.n_keys();
  const bool per_layer = app_map_per_layer(app);  // the rollout: the layer's one map, in one colour
  const std::vector<int> shown = lines_drawn_heads(app, NH);

  FigurePage page = page_make(font, 420);  // the diagram widens the page as it needs
  page_line(page, std::string(tr(L, Str::view_lines)) + " — " + tr(L, Str::layer) + " " + std::to_string(app.layer + 1) + " / " +
                      std::to_string(t.layers.size()) + " — " + measure_label(L, app.measure),
            17, kPageInk);
  if (app_first_aside(app)) page_line(page, tr(L, Str::first_aside_caption), 13, kPageDim);  // its lines grey
  // The heads' colours, as the view's legend.
  const float px = 14, row_h = 24, pad = 8;
  float x = page.margin;
  TextPainter measure(font, px);
  for (int h : shown) {
    const std::string name = per_layer ? std::string(tr(L, Str::rollout_column))
                                       : std::string(tr(L, Str::head)) + " " + std::to_string(h + 1);
    FigureRect sw;
    sw.x = x;
    sw.y = page.y + 2;
    sw.w = sw.h = px - 2;
    sw.fill = lines_color(app, h);
    page.fig.items.push_back(sw);
    FigureText label{x + px + 2, page.y, name, px, kPageInk};
    page.fig.items.push_back(label);
    x += px + 2 + static_cast<float>(measure.width(name)) + 14;
  }
  page_gap(page, row_h + 6);

  float q_w = 0, k_w = 0;
  for (const TraceToken& tok : t.queries) q_w = std::max(q_w, static_cast<float>(measure.width(tok.text)));
  for (const TraceToken& tok : t.keys) k_w = std::max(k_w, static_cast<float>(measure.width(tok.text)));
  q_w = std::min(q_w, 180.0f) + 2 * pad;
  k_w = std::min(k_w, 180.0f) + 2 * pad;
  const float lines_w = 320;
  const float x0 = page.margin, xa = x0 + q_w, xb = xa + lines_w;
  page.fig.items.push_back(FigureText{xa - pad, page.y, tr(L, Str::ln_queries), px, kPageDim, TextAnchor::end});
  page.fig.items.push_back(FigureText{xb + pad, page.y, tr(L, Str::ln_keys), px, kPageDim});
  page_gap(page, row_h);
  const int rows = std::max(Tq, Tk);
  const float q_top = page.y + static_cast<float>(rows - Tq) * row_h * 0.5f, k_top = page.y + static_cast<float>(rows - Tk) * row_h * 0.5f;
  auto q_y = [&](int q) { return q_top + (static_cast<float>(q) + 0.5f) * row_h; };
  auto k_y = [&](int k) { return k_top + (static_cast<float>(k) + 0.5f) * row_h; };

  const int query = app_shown_query(app);
  const bool focused = query >= 0 && query < Tq;
  const float scale = app.maps.vmax;  // measures: by their largest value
  std::vector<std::shared_ptr<const Mat>> maps;  // each shown head's, fetched once (formed ones are held)
  for (int h : shown) maps.push_back(app_head_map(app, app.layer, h));
  std::vector<Link> links;
  for (int q = focused ? query : 0; q < (focused ? query + 1 : Tq); ++q)
    for (int k = 0; k < Tk; ++k)
      for (size_t r = 0; r < shown.size(); ++r) {
        const float v = (*maps[r])(q, k);
        if (v / scale >= kLinesMinWeight) links.push_back({v, v / scale, q, k, static_cast<int>(r)});
      }
  if (!focused && links.size() > static_cast<size_t>(kLinesBudget)) {
    std::nth_element(links.begin(), links.begin() + static_cast<size_t>(kLinesBudget), links.end(), [](const Link& a, const Link& b) { return a.alpha > b.alpha; });
    links.resize(static_cast<size_t>(kLinesBudget));
  }
  std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) { return a.alpha < b.alpha; });  // strong lines on top
  const float n = static_cast<float>(shown.size());
  const float fan = shown.size() > 1 ? std::min(2.0f, row_h * 0.5f / (n - 1)) : 0.0f;  // several heads on one pair stay apart
  for (const Link& g : links) {
    const int h = shown[static_cast<size_t>(g.rank)];
    const float dy = (static_cast<float>(g.rank) - 0.5f * (n - 1)) * fan;
    FigureLine line;
    line.points = {{xa + 2, q_y(g.q) + dy}, {xb - 2, k_y(g.k) + dy}};
    // The first token set aside: its lines grey, the rest of each row renormalised (app_head_map).
    line.color = app_first_aside(app) && g.k == 0 ? kFirstAsideGrey : lines_color(app, h);
    line.width = focused ? 2.5f : 2.0f;
    line.opacity = std::clamp(focused ? std::max(g.alpha, 0.1f) : g.alpha, 0.0f, 1.0f);
    line.tag = FigureCellTag{per_layer ? "rollout" : "h" + std::to_string(h), g.q, g.k, g.value};
    page.fig.items.push_back(std::move(line));
  }
  const float lh = px;
  for (int q = 0; q < Tq; ++q) {
    const TraceToken& tok = t.queries[static_cast<size_t>(q)];
    if (q == query) {
      FigureRect box;
      box.x = x0;
      box.y = q_y(q) - row_h * 0.5f + 1;
      box.w = q_w;
      box.h = row_h - 2;
      box.stroke = kLinesChosen;
      box.stroke_width = 2;
      page.fig.items.push_back(box);
    }
    page.fig.items.push_back(FigureText{xa - pad, q_y(q) - lh * 0.5f, measure.fit(tok.text, static_cast<int>(q_w - 2 * pad)), px,
                                        q == query ? Rgba{200, 110, 0, 255} : tok.pad ? kPageDim : kPageInk, TextAnchor::end});
  }
  for (int k = 0; k < Tk; ++k) {
    const TraceToken& tok = t.keys[static_cast<size_t>(k)];
    page.fig.items.push_back(FigureText{xb + pad, k_y(k) - lh * 0.5f, measure.fit(tok.text, static_cast<int>(k_w - 2 * pad)), px,
                                        tok.pad ? kPageDim : kPageInk});
  }
  page_gap(page, static_cast<float>(rows) * row_h + 6);
  if (shown.empty()) page_paragraph(page, tr(L, Str::ln_all_hidden), px);
  page.fig.width = std::max(page.fig.width, xb + k_w + page.margin);
  return page_finish(std::move(page));
}

}  // namespace attnviz
