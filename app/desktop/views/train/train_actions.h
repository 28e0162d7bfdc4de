// The Train view's actions, shared by its buttons and the script verbs (`train start`, ...): start
// a run or the 1-head / N-head pair, save the model, show it in every view, keep the probe traces
// in step with the runners, and tell a script when training has settled. No drawing here.
#pragma once
#include <string>

#include "base/result.h"
#include "demos/coref_demo.h"
#include "demos/induction_demo.h"
#include "state/app_state.h"

namespace attnviz {

// The held-out accuracy each demo's training stops at (the accuracy chart's dashed line), read from
// the trainers' own defaults so that the chart cannot state another target than the run's.
inline const float kCorefTarget = CorefTrainOptions{}.target_accuracy;
inline const float kInductionTarget = InductionTrainOptions{}.target_accuracy;

// The shipped demos' settings (coreference: seed 78, 4 heads, d_model 32; induction: seed 1,
// 2 heads, d_model 32), both 3000 steps at most, reporting every 10 / 5 steps.
TrainSettings train_defaults(DemoKind demo);
void train_choose_demo(TrainState& tv, DemoKind demo);  // the demo and its defaults

// Starts the run from scratch with tv.settings and switches every view to its model (the fresh
// weights at once, then each report's). Errors for invalid settings; nothing changes then.
Status train_start(AppState& app);
void train_reset(AppState& app);  // stops the run and forgets it; the views keep the last model

// Two coreference runs at tv.settings' d_model and seed: 1 head, and tv.settings.n_heads heads.
Status train_pair_start(AppState& app);
// The settings the next pair trains with (its N is n_heads): the gather demo's own, or for
// coreference the Run tab's when it is set to coreference.
TrainSettings train_pair_base(const TrainState& tv);

// How the pair went: the step at which each model first reached its demo's target (-1: not yet or
// never), its last held-out accuracy, and whether the N-head model is ahead (reached it at an earlier
// step, or alone; or, neither having reached it, is more accurate), as gather_n_heads_ahead says.
struct TrainPairOutcome {
  bool ended = false;  // both runs have stopped
  int one_steps = -1, many_steps = -1;
  float one_accuracy = 0, many_accuracy = 0;
  bool n_heads_ahead = false;
  std::string summary;  // "1 head: 99.2% held-out, target at step 525 · 4 heads: ..." (tests, scripts)
};
TrainPairOutcome train_pair_outcome(const AppState& app);
void train_pair_stop(AppState& app);
void train_pair_reset(AppState& app);

// The run's newest model in every view (ModelSource::trained), following its training.
Status train_use_in_views(AppState& app);

// Writes the run's newest model: PATH ending in .safetensors is the file; any other PATH is a
// folder (created if needed) that receives model.safetensors — what the Model panel's File… loads.
// Returns the file written.
Result<std::string> train_save(AppState& app, const std::string& path);

// The sentence the 1-head / N-head pair is probed with: the sentence box when the pair's demo can
// read it (coreference: "it" and two known candidates; gather: "its" and its four words), else that
// demo's own (the famous "animal … tired" sentence; seed 003's "The law will never be perfect, …").
std::string train_pair_text(const AppState& app);

// Asks the view's workers for the probe sentence on each runner's newest weights when either
// changed, and installs finished traces. Called every frame the view is shown.
void train_follow_probes(AppState& app);

// For scripts: false while a `train wait` waits for the runners to finish and, when the Train view
// is shown, for its probe traces to catch up with the final weights.
bool train_script_ready(AppState& app);

}  // namespace attnviz
