// Lookups are cheap (a map, then at most two small files); only a miss trains. A trained model is
// written to the disk cache atomically (model_save), so a crash never leaves half a file there.
#include "state/demo_retrain.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <vector>

#include "asset_paths.h"
#include "base/thread_priority.h"
#include "demos/coref_demo.h"
#include "demos/induction_demo.h"
#include "io/model_file.h"
#include "io/model_open.h"
#include "state/app_state.h"

namespace attnviz {

namespace {

namespace fs = std::filesystem;

const char* demo_folder(ModelSource demo) { return demo == ModelSource::demo_induction ? "induction" : "coref"; }

std::string memory_key(const DemoJob& j) {
  return std::string(demo_folder(j.demo)) + "/" + demo_job_key(j) + "_seed" + std::to_string(j.arch.seed);
}

void install(AppState& app, std::shared_ptr<const Model> model, const DemoJob& job,
             std::optional<RetrainOutcome> outcome) {
  app.retrain.memory[memory_key(job)] = model;
  app.model = std::move(model);
  app.source = job.demo;
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

// Reports every few steps: the progress bar moves, and a newer change stops the run within a few
// milliseconds (the runner stops at a report) instead of blocking a frame until the next evaluation.
constexpr int kReportEvery = 4;

int max_steps(const DemoJob& j) {
  return j.demo == ModelSource::demo_induction ? induction_options(j.arch).max_steps : coref_options(j.arch).max_steps;
}

float target_accuracy(const DemoJob& j) {
  return j.demo == ModelSource::demo_induction ? induction_options(j.arch).target_accuracy
                                               : coref_options(j.arch).target_accuracy;
}

// Why an induction run fell short, in numbers: its best head on the repeat (16 short traces).
void describe_best_head(const Model& model, const DemoJob& j, RetrainOutcome& outcome) {
  const InductionTrainOptions o = induction_options(j.arch);
  auto s = induction_scores(model, o.seed, o.length, o.segment_length);
  if (!s) return;  // the message then gives the answers only
  outcome.head_layer = s->best_on_repeat_layer;
  outcome.head = s->best_on_repeat_head;
  outcome.head_on_repeat = s->best_on_repeat;
  outcome.head_general = s->best_on_repeat_general;
  outcome.head_target = o.target;
  outcome.head_general_target = o.target_general;
}

bool target_met(const TrainSnapshot& snap) { return !snap.reports.empty() && snap.reports.back().target_reached; }

}  // namespace

void demo_run_ending(const DemoJob& j, TrainRun& run, RetrainOutcome& ending) {
  run.model.source = std::string(kTrainedSourcePrefix) + demo_job_label(j);
  const bool met = !run.history.empty() && run.history.back().target_reached;
  if (met) {
    const fs::path dir = demo_cache_dir(j);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) (void)model_save((dir / "model.safetensors").string(), run.model);
  } else if (j.demo == ModelSource::demo_induction) {
    describe_best_head(run.model, j, ending);
  }
}

namespace {

// The calling thread (and the shard threads it starts, which inherit it) gives way to the UI
// thread: Linux's nice 10 for this thread alone. Training takes both cores; at equal priority a
// frame waited behind it.
void yield_to_the_ui() { (void)this_thread_set_nice(10); }

// Starts training the job's demo on `runner`; demo_run_ending then runs on the training thread
// before the runner says the run finished, writing into the returned outcome.
std::shared_ptr<const RetrainOutcome> start_training(TrainRunner& runner, const DemoJob& j) {
  auto ending = std::make_shared<RetrainOutcome>();
  runner.start([j, ending](const TrainCallback& cb) {
    yield_to_the_ui();
    auto train = [&]() -> Result<TrainRun> {
      if (j.demo == ModelSource::demo_induction) {
        InductionTrainOptions o = induction_options(j.arch);
        o.report_every = kReportEvery;
        return induction_train(o, cb);
      }
      CorefTrainOptions o = coref_options(j.arch);
      o.report_every = kReportEvery;
      return coref_train(o, cb);
    };
    Result<TrainRun> run = train();
    if (run && !run->stopped) demo_run_ending(j, *run, *ending);
    return run;
  });
  return ending;
}

float last_accuracy(const TrainSnapshot& snap) { return snap.reports.empty() ? 0.0f : snap.reports.back().heldout_accuracy; }

std::shared_ptr<const Model> open_shared(const std::string& dir, const std::string& label) {
  if (!fs::exists(fs::path(dir) / "model.safetensors")) return nullptr;
  auto m = model_open(dir);
  if (!m) return nullptr;
  m->source = label;
  return std::make_shared<const Model>(std::move(*m));
}

// The shipped model for the job, if any: each demo's own (its architecture and seed), and the
// coreference grid's (its other head counts and widths).
std::shared_ptr<const Model> find_shipped(AppState& app, const DemoJob& j) {
  const bool the_demo = j.arch == demo_shipped_arch(j.demo);
  if (j.demo == ModelSource::demo_induction) {
    if (!the_demo) return nullptr;
    auto dir = demo_model_find(app.assets, "demo:induction");
    return dir ? open_shared(dir->dir, "assets/demo_induction") : nullptr;
  }
  const CorefTrainOptions o = coref_options(j.arch);
  if (!coref_arch_in_grid(o)) return nullptr;
  const std::string name = the_demo ? "demo:coref" : "demo:coref/" + coref_arch_key(o);
  auto dir = demo_model_find(app.assets, name);  // an error only when the assets lack it: then train
  return dir ? open_shared(dir->dir, the_demo ? "assets/demo_coref" : "assets/demo_coref_grid/" + coref_arch_key(o))
             : nullptr;
}

}  // namespace

bool demo_is_live(ModelSource s) { return s == ModelSource::demo_coref || s == ModelSource::demo_induction; }

DemoArch demo_shipped_arch(ModelSource demo) {
  return demo == ModelSource::demo_induction ? induction_arch(InductionTrainOptions{})
                                             : coref_arch(CorefTrainOptions{});
}

std::string demo_job_key(const DemoJob& j) { return demo_arch_key(j.arch, demo_shipped_arch(j.demo)); }

std::string demo_job_label(const DemoJob& j) {
  return (j.demo == ModelSource::demo_induction ? "induction " : "") + demo_job_key(j);
}

DemoArch& demo_shown_arch(DemoRetrain& r, ModelSource demo) {
  return demo == ModelSource::demo_induction ? r.induction : r.coref;
}

const DemoArch& demo_shown_arch(const DemoRetrain& r, ModelSource demo) {
  return demo == ModelSource::demo_induction ? r.induction : r.coref;
}

namespace {
// <XDG cache>/attnviz, or ~/.cache/attnviz, or the temporary folder's.
fs::path cache_root() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const fs::path base = xdg && *xdg ? fs::path(xdg) : home && *home ? fs::path(home) / ".cache" : fs::temp_directory_path();
  return base / "attnviz";
}

// The revision of a "trainer-N" folder name; -1 for any other name.
int trainer_revision(std::string_view name) {
  constexpr std::string_view prefix = "trainer-";
  if (!name.starts_with(prefix)) return -1;
  name.remove_prefix(prefix.size());
  int n = -1;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  return ec == std::errc{} && end == name.data() + name.size() && n >= 0 ? n : -1;
}
}  // namespace

