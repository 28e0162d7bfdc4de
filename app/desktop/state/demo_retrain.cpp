// Lookups are cheap (a map, then at most two small files); only a miss trains. A trained model is
// written to the disk cache atomically (model_save), so a crash never leaves half a file there.
#include "state/demo_retrain.h"

#include <cstdlib>
#include <filesystem>

#include "asset_paths.h"
#include "io/model_file.h"
#include "io/model_open.h"
#include "state/app_state.h"
#include "state/model_source.h"

namespace attnviz {

namespace {

namespace fs = std::filesystem;

std::string memory_key(const CorefTrainOptions& a) { return coref_arch_key(a) + "_seed" + std::to_string(a.seed); }

void install(AppState& app, std::shared_ptr<const Model> model, const CorefTrainOptions& arch,
             std::optional<RetrainOutcome> outcome) {
  app.retrain.memory[memory_key(arch)] = model;
  app.model = std::move(model);
  app.source = ModelSource::demo_coref;
  app.model_error.clear();
  app.retrain.outcome = std::move(outcome);
  app.dirty = true;
}

void poll_twin(AppState& app);  // below demo_single_head, which starts the run it polls

// A run no longer wanted, let go without waiting for it: paused, it holds at its next report, and
// the next start (or the app's exit) stops it for good. reset() would join the thread, and a run
// just started reaches its first report only after generating its data and a few steps: the frame
// that cancelled it froze for 0.3 s, up to 8 s under the sanitizer (found by the soak test).
void abandon(DemoRetrain& r) {
  r.runner.pause();
  r.training = false;
}

// Starts training `arch` on `runner`. Reports every few steps: the progress bar moves, and a newer
// change stops the run within a few milliseconds (the runner stops at a report) instead of
// blocking a frame until the next evaluation.
void start_training(TrainRunner& runner, const CorefTrainOptions& arch) {
  CorefTrainOptions job = arch;
  job.report_every = 4;
  runner.start([job](const TrainCallback& cb) { return coref_train(job, cb); });
}

// A finished run as a shared model, written to the disk cache (atomically) when it reached the
// target, so that coming back to the architecture is instant, on this launch and the next.
std::shared_ptr<const Model> finished_model(const TrainSnapshot& snap, const CorefTrainOptions& arch, bool reached) {
  auto model = std::make_shared<Model>(*snap.model);
  model->source = std::string(kTrainedSourcePrefix) + coref_arch_key(arch);
  std::error_code ec;
  if (reached) fs::create_directories(demo_cache_dir(arch), ec);
  if (reached && !ec) (void)model_save((fs::path(demo_cache_dir(arch)) / "model.safetensors").string(), *model);
  return model;
}

float last_accuracy(const TrainSnapshot& snap) { return snap.reports.empty() ? 0.0f : snap.reports.back().heldout_accuracy; }

std::shared_ptr<const Model> open_shared(const std::string& dir, const std::string& label) {
  if (!fs::exists(fs::path(dir) / "model.safetensors")) return nullptr;
  auto m = model_open(dir);
  if (!m) return nullptr;
  m->source = label;
  return std::make_shared<const Model>(std::move(*m));
}

}  // namespace

std::string demo_cache_dir(const CorefTrainOptions& a) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const fs::path base = xdg && *xdg ? fs::path(xdg) : home && *home ? fs::path(home) / ".cache" : fs::temp_directory_path();
  // Per trainer revision: a model an older trainer made for this key is not this trainer's.
  return (base / "attnviz" / "coref" / ("trainer-" + std::to_string(kCorefTrainerRevision)) / memory_key(a)).string();
}

std::shared_ptr<const Model> demo_retrain_find(AppState& app, const CorefTrainOptions& arch) {
  DemoRetrain& r = app.retrain;
  if (auto it = r.memory.find(memory_key(arch)); it != r.memory.end()) return it->second;
  std::shared_ptr<const Model> found;
  if (coref_arch_in_grid(arch)) {
    const CorefTrainOptions shipped;
    const bool the_demo = arch.n_heads == shipped.n_heads && arch.d_model == shipped.d_model && arch.seed == shipped.seed;
    const std::string name = the_demo ? "demo:coref" : "demo:coref/" + coref_arch_key(arch);
    auto shipped_dir = demo_model_find(app.assets, name);  // an error only when the assets lack it: then train
    if (shipped_dir)
      found = open_shared(shipped_dir->dir, the_demo ? "assets/demo_coref" : "assets/demo_coref_grid/" + coref_arch_key(arch));
  }
  if (!found) found = open_shared(demo_cache_dir(arch), std::string(kCacheSourcePrefix) + coref_arch_key(arch));
  if (found) r.memory[memory_key(arch)] = found;
  return found;
}

