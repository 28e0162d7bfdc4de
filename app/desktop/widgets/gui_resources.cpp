// Texture uploads for the traces AppState holds: re-done only when a trace, the colour map or the
// pooled size changes (HeatmapTextures checks the version).
#include "widgets/gui_resources.h"

namespace attnviz {

namespace {

std::vector<const Mat*> all_heads(const Trace& t) {
  std::vector<const Mat*> maps;
  for (const LayerTrace& l : t.layers)
    for (const HeadTrace& h : l.attn.heads) maps.push_back(&h.weights);
  return maps;
}

}  // namespace

void GuiResources::release() {
  for (HeatmapTextures* t : {&heads_a, &heads_b, &heads_measure, &heads_words, &compare, &zoom_window, &train_run, &train_pair})
    t->release();
}

void gui_resources_refresh(const AppState& app, GuiResources& gui) {
  const int side = gui.texture_side;
  const ColorScaleSpec& scale = app.color_scale;
  if (app.trace) gui.heads_a.update(app.trace_version, all_heads(*app.trace), app.cmap, 0.0f, 1.0f, side, scale);
  if (app.trace_b) gui.heads_b.update(app.trace_version, all_heads(*app.trace_b), app.cmap, 0.0f, 1.0f, side, scale);
  if (!app.maps.maps.empty()) {
    std::vector<const Mat*> maps;
    for (const Mat& m : app.maps.maps) maps.push_back(&m);
    gui.heads_measure.update(app.maps.version, maps, app.cmap, 0.0f, app.maps.vmax, side, scale, app.maps.first_aside);
  }
  if (app_words_shown(app))
    gui.heads_words.update(app.shown_version, all_heads(*app.words.trace), app.cmap, 0.0f, 1.0f, side, scale);
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
  if (!app.trace || app.maps.maps.empty()) return gui_head_texture(app, gui, layer, head);
  return gui.heads_measure.texture(layer * app.trace->config.n_heads + head);
}

}  // namespace attnviz
