// Train view actions. Each run is a TrainJob closure over its options, so what a runner trains is
// fixed when it starts, whatever the settings fields show afterwards.
#include "views/train/train_actions.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "demos/gather_data.h"
#include "demos/gather_demo.h"
#include "demos/induction_demo.h"
#include "io/model_file.h"
#include "state/app_state.h"
#include "state/model_source.h"

namespace attnviz {

namespace {

constexpr const char* kFamousSentence = "The animal didn't cross the street because it was too tired.";

// Held-out evaluations: the shipped demo's every 100 steps, more often for short runs so their
// accuracy curve still has points.
int eval_interval(int max_steps) { return std::clamp(max_steps / 10, 1, 100); }

// The settings on a demo's options (each demo's options name these fields alike). Coreference
// evaluates at eval_interval; induction and gather at most that far apart (their own default may be
// closer).
template <class Options>
Options options_from(const TrainSettings& s, bool keep_closer_eval) {
  Options o;
  o.seed = static_cast<uint64_t>(s.seed);
  o.n_heads = s.n_heads;
  o.d_model = s.d_model;
  o.max_steps = s.max_steps;
  o.report_every = s.report_every;
  o.eval_every = keep_closer_eval ? std::min(o.eval_every, eval_interval(s.max_steps)) : eval_interval(s.max_steps);
  return o;
}

// A demo's shipped settings, as its options' defaults.
template <class Options>
TrainSettings settings_from(int report_every) {
  const Options o;
  TrainSettings s;
  s.seed = static_cast<int>(o.seed);
  s.n_heads = o.n_heads;
  s.d_model = o.d_model;
  s.max_steps = o.max_steps;
  s.report_every = report_every;
  return s;
}

Status settings_check(const TrainSettings& s) {
  if (s.max_steps < 1 || s.report_every < 1) return make_error("steps and the report interval must be at least 1");
  if (s.seed < 0) return make_error("the seed must not be negative");
  return Ok{};
}

// A fresh model for the settings (also what validates them) and the job that trains it.
Result<std::pair<Model, TrainJob>> job_for(DemoKind demo, const TrainSettings& s) {
  if (Status st = settings_check(s); !st) return make_error(st.error());
  if (demo == DemoKind::coreference) {
    const auto o = options_from<CorefTrainOptions>(s, false);
    auto m = coref_model_init(o);
    if (!m) return make_error(m.error());
    return std::pair<Model, TrainJob>(std::move(*m), [o](const TrainCallback& cb) { return coref_train(o, cb); });
  }
  if (demo == DemoKind::gather) {
    const auto o = options_from<GatherTrainOptions>(s, true);
    auto m = gather_model_init(o);
    if (!m) return make_error(m.error());
    return std::pair<Model, TrainJob>(std::move(*m), [o](const TrainCallback& cb) { return gather_train(o, cb); });
  }
  const auto o = options_from<InductionTrainOptions>(s, true);
  auto m = induction_model_init(o);
  if (!m) return make_error(m.error());
  return std::pair<Model, TrainJob>(std::move(*m), [o](const TrainCallback& cb) { return induction_train(o, cb); });
}

// app_use_trained reads the demo from tv.demo (decoder or not); the settings' demo may have been
// changed since the run started, so present the run's own for the call. A run of the other demo
// than the one the views show gets that demo's mask (and, for coreference, a sentence with "it").
void use_run_model(AppState& app, std::shared_ptr<const Model> model, bool other_demo) {
  TrainState& tv = app.train;
  if (other_demo && app.source == ModelSource::trained) app.source = ModelSource::sandbox;  // re-apply the masks
  if (tv.run_demo == DemoKind::coreference && app.source != ModelSource::trained && coref_make(app.sentence).pronoun < 0)
    app.sentence = kFamousSentence;
  const DemoKind shown = tv.demo;
  tv.demo = tv.run_demo;
  app_use_trained(app, std::move(model));
  tv.demo = shown;
  tv.runner_seen = 0;  // the next app_update installs the newest report
}

void probe_clear(TrainProbe& p) {
  if (p.trace || !p.error.empty()) ++p.version;
  p.trace.reset();
  p.model.reset();
  p.error.clear();
  p.posted_model.reset();
  p.in_flight.clear();
}

// Returns true when the probe's trace changed.
bool probe_follow(TrainProbe& p, const std::shared_ptr<const Model>& model, const std::string& text, bool causal) {
  auto result = p.worker.poll();
  if (!model) {  // reset: a late answer about forgotten weights must not come back
    const bool had = p.trace || !p.error.empty();
    probe_clear(p);
    return had;
  }
  bool changed = false;
  if (result) {
    auto it = std::find_if(p.in_flight.begin(), p.in_flight.end(), [&](const auto& r) { return r.id == result->id; });
    if (it != p.in_flight.end()) {
      p.trace = result->trace;
      p.model = result->trace ? it->model : nullptr;
      p.text = it->text;
      p.error = result->trace ? std::string() : result->error;
      ++p.version;
      changed = true;
      p.in_flight.erase(p.in_flight.begin(), it + 1);
    }
  }
  if (model != p.posted_model || text != p.posted_text || causal != p.posted_causal) {
    ComputeRequest req;
    req.id = ++p.posted_id;
    req.a.model = model;
    req.a.input.text = text;
    req.a.input.mask.causal = causal;
    p.worker.post(std::move(req));
    p.in_flight.push_back(TrainProbeRequest{p.posted_id, model, text});
    p.posted_model = model;
    p.posted_text = text;
    p.posted_causal = causal;
  }
  return changed;
}

bool probe_settled(const TrainProbe& p, const TrainRunner& r) {
  return !p.worker.busy() && p.in_flight.empty() && p.posted_model == r.snapshot().model;
}

}  // namespace

TrainSettings train_defaults(DemoKind demo) {
  switch (demo) {
    case DemoKind::coreference: return settings_from<CorefTrainOptions>(10);
    case DemoKind::gather: return settings_from<GatherTrainOptions>(25);  // one report at each evaluation
    case DemoKind::induction: break;
  }
  return settings_from<InductionTrainOptions>(5);
}

void train_choose_demo(TrainState& tv, DemoKind demo) {
  tv.demo = demo;
  tv.settings = train_defaults(demo);
}

Status train_start(AppState& app) {
  TrainState& tv = app.train;
  auto job = job_for(tv.demo, tv.settings);
  if (!job) {
    tv.error = job.error();
    return make_error(job.error());
  }
  tv.error.clear();
  tv.message.clear();
  const bool other_demo = tv.run_demo != tv.demo;
  tv.run_demo = tv.demo;
  tv.run_settings = tv.settings;
  tv.runner.start(std::move(job->second));
  use_run_model(app, std::make_shared<const Model>(std::move(job->first)), other_demo);
  tv.tab = TrainTab::run;
  tv.tab_request = true;
  return Ok{};
}

void train_reset(AppState& app) {
  app.train.runner.reset();
  app.train.message.clear();
}

Status train_pair_start(AppState& app) {
  TrainState& tv = app.train;
  const DemoKind demo = tv.pair_demo == DemoKind::gather ? DemoKind::gather : DemoKind::coreference;
  TrainSettings one = train_pair_base(tv);
  TrainSettings many = one;
  one.n_heads = 1;
  auto a = job_for(demo, one);
  auto b = a ? job_for(demo, many) : Result<std::pair<Model, TrainJob>>(make_error(a.error()));
  if (!b) {
    tv.error = b.error();
    return make_error(b.error());
  }
  tv.error.clear();
  tv.pair_settings = many;
  tv.pair_run_demo = demo;
  tv.pair_started = true;
  tv.single.start(std::move(a->second));
  tv.multi.start(std::move(b->second));
  tv.tab = TrainTab::compare;
  tv.tab_request = true;
  return Ok{};
}

void train_pair_stop(AppState& app) {
  app.train.single.stop();
  app.train.multi.stop();
}

void train_pair_reset(AppState& app) {
  app.train.single.reset();
  app.train.multi.reset();
  app.train.pair_started = false;
}

Status train_use_in_views(AppState& app) {
  auto model = app.train.runner.snapshot().model;
  if (!model) return make_error("nothing has been trained yet");
  use_run_model(app, std::move(model), false);
  return Ok{};
}

Result<std::string> train_save(AppState& app, const std::string& path) {
  TrainState& tv = app.train;
  auto fail = [&](const std::string& m) -> Result<std::string> {
    tv.message = m;
    tv.message_error = true;
    return make_error(m);
  };
  auto model = tv.runner.snapshot().model;
  if (!model) return fail("nothing has been trained yet");
  if (path.empty()) return fail("no path given");
  namespace fs = std::filesystem;
  std::string file = path;
  if (fs::path(path).extension() != ".safetensors") {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return fail("cannot create '" + path + "': " + ec.message());
    file = (fs::path(path) / "model.safetensors").string();
  }
  if (Status s = model_save(file, *model); !s) return fail(s.error());
  std::error_code ec;
  const fs::path shown = fs::absolute(file, ec);  // say exactly where it went: the Model panel needs it
  tv.message = ec ? file : shown.lexically_normal().string();
  tv.message_error = false;
  return file;
}

TrainSettings train_pair_base(const TrainState& tv) {
  if (tv.pair_demo == DemoKind::gather) return tv.pair_gather_settings;
  return tv.demo == DemoKind::coreference ? tv.settings : train_defaults(DemoKind::coreference);
}

TrainPairOutcome train_pair_outcome(const AppState& app) {
  const TrainState& tv = app.train;
  const float target = tv.pair_run_demo == DemoKind::gather ? kGatherTarget : kCorefTarget;
  const TrainSnapshot one = tv.single.snapshot(), many = tv.multi.snapshot();
  TrainPairOutcome o;
  o.ended = tv.pair_started && !one.running && !many.running;
  const auto read = [&](const TrainSnapshot& s, int& steps, float& accuracy) {
    for (const TrainProgress& r : s.reports) {
      if (!r.evaluated) continue;
      accuracy = r.heldout_accuracy;
      if (steps < 0 && !r.heldout_partial && r.heldout_accuracy >= target) steps = r.step;
    }
  };
  read(one, o.one_steps, o.one_accuracy);
  read(many, o.many_steps, o.many_accuracy);
  if (o.many_steps >= 0) o.n_heads_ahead = o.one_steps < 0 || o.many_steps < o.one_steps;
  else o.n_heads_ahead = o.one_steps < 0 && o.many_accuracy > o.one_accuracy;
  const auto side = [](const char* who, float accuracy, int steps) {
    char line[160];
    if (steps >= 0) std::snprintf(line, sizeof line, "%s: %.1f%% held-out, target at step %d", who, 100.0 * accuracy, steps);
    else std::snprintf(line, sizeof line, "%s: %.1f%% held-out, target not reached", who, 100.0 * accuracy);
    return std::string(line);
  };
  o.summary = side("1 head", o.one_accuracy, o.one_steps) + " · " +
              side((std::to_string(tv.pair_settings.n_heads) + " heads").c_str(), o.many_accuracy, o.many_steps);
  return o;
}

std::string train_pair_text(const AppState& app) {
  if (app.train.pair_run_demo == DemoKind::gather) {
    const GatherExample e = gather_make(app.sentence);
    return e.answer >= 0 ? app.sentence : std::string(kGatherSentence);
  }
  const CorefExample e = coref_make(app.sentence);
  return e.pronoun >= 0 && e.candidate_a >= 0 && e.candidate_b >= 0 ? app.sentence : std::string(kFamousSentence);
}

void train_follow_probes(AppState& app) {
  TrainState& tv = app.train;
  probe_follow(tv.probe, tv.runner.snapshot().model, app.sentence, tv.run_demo == DemoKind::induction);
  const std::string pair_text = train_pair_text(app);
  const bool a = probe_follow(tv.probe_single, tv.single.snapshot().model, pair_text, false);
  const bool b = probe_follow(tv.probe_multi, tv.multi.snapshot().model, pair_text, false);
  if (a || b) ++tv.pair_maps_version;
}

bool train_script_ready(AppState& app) {
  TrainState& tv = app.train;
  if (!tv.script_wait) return true;
  if (tv.runner.snapshot().running || tv.single.snapshot().running || tv.multi.snapshot().running) {
    // Only headless scripts wait here: leave the cores to training instead of drawing frames nobody sees.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return false;
  }
  if (app.view == View::train &&
      !(probe_settled(tv.probe, tv.runner) && probe_settled(tv.probe_single, tv.single) &&
        probe_settled(tv.probe_multi, tv.multi)))
    return false;
  tv.script_wait = false;
  return true;
}

}  // namespace attnviz