std::string demo_cache_dir(const DemoJob& j) {
  // Per trainer revision: a model an older trainer made for this key is not this trainer's.
  return (cache_root() / demo_folder(j.demo) / ("trainer-" + std::to_string(kDemoTrainerRevision)) /
          (demo_job_key(j) + "_seed" + std::to_string(j.arch.seed)))
      .string();
}

int demo_cache_prune() {
  int removed = 0;
  for (ModelSource demo : {ModelSource::demo_coref, ModelSource::demo_induction}) {
    const fs::path folder = cache_root() / demo_folder(demo);
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    std::vector<fs::path> old;
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
      const std::string name = e.path().filename().string();
      const int revision = trainer_revision(name);
      // An older trainer's folder, or a model kept before the cache had revisions (<key>_seed<N>).
      const bool before_revisions =
          revision < 0 && name.rfind("heads", 0) == 0 && name.find("_seed") != std::string::npos;
      if ((revision >= 0 && revision < kDemoTrainerRevision) || before_revisions) old.push_back(e.path());
    }
    for (const fs::path& p : old) {
      fs::remove_all(p, ec);
      if (!ec) ++removed;
    }
  }
  return removed;
}

std::shared_ptr<const Model> demo_retrain_find(AppState& app, const DemoJob& j) {
  DemoRetrain& r = app.retrain;
  if (auto it = r.memory.find(memory_key(j)); it != r.memory.end()) return it->second;
  std::shared_ptr<const Model> found = find_shipped(app, j);
  if (!found) found = open_shared(demo_cache_dir(j), std::string(kCacheSourcePrefix) + demo_job_label(j));
  if (found) r.memory[memory_key(j)] = found;
  return found;
}

