// Each entry mirrors one condition the app's own code waits on (app_computing, the importance
// runner, the Train view's runners) or one a view draws as "computing…" (panels.cpp, the Compare
// and Coreference views); a name says which, so a stuck one is found without a debugger.
#include "state/app_busy.h"

namespace attnviz {

std::vector<std::string> app_busy(const AppState& app) {
  std::vector<std::string> busy;
  if (app.dirty) busy.push_back("an edit not yet sent to the engine");
  if (app.shown_id != app.posted_id || app.worker.busy())
    busy.push_back("the compute worker (request " + std::to_string(app.posted_id) + ", shown " +
                   std::to_string(app.shown_id) + ")");
  if (app.model_loader.busy() || app.model_loader.has_result())
    busy.push_back("a model load (" + app.model_loader.path() + ")");
  if (app.retrain.training) busy.push_back("a demo retraining (" + demo_job_label(app.retrain.running) + ")");
  if (app.retrain.twin_training)
    busy.push_back("a demo's 1-head twin training (" + demo_job_label(app.retrain.twin) + ")");
  if (app.importance.busy()) busy.push_back("the importance grid");
  if (app.importance_set.job.busy()) busy.push_back("the importance grid over a set of sentences");
  if (app.lens.job.busy()) busy.push_back("the logit lens and attribution");
  if (app.stats.scan_job.busy()) busy.push_back("the Statistics view's scan of every head's map");
  if (app.flow.job.busy()) busy.push_back("the flow graph");
  if (app.patching.job.busy()) busy.push_back("patching A into B");
  if (app.generation.remaining > 0)
    busy.push_back("generation (" + std::to_string(app.generation.remaining) + " tokens due)");
  const TrainState& tv = app.train;
  if (const TrainSnapshot s = tv.runner.snapshot(); s.running)
    busy.push_back(s.paused ? "the Train view's run (paused)" : "the Train view's run");
  if (tv.single.snapshot().running || tv.multi.snapshot().running)
    busy.push_back("the Train view's 1-head / N-head pair");
  if (tv.probe.worker.busy() || tv.probe_single.worker.busy() || tv.probe_multi.worker.busy())
    busy.push_back("the Train view's probe traces");
  if (app.translate.curve_job.busy()) busy.push_back("the Translation view's accuracy by sentence length");
  if (app.translate.train_job.busy()) busy.push_back("the Translation view's retraining");
  // What a view would show as "computing…" with nothing left to answer it.
  if (!app.trace && app.error.empty()) busy.push_back("no trace and no error (every view says computing…)");
  const bool attention_hint = app.source == ModelSource::attention && app.view == View::compare;  // the view explains
  if (app.trace && app_needs_b(app) && !app.trace_b && app.error_b.empty() && !attention_hint)
    busy.push_back(std::string("trace B for the ") + view_id(app.view) + " view (it says computing…)");
  // The Coreference view: a sentence it can read whose trace it cannot (coref_explain_unfit).
  const CorefState& co = app.coref;
  const CorefExample& e = co.a.example;
  if (app.view == View::coref && app.trace && !app.cross && app.error.empty() && co.cached &&
      co.cache_version == app.trace_version && co.a.text == app.sentence && !co.a.fits && !e.tokens.empty() &&
      e.pronoun >= 0 && e.candidate_a >= 0 && e.candidate_b >= 0)
    busy.push_back("the Coreference view's sentence A (it says computing…; " +
                   (co.a.why ? no_answer_english(*co.a.why) : std::string()) + ")");
  return busy;
}

std::string app_busy_text(const AppState& app) {
  std::string text;
  for (const std::string& b : app_busy(app)) text += (text.empty() ? "" : ", ") + b;
  return text.empty() ? "idle" : text;
}

}  // namespace attnviz
