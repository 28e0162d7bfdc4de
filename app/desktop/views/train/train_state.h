// What the Train view owns (panel_train.cpp): the settings of the next run, the runners that train
// off the UI thread (one run the other views can follow, and a 1-head / N-head pair of coreference
// models) and the probe sentence's traces on their newest weights. Lives in AppState; headless (the
// view's GL textures are on the GUI side, in GuiResources). The actions on it are in train_actions.h.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "state/compute_worker.h"
#include "train/runner.h"

namespace attnviz {

struct AppState;

// The demos the Train view trains: a run of coreference or induction; the 1-head / N-head pair of
// coreference or gather (core/demos/gather_demo.h: "its" needs four words at once).
enum class DemoKind { coreference, induction, gather };
enum class TrainTab { run, compare };

// The knobs of one run. Choosing a demo puts back that demo's shipped defaults (train_defaults).
struct TrainSettings {
  int seed = 3;
  int n_heads = 4;
  int d_model = 64;
  int max_steps = 3000;
  int report_every = 10;  // steps between reports: the curves' resolution and the heatmaps' refresh
};
// The shipped demo's settings (train_actions.cpp).
TrainSettings train_defaults(DemoKind demo);

// The probe sentence on a runner's newest weights, traced by a worker of the view's own (never the
// UI thread): with the causal mask for the induction demo, and again whenever the sentence is
// edited, during training or after it.
struct TrainProbeRequest {
  uint64_t id = 0;
  std::shared_ptr<const Model> model;
  std::string text;
};

struct TrainProbe {
  ComputeWorker worker;
  uint64_t posted_id = 0;
  std::shared_ptr<const Model> posted_model;  // the newest request's weights, text and mask
  std::string posted_text;
  bool posted_causal = false;
  std::vector<TrainProbeRequest> in_flight;  // posted, not answered yet (oldest first)
  std::shared_ptr<const Model> model;  // the weights `trace` was computed on
  std::shared_ptr<const Trace> trace;
  std::string text;                    // the sentence `trace` is of
  std::string error;
  uint64_t version = 0;                // bumped whenever trace changes
};

struct TrainState {
  DemoKind demo = DemoKind::coreference;  // the demo the settings below are for
  TrainSettings settings;

  TrainRunner runner;        // the run whose model the other views follow (ModelSource::trained)
  uint64_t runner_seen = 0;  // the runner's version last installed as the app's model
  DemoKind run_demo = DemoKind::coreference;  // what the runner trains (the settings may change since)
  TrainSettings run_settings;
  TrainProbe probe;

  // 1 head vs N heads: two models of the pair's demo with the same d_model and seed, trained at once.
  // Gather by default: there N heads learn faster in 10 of 10 seeds; on coreference in about half.
  DemoKind pair_demo = DemoKind::gather;        // the next pair's (coreference or gather)
  TrainSettings pair_gather_settings = train_defaults(DemoKind::gather);  // the next gather pair's
  TrainRunner single, multi;
  DemoKind pair_run_demo = DemoKind::gather;    // the pair trained or training
  TrainSettings pair_settings;  // n_heads is the N of the N-head model
  bool pair_started = false;
  TrainProbe probe_single, probe_multi;
  uint64_t pair_maps_version = 0;  // bumped whenever either probe changes (the pair's textures)

  int probe_layer = -1;              // the layer whose heads the run's heatmaps show; -1: the last
  TrainTab tab = TrainTab::run;
  bool tab_request = false;          // select `tab` in the tab bar on the next frame
  std::string save_path = "trained_model";
  std::string message;               // the last save's result
  bool message_error = false;
  std::string error;                 // why the last start failed (invalid settings)
  bool script_wait = false;          // a script waits for training to end (`train wait`)

  // Back to how the view first opens. The runs, their models and probes are the person's work, not
  // the view's state: they stay (train_reset in train_actions.h forgets a run).
  void reset() {
    probe_layer = -1;
    tab = TrainTab::run;
    tab_request = false;
    message.clear();
    message_error = false;
    error.clear();
  }
};

}  // namespace attnviz