void demo_retrain_request(AppState& app, const DemoJob& j) {
  DemoRetrain& r = app.retrain;
  if (!r.training) r.arch_in_view = demo_shown_arch(r, j.demo);
  if (j.demo == ModelSource::demo_induction && j.arch.n_layers < 2) {
    // An induction head reads what a head in an earlier layer wrote: said at once, in the UI's
    // language, and the model in view stays (as does a run already going for another architecture).
    r.outcome = RetrainOutcome{};
    r.outcome->demo = j.demo;
    r.outcome->arch = demo_job_label(j);
    r.outcome->too_few_layers = true;
    return;  // the panel keeps showing the architecture in view (or the one training)
  }
  demo_shown_arch(r, j.demo) = j.arch;
  if (auto found = demo_retrain_find(app, j)) {
    if (r.training) abandon(r);
    install(app, found, j, std::nullopt);
    return;
  }
  // Train it: the views keep showing the previous model meanwhile.
  r.running = j;
  r.training = true;
  r.outcome.reset();
  r.ending = start_training(r.runner, j);
}

void demo_retrain_poll(AppState& app) {
  DemoRetrain& r = app.retrain;
  poll_twin(app);
  if (!r.training) return;
  if (app.source != r.running.demo) {  // the person moved to another model: the run is not wanted
    abandon(r);
    return;
  }
  const TrainSnapshot snap = r.runner.snapshot();
  RetrainOutcome outcome = r.ending && snap.finished ? *r.ending : RetrainOutcome{};  // its best head, if found
  outcome.demo = r.running.demo;
  outcome.arch = demo_job_label(r.running);
  if (!snap.error.empty()) {
    r.training = false;
    outcome.error = snap.error;
    r.outcome = std::move(outcome);
    demo_shown_arch(r, r.running.demo) = r.arch_in_view;  // the panel shows the model in view again
    return;
  }
  if (!snap.finished || !snap.model) return;
  r.training = false;
  outcome.accuracy = last_accuracy(snap);
  outcome.target = target_accuracy(r.running);
  outcome.target_met = target_met(snap);
  outcome.steps = snap.reports.empty() ? 0 : snap.reports.back().step;
  outcome.seconds = snap.reports.empty() ? 0.0 : snap.reports.back().seconds;
  install(app, snap.model, r.running, std::move(outcome));  // named and cached by demo_run_ending
}

std::string retrain_outcome_text(const RetrainOutcome& o, Lang lang) {
  if (!o.error.empty()) return tr_format(lang, Str::rt_failed, o.arch.c_str(), o.error.c_str());
  if (o.too_few_layers) return tr_format(lang, Str::rt_induction_two_layers, o.arch.c_str());
  if (o.reached())
    return tr_format(lang, Str::rt_reached, o.arch.c_str(), 100.0 * o.accuracy, o.steps, o.seconds);
  if (o.demo == ModelSource::demo_induction && o.head_layer >= 0) {  // what fell short, with its numbers
    const int layer = o.head_layer + 1, head = o.head + 1;           // as the views count them
    if (o.head_on_repeat < o.head_target)
      return tr_format(lang, Str::rt_induction_copy_short, o.arch.c_str(), o.steps, layer, head, o.head_on_repeat,
                       o.head_target, 100.0 * o.accuracy);
    if (o.accuracy < o.target)
      return tr_format(lang, Str::rt_induction_answers_short, o.arch.c_str(), layer, head, o.head_on_repeat, o.steps,
                       100.0 * o.accuracy, 100.0 * o.target);
    return tr_format(lang, Str::rt_induction_head_narrow, o.arch.c_str(), layer, head, o.head_on_repeat, o.steps,
                     o.head_general, o.head_general_target);
  }
  if (o.demo == ModelSource::demo_induction)
    return tr_format(lang, Str::rt_no_induction_head, o.arch.c_str(), o.steps, 100.0 * o.accuracy);
  return tr_format(lang, Str::rt_fell_short, o.arch.c_str(), 100.0 * o.target, o.steps, 100.0 * o.accuracy);
}

std::shared_ptr<const Model> demo_single_head(AppState& app) {
  DemoRetrain& r = app.retrain;
  DemoJob one{app.source, demo_shown_arch(r, app.source)};
  one.arch.n_heads = 1;
  if (auto found = demo_retrain_find(app, one)) return found;
  if (r.twin_training && memory_key(r.twin) == memory_key(one)) return nullptr;  // on its way
  r.twin = one;
  r.twin_training = true;
  (void)start_training(r.twin_runner, one);  // its ending only names and caches it
  return nullptr;
}

namespace {
// The twin's run: cached like any trained model (when it met its target), then B is asked for.
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
  r.memory[memory_key(r.twin)] = snap.model;  // named and cached by demo_run_ending
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
  return std::min(1.0f,
                  static_cast<float>(snap.reports.back().step) / static_cast<float>(std::max(1, max_steps(r.running))));
}

}  // namespace attnviz