void demo_retrain_request(AppState& app, const CorefTrainOptions& arch) {
  DemoRetrain& r = app.retrain;
  r.arch = arch;
  if (auto found = demo_retrain_find(app, arch)) {
    if (r.training) abandon(r);
    install(app, found, arch, std::nullopt);
    return;
  }
  // Train it: the views keep showing the previous model meanwhile.
  r.running = arch;
  r.training = true;
  r.outcome.reset();
  start_training(r.runner, arch);
}

void demo_retrain_poll(AppState& app) {
  DemoRetrain& r = app.retrain;
  poll_twin(app);
  if (!r.training) return;
  if (app.source != ModelSource::demo_coref) {  // the person moved to another model: the run is not wanted
    abandon(r);
    return;
  }
  const TrainSnapshot snap = r.runner.snapshot();
  RetrainOutcome outcome;
  outcome.arch = coref_arch_key(r.running);
  if (!snap.error.empty()) {
    r.training = false;
    outcome.error = snap.error;
    r.outcome = std::move(outcome);
    return;
  }
  if (!snap.finished || !snap.model) return;
  r.training = false;
  outcome.accuracy = last_accuracy(snap);
  outcome.target = r.running.target_accuracy;
  outcome.steps = snap.reports.empty() ? 0 : snap.reports.back().step;
  outcome.seconds = snap.reports.empty() ? 0.0 : snap.reports.back().seconds;
  auto model = finished_model(snap, r.running, outcome.reached());
  install(app, std::move(model), r.running, std::move(outcome));
}

std::string retrain_outcome_text(const RetrainOutcome& o, Lang lang) {
  if (!o.error.empty()) return tr_format(lang, Str::rt_failed, o.arch.c_str(), o.error.c_str());
  if (o.reached())
    return tr_format(lang, Str::rt_reached, o.arch.c_str(), 100.0 * o.accuracy, o.steps, o.seconds);
  return tr_format(lang, Str::rt_fell_short, o.arch.c_str(), 100.0 * o.target, o.steps, 100.0 * o.accuracy);
}

std::shared_ptr<const Model> demo_single_head(AppState& app) {
  DemoRetrain& r = app.retrain;
  CorefTrainOptions one = r.arch;
  one.n_heads = 1;
  if (auto found = demo_retrain_find(app, one)) return found;
  if (r.twin_training && memory_key(r.twin) == memory_key(one)) return nullptr;  // on its way
  r.twin = one;
  r.twin_training = true;
  start_training(r.twin_runner, one);
  return nullptr;
}

namespace {
// The twin's run: cached like any trained model (when it reached the target), then B is asked for.
void poll_twin(AppState& app) {
  DemoRetrain& r = app.retrain;
  if (!r.twin_training) return;
  const TrainSnapshot snap = r.twin_runner.snapshot();
  if (!snap.error.empty() || (snap.finished && !snap.model)) {
    r.twin_training = false;
    app.error_b = snap.error.empty() ? "the 1-head model did not train" : snap.error;
    return;
  }
  if (!snap.finished) return;
  r.twin_training = false;
  r.memory[memory_key(r.twin)] = finished_model(snap, r.twin, last_accuracy(snap) >= r.twin.target_accuracy);
  app.trace_b.reset();  // Compare asks for B again, now with the trained 1-head model
  app.error_b.clear();
  app.dirty = true;
}
}  // namespace

float demo_retrain_progress(const AppState& app) {
  const DemoRetrain& r = app.retrain;
  if (!r.training) return 0.0f;
  const TrainSnapshot snap = r.runner.snapshot();
  if (snap.reports.empty()) return 0.0f;
  return std::min(1.0f, static_cast<float>(snap.reports.back().step) / static_cast<float>(std::max(1, r.running.max_steps)));
}

}  // namespace attnviz
