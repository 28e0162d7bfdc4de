// Everything the app knows, owned by main() — no globals. Panels edit the "what the user asked
// for" part and set `dirty`; app_update() is the one place that sends work to the engine and
// installs results. Panels only read the Trace; they never compute attention.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/compute_worker.h"
#include "app/heatmap_textures.h"
#include "app/strings.h"
#include "core/colormap.h"
#include "core/config.h"
#include "core/presets.h"
#include "core/trace.h"

namespace attnviz {

struct AppState {
  // What the user asked for.
  std::string sentence = "The animal didn't cross the street because it was too tired.";
  std::string source_sentence = "The animal didn't cross the street because it was too tired.";
  bool cross = false;
  ModelConfig config;  // the paper's base model: C = 512, 8 heads, post-norm, sinusoidal
  uint64_t seed = 1;
  MaskSpec mask;

  // What the user is looking at.
  int layer = 0;
  int zoom_head = -1;       // >= 0: one head at full size
  int query = -1;           // highlighted query row in every head, -1: none
  Colormap cmap = Colormap::viridis;
  bool annotate = true;
  Lang lang = Lang::en;

  // Derived state, written only by app_update().
  std::shared_ptr<const Trace> trace;  // the newest successful result
  uint64_t trace_version = 0;          // bumped each time a new trace is installed
  std::string error;                   // why the newest request failed (the previous trace stays)
  double compute_seconds = 0;
  bool dirty = true;                   // an edit is waiting to be computed
  uint64_t posted_id = 0;              // newest request sent to the worker
  uint64_t shown_id = 0;               // request the current trace answers
  std::vector<Preset> presets;
  std::string presets_error;

  ComputeWorker worker;
  HeatmapTextures textures;
};

// Sends the edit to the worker when dirty and installs a finished result. Called once per frame
// before the panels draw.
void app_update(AppState& app);

// True while the worker has not answered the newest edit.
bool app_computing(const AppState& app);

}  // namespace attnviz
