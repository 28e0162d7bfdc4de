// The Model view as a figure: every layer x head of the shown trace as a small map, rows = layers
// and columns = heads, each titled "L1 H1". Cells shrink with the text so the page stays a page.
#include <algorithm>
#include <string>

#include "model/head_map.h"
#include "state/figure_page.h"
#include "state/view_figure.h"

namespace attnviz {

Result<Figure> model_figure(const AppState& app, const FontRaster* font) {
  const Trace& t = app_shown_trace(app);
  const int NL = static_cast<int>(t.layers.size()), NH = t.config.n_heads;
  const bool per_layer = app_map_per_layer(app);  // the rollout: one map per layer, as the view shows it
  HeatmapGridSpec spec = page_grid_spec(app, t);
  spec.color_scale = app.color_scale;
  spec.first_column_apart = app_first_aside(app);
  if (trace_forms_maps(t)) {  // every head's map at once: refused where they would not fit the formed maps' room
    const int64_t bytes = int64_t{NL} * NH * t.n_queries() * t.n_keys() * static_cast<int64_t>(sizeof(float));
    if (bytes > kFormedMapsBytes)
      return make_error("the model figure draws all " + std::to_string(NL * NH) + " maps of " + std::to_string(t.n_queries()) +
                        " tokens at once (" + std::to_string(bytes >> 20) + " MiB): export a layer from the Heads view instead");
  }
  std::vector<const Mat*> maps;
  for (int l = 0; l < NL; ++l)
    for (int h = 0; h < (per_layer ? 1 : NH); ++h) {
      spec.held.push_back(app_head_map(app, l, h));  // formed maps live as long as the spec
      maps.push_back(spec.held.back().get());
      const std::string layer = "L" + std::to_string(l + 1);
      spec.panels.push_back(per_layer ? HeatmapPanel{layer + " " + measure_label(app.lang, app.measure), maps.back(),
                                                     "l" + std::to_string(l)}
                                      : HeatmapPanel{layer + " H" + std::to_string(h + 1), maps.back(),
                                                     "l" + std::to_string(l) + ".h" + std::to_string(h)});
    }
  if (app.measure != AttentionMeasure::weights) spec.vmax = maps_top(maps);
  spec.columns = per_layer ? 1 : NH;
  const int longest = std::max(t.n_queries(), t.n_keys());
  spec.cell_px = std::clamp(120 / std::max(1, longest), 1, 12);
  spec.annotate = false;  // thumbnails: the numbers are in the Heads view
  spec.highlight_row = app_shown_query(app);
  spec.caption = std::string(tr(app.lang, Str::view_model)) + " — " + tr_format(app.lang, Str::fig_layers_heads, NL, NH) + " — " +
                 measure_label(app.lang, app.measure) + map_display_caption(app);
  return heatmap_grid_figure(spec, font);
}

}  // namespace attnviz
