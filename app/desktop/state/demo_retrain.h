// The coreference demo's architecture is live: a change in the Model panel finds a model trained
// for it — in memory, in the shipped grid (assets/demo_coref_grid/heads{NH}_dmodel{C}), or in the
// disk cache ($XDG_CACHE_HOME/attnviz/coref/trainer-N/, N the trainer's revision) — or trains one off the UI thread.
// The views keep the previous model until the new one is ready; a newer change cancels an older run. Headless.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "demos/coref_demo.h"
#include "shell/strings.h"
#include "train/runner.h"

namespace attnviz {

struct AppState;

// Model::source of a model this app trained, and of one it found in its disk cache: the prefix,
// then coref_arch_key (model_source_text translates both).
inline constexpr std::string_view kTrainedSourcePrefix = "trained: ";
inline constexpr std::string_view kCacheSourcePrefix = "cache: ";

// How the last run ended; retrain_outcome_text says it in the UI's language.
struct RetrainOutcome {
  std::string arch;       // coref_arch_key of the architecture trained
  float accuracy = 0;     // held-out, 0..1, of the last evaluation
  float target = 0;       // the run's target accuracy
  int steps = 0;
  double seconds = 0;
  std::string error;      // the run failed: why (the numbers above are then unset)
  bool reached() const { return error.empty() && accuracy >= target; }
};
std::string retrain_outcome_text(const RetrainOutcome& outcome, Lang lang);

struct DemoRetrain {
  CorefTrainOptions arch;   // what the Model panel shows for the coreference demo
  CorefTrainOptions running;  // the architecture being trained (when runner runs)
  bool training = false;
  TrainRunner runner;
  std::map<std::string, std::shared_ptr<const Model>> memory;  // coref_arch_key + seed -> trained model
  std::optional<RetrainOutcome> outcome;  // of the run that made the shown model (none: it was found)
  // Compare's 1-head twin of the shown architecture, trained in the background when neither the
  // grid nor the cache has it; the views keep showing the N-head model meanwhile.
  TrainRunner twin_runner;
  CorefTrainOptions twin;
  bool twin_training = false;
};

// The folder of the disk cache for an architecture and seed.
std::string demo_cache_dir(const CorefTrainOptions& arch);

// The demo trained with `arch` when it is in memory, shipped or cached (never trains); null otherwise.
std::shared_ptr<const Model> demo_retrain_find(AppState& app, const CorefTrainOptions& arch);

// Shows the demo trained with `arch`: at once when it is cached or shipped, else after training.
void demo_retrain_request(AppState& app, const CorefTrainOptions& arch);
// Compare's 1-head model of the shown architecture: found at once, or null while it trains (the
// training starts here when needed; demo_retrain_poll caches it and asks for B again).
std::shared_ptr<const Model> demo_single_head(AppState& app);

// Once per frame (app_update): installs a finished run, caches it, says how it went.
void demo_retrain_poll(AppState& app);
// Training progress 0..1 while a run is going (steps done / most steps).
float demo_retrain_progress(const AppState& app);

}  // namespace attnviz
