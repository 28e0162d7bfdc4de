// The Heads view as a figure: the chosen layer's heads (or the zoomed one) in the shown measure,
// titled as the view titles them, with the chosen query's row outlined. Headless.
#include <algorithm>
#include <string>

#include "state/explain_figure.h"
#include "state/figure_page.h"
#include "state/view_figure.h"

namespace attnviz {

// "Head 3 · K/V 1 · off", as the Heads view writes a head's title (numbers from 1).
std::string heads_panel_title(const AppState& app, const Trace& t, int layer, int h) {
  const HeadTrace& head = t.head(layer, h);
  std::string title = std::string(tr(app.lang, Str::head)) + " " + std::to_string(h + 1);
  if (t.config.kv_heads() != t.config.n_heads) title += " · " + tr_format(app.lang, Str::kv_head_short, t.config.kv_group(h) + 1);
  if (head.score != ScoreKind::scaled_dot && !t.weights_only) title += " · " + std::string(name_of(head.score));
  if (head.ablated) title += " · " + std::string(tr(app.lang, Str::head_off_short));
  return title;
}

Result<Figure> heads_figure(const AppState& app, const FontRaster* font) {
  const Trace& t = app_shown_trace(app);
  if (app.layer < 0 || app.layer >= static_cast<int>(t.layers.size())) return make_error("heads: no such layer");
  const int NH = t.config.n_heads;
  HeatmapGridSpec spec = page_grid_spec(app, t);
  spec.color_scale = app.color_scale;
  spec.first_column_apart = app_first_aside(app);
  const bool per_layer = app_map_per_layer(app);  // the rollout: the layer's one map, as the view shows it
  const std::vector<int> heads = heads_drawn(app.heads, per_layer, NH);
  std::vector<const Mat*> maps;
  for (int h : heads) {
    spec.held.push_back(app_head_map(app, app.layer, h));  // formed maps live as long as the spec
    maps.push_back(spec.held.back().get());
    spec.panels.push_back(
        per_layer ? HeatmapPanel{tr_format(app.lang, Str::rollout_panel, app.layer + 1), maps.back(), "rollout"}
                  : HeatmapPanel{heads_panel_title(app, t, app.layer, h), maps.back(), "h" + std::to_string(h)});
  }
  if (app.measure != AttentionMeasure::weights) spec.vmax = maps_top(maps);
  spec.highlight_row = app_shown_query(app);
  const bool zoomed = app.heads.zoom_head >= 0 && app.heads.zoom_head < NH;
  if (zoomed || per_layer) spec.cell_px = 36;  // one map: larger cells
  spec.caption = std::string(tr(app.lang, Str::view_heads)) + " — " + tr(app.lang, Str::layer) + " " + std::to_string(app.layer + 1) +
                 " / " + std::to_string(t.layers.size()) + " — " + measure_label(app.lang, app.measure) + map_display_caption(app);
  auto grid = heatmap_grid_figure(spec, font);
  if (!grid || !zoomed || per_layer) return grid;
  // A zoomed head: its query/key picture beside the map, as the view shows it.
  auto qk = qk_figure(app, t, app.layer, app.heads.zoom_head, font);
  if (!qk) return grid;  // no picture for this head (an attention file, additive scores): the map alone
  Figure both = std::move(*grid);
  const float x = both.width;
  figure_append(both, *qk, x, 0);
  both.width = x + qk->width;
  both.height = std::max(both.height, qk->height);
  return both;
}

}  // namespace attnviz
