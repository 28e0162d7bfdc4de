// What the GUI side keeps beside AppState, owned by main(): the OpenGL textures the views draw
// heatmaps from, and where this frame drew each head (read by --layout-report). AppState stays
// free of GL so app_update, sessions and scripts run without a display.
#pragma once
#include <vector>

#include "state/app_state.h"
#include "widgets/heatmap_textures.h"

namespace attnviz {

// Where a head's heatmap landed on screen this frame (written while drawing, read by
// --layout-report so the GUI tests can check pixels against the engine's weights).
struct DrawnHeatmap {
  int layer = 0, head = 0;
  float x = 0, y = 0, cell = 0;  // top-left of cell (0, 0) and the cell size, in framebuffer pixels
  int rows = 0, cols = 0;
  const char* view = "heads";    // the view that drew it (view_id)
  std::vector<int> rows_labelled, cols_labelled;  // rows and columns whose token labels were drawn
  float label_px = 0;            // the labels' font size
  bool numbers = false;          // the cells carry their values
  ImVec2 visible_min, visible_max;  // the part of the window it was drawn in that shows (a grid scrolls)
};

struct GuiResources {
  HeatmapTextures heads_a;     // every layer x head of trace A, index layer * NH + head
  HeatmapTextures heads_b;     // every layer x head of trace B
  HeatmapTextures heads_measure;  // every layer x head of A under the chosen measure (not the weights)
  HeatmapTextures heads_words;    // every layer x head of A in words (the Sentence panel's word toggles)
  HeatmapTextures compare;     // the Compare view's difference maps (diverging colour map)
  HeatmapTextures zoom_window; // Heads view: a zoomed long input's window at full resolution
  HeatmapTextures train_run;   // Train view: the run's probe, every head of one layer
  HeatmapTextures train_pair;  // Train view: the pronoun's rows, the 1-head model's then the N-head's
  int texture_side = kMaxTextureSide;  // long inputs: maps are pooled to this (set by the view drawing them)
  std::vector<DrawnHeatmap> drawn;     // cleared each frame by the shell, filled by the Heads and Compare views

  void release();  // while the GL context is alive
};

// Uploads what changed since the last frame (A, B and the Compare maps); call after app_update.
void gui_resources_refresh(const AppState& app, GuiResources& gui);

// The texture of head `head` of layer `layer` of trace A (0 when there is none).
unsigned gui_head_texture(const AppState& app, const GuiResources& gui, int layer, int head);
// The same under the measure the Heads and Model views show (the weights' texture for weights).
unsigned gui_shown_texture(const AppState& app, const GuiResources& gui, int layer, int head);

}  // namespace attnviz
