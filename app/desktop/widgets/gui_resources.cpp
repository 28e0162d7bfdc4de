// Texture uploads for the traces AppState holds: re-done only when a trace, the colour map or the
// pooled size changes (HeatmapTextures checks the version).
#include "widgets/gui_resources.h"

#include "model/head_map.h"

namespace attnviz {

namespace {

size_t head_count(const Trace& t) { return t.layers.size() * static_cast<size_t>(t.config.n_heads); }

// Head i (layer · NH + head) of the trace: kept, or formed now and dropped once uploaded.
HeatmapTextures::MapSource heads_of(const Trace& t, bool first_aside = false) {
  return [&t, first_aside](size_t i) {
    const int NH = t.config.n_heads, layer = static_cast<int>(i) / NH, head = static_cast<int>(i) % NH;
    if (!first_aside) return head_map_shared(t, layer, head);
    return std::shared_ptr<const Mat>(std::make_shared<const Mat>(attention_first_key_aside(*head_map(t, layer, head))));
  };
}

}  // namespace

void GuiResources::release() {
  for (HeatmapTextures* t : {&heads_a, &heads_b, &heads_measure, &heads_words, &compare, &zoom_window, &train_run, &train_pair})
    t->release();
}

void gui_resources_refresh(const AppState& app, GuiResources& gui) {
  const int side = gui.texture_side;
  const ColorScaleSpec& scale = app.color_scale;
  if (app.trace) gui.heads_a.update(app.trace_version, head_count(*app.trace), heads_of(*app.trace), app.cmap, 0.0f, 1.0f, side, scale);
  if (app.trace_b)
    gui.heads_b.update(app.trace_version, head_count(*app.trace_b), heads_of(*app.trace_b), app.cmap, 0.0f, 1.0f, side, scale);
  // A trace that forms its maps on demand builds no measure maps (MeasureMaps): the first key set
  // aside is applied here, a map at a time.
  if (app.trace && trace_forms_maps(*app.trace) && app_first_aside(app) && app.maps.maps.empty())
    gui.heads_measure.update(app.maps.version | (uint64_t{1} << 63),  // never a version of the branch below
                             head_count(*app.trace), heads_of(*app.trace, true), app.cmap, 0.0f, 1.0f, side, scale, true);
  if (!app.maps.maps.empty()) {
    std::vector<const Mat*> maps;
    for (const Mat& m : app.maps.maps) maps.push_back(&m);
    gui.heads_measure.update(app.maps.version, maps, app.cmap, 0.0f, app.maps.vmax, side, scale, app.maps.first_aside);
  }
  if (app_words_shown(app))
    gui.heads_words.update(app.shown_version, head_count(*app.words.trace), heads_of(*app.words.trace), app.cmap, 0.0f,
                           1.0f, side, scale);
  std::vector<const Mat*> diffs;
  for (const Mat& m : app.compare.maps.diff) diffs.push_back(&m);
  // Differences of weights lie in [-1, 1]: white is "no change".
  gui.compare.update(app.compare.maps.key, diffs, Colormap::diverging, -1.0f, 1.0f, side);
}

unsigned gui_head_texture(const AppState& app, const GuiResources& gui, int layer, int head) {
  if (!app.trace) return 0;
  return gui.heads_a.texture(layer * app.trace->config.n_heads + head);
}

unsigned gui_shown_texture(const AppState& app, const GuiResources& gui, int layer, int head) {
  if (app_words_shown(app)) return gui.heads_words.texture(layer * app.trace->config.n_heads + head);
  const bool formed_aside = app.trace && trace_forms_maps(*app.trace) && app_first_aside(app);
  if (!app.trace || (app.maps.maps.empty() && !formed_aside)) return gui_head_texture(app, gui, layer, head);
  return gui.heads_measure.texture(layer * app.trace->config.n_heads + head);
}

}  // namespace attnviz
