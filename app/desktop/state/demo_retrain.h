// The trained demos' architecture is live: a change in the Model panel finds the demo (coreference
// or induction) trained for it — in memory, shipped (the coreference grid,
// assets/demo_coref_grid/heads{NH}_dmodel{C}, and each demo's own model), or in the disk cache
// ($XDG_CACHE_HOME/attnviz/{coref,induction}/trainer-N/, N the trainers' revision) — or trains one
// off the UI thread. The views keep the previous model until the new one is ready; a newer change
// cancels an older run. Headless.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "demos/demo_arch.h"
#include "shell/strings.h"
#include "state/model_source.h"
#include "train/runner.h"

namespace attnviz {

struct AppState;

// Model::source of a model this app trained, and of one it found in its disk cache: the prefix,
// then demo_job_label (model_source_text translates both).
inline constexpr std::string_view kTrainedSourcePrefix = "trained: ";
inline constexpr std::string_view kCacheSourcePrefix = "cache: ";

// A trained demo and the architecture (and seed) to train it with.
struct DemoJob {
  ModelSource demo = ModelSource::demo_coref;  // demo_coref or demo_induction
  DemoArch arch;
};

// Whether `source` is a demo whose architecture is live.
bool demo_is_live(ModelSource source);
// The demo's shipped architecture and seed.
DemoArch demo_shipped_arch(ModelSource demo);
// The architecture's folder-safe key relative to the demo's shipped one ("heads4_dmodel32_layers3").
std::string demo_job_key(const DemoJob& job);
// What the UI calls it: the key, after "induction " for the induction demo (the coreference demo is
// the one people meet first, and its keys stand alone).
std::string demo_job_label(const DemoJob& job);

// How the last run ended; retrain_outcome_text says it in the UI's language.
struct RetrainOutcome {
  ModelSource demo = ModelSource::demo_coref;
  std::string arch;       // demo_job_label of the architecture trained
  float accuracy = 0;     // held-out, 0..1, of the last evaluation
  float target = 0;       // the run's target accuracy
  bool target_met = false;  // the run stopped because its target was met (for induction: the head formed too)
  int steps = 0;
  double seconds = 0;
  std::string error;      // the run failed: why (the numbers above are then unset)
  bool too_few_layers = false;  // the induction demo with one layer: refused before training
  // The induction demo short of its target: its best head on the repeat (InductionScores, from 0),
  // what that head puts on the token to copy and its detector score, and the run's thresholds.
  int head_layer = -1, head = -1;
  float head_on_repeat = 0, head_general = 0, head_target = 0, head_general_target = 0;
  bool reached() const { return error.empty() && !too_few_layers && target_met; }
};
std::string retrain_outcome_text(const RetrainOutcome& outcome, Lang lang);

struct DemoRetrain {
  DemoArch coref = demo_shipped_arch(ModelSource::demo_coref);          // what the Model panel shows
  DemoArch induction = demo_shipped_arch(ModelSource::demo_induction);  // for each demo
  DemoJob running;                                                      // what is being trained (when runner runs)
  bool training = false;
  DemoArch arch_in_view;  // the architecture of the model shown while `running` trains: the panel's again if it fails
  TrainRunner runner;
  std::map<std::string, std::shared_ptr<const Model>> memory;  // demo, key and seed -> trained model
  std::optional<RetrainOutcome> outcome;  // of the run that made the shown model (none: it was found)
  std::shared_ptr<const RetrainOutcome> ending;  // what demo_run_ending found for `running` (read once finished)
  // Compare's 1-head twin of the shown architecture, trained in the background when nothing shipped
  // or cached has it; the views keep showing the N-head model meanwhile.
  TrainRunner twin_runner;
  DemoJob twin;
  bool twin_training = false;
};

// The architecture the Model panel shows for a live demo (coreference or induction).
DemoArch& demo_shown_arch(DemoRetrain& retrain, ModelSource demo);
const DemoArch& demo_shown_arch(const DemoRetrain& retrain, ModelSource demo);

// The folder of the disk cache for a demo, architecture and seed.
std::string demo_cache_dir(const DemoJob& job);
// Removes what older trainers left in the disk cache (their trainer-N folders, N below
// kDemoTrainerRevision, and models kept before the cache had revisions), which this build never
// reads; a newer build's folders stay. Returns how many folders went. The app calls it at launch.
int demo_cache_prune();

// The demo trained with the job's architecture when it is in memory, shipped or cached (never
// trains); null otherwise.
std::shared_ptr<const Model> demo_retrain_find(AppState& app, const DemoJob& job);

// Shows the demo trained with the job's architecture: at once when it is cached or shipped, else
// after training.
void demo_retrain_request(AppState& app, const DemoJob& job);
// Compare's 1-head model of the shown demo's architecture: found at once, or null while it trains
// (the training starts here when needed; demo_retrain_poll caches it and asks for B again).
std::shared_ptr<const Model> demo_single_head(AppState& app);

// A run over (not stopped), on its training thread, so that the frame installing it only swaps
// pointers: names the model ("trained: <label>"), writes it to the disk cache when it met its
// target (model_save: 20-30 ms at d_model 128 × 4 layers), and for an induction run short of its
// target puts its best head on the repeat into `ending` (16 short traces: 10-40 ms there).
void demo_run_ending(const DemoJob& job, TrainRun& run, RetrainOutcome& ending);

// Once per frame (app_update): installs a finished run, caches it, says how it went.
void demo_retrain_poll(AppState& app);
// Training progress 0..1 while a run is going (steps done / most steps).
float demo_retrain_progress(const AppState& app);

}  // namespace attnviz
