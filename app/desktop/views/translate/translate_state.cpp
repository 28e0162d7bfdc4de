// The Translation view's headless part (translate_state.h).
#include "views/translate/translate_state.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "demos/translate_demo.h"
#include "demos/translate_file.h"
#include "state/app_state.h"

namespace attnviz {

namespace {

constexpr std::array<TranslateVariant, kTranslateVariants> kVariants = {{
    {"translate", "demo:translate", Str::tl_variant_scaled},
    {"score_dot", "demo:translate/score_dot", Str::tl_variant_dot},
    {"score_general", "demo:translate/score_general", Str::tl_variant_general},
    {"score_additive", "demo:translate/score_additive", Str::tl_variant_additive},
    {"bottleneck", "demo:translate/bottleneck", Str::tl_variant_bottleneck},
}};

constexpr const char* kTabIds[] = {"alignment", "steps", "scores", "bottleneck", "train"};

// The held-out sentences the shipped models were judged on: drawn as `attnviz-cli train translate`
// draws them (seed 1, its training set excluded), so none of them was trained on.
constexpr uint64_t kShippedSeed = 1;

TranslateModelSlot load_variant(const AssetPaths& assets, int v) {
  TranslateModelSlot slot;
  slot.tried = true;
  auto demo = demo_model_find(assets, kVariants[static_cast<size_t>(v)].demo);
  if (!demo) {
    slot.error = demo.error();
    return slot;
  }
  auto model = translate_load((std::filesystem::path(demo->dir) / "model.safetensors").string());
  if (!model) {
    slot.error = model.error();
    return slot;
  }
  slot.model = std::make_shared<const TranslateModel>(std::move(*model));
  return slot;
}

const TranslateModel* slot_model(AppState& app, int v) {
  TranslateModelSlot& slot = app.translate.models[static_cast<size_t>(v)];
  if (!slot.tried) slot = load_variant(app.assets, v);
  return slot.model.get();
}

std::string settings_label(const TranslateTrainSettings& s) {
  return "seed " + std::to_string(s.seed) + " · " + std::to_string(s.n_heads) + " heads · d_model " + std::to_string(s.d_model);
}

// A finished run replaces its variant's model everywhere; the plot is measured again when it drew it.
void install_run(AppState& app, Result<TranslateRun> run) {
  TranslateState& t = app.translate;
  const TranslateTrainSnapshot s = t.train_job.snapshot();
  if (!run) {
    if (run.error() != "stopped") t.train_error = run.error();
    return;
  }
  if (s.variant < 0 || run->history.empty()) return;
  TranslateModelSlot& slot = t.models[static_cast<size_t>(s.variant)];
  slot.model = std::make_shared<const TranslateModel>(std::move(run->model));
  slot.error.clear();
  slot.retrained = settings_label(s.settings);
  const TranslateScores& sc = run->history.back().scores;
  float best = 0;
  for (const float a : sc.content_aligned) best = std::max(best, a);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.1f%% exact (%.0f / %.0f / %.0f%% on 1 / 2 / 3 clauses), best head %.1f%% aligned, %d steps",
                sc.exact_rate() * 100.0, sc.exact_rate(1) * 100.0, sc.exact_rate(2) * 100.0, sc.exact_rate(3) * 100.0,
                static_cast<double>(best) * 100.0, run->history.back().step);
  t.train_result = slot.retrained + ": " + buf;
  if (s.variant == 0 || s.variant == kTranslateBottleneck) t.curve.reset();
  t.readout_variant = -1;  // everything is computed again on the new weights
  t.computed_text.clear();
}

}  // namespace

const std::array<TranslateVariant, kTranslateVariants>& translate_variants() { return kVariants; }

int translate_variant_from_id(std::string_view id) {
  for (int v = 0; v < kTranslateVariants; ++v)
    if (id == kVariants[static_cast<size_t>(v)].id) return v;
  return -1;
}

const char* translate_tab_id(TranslateTab tab) { return kTabIds[static_cast<size_t>(tab)]; }

std::optional<TranslateTab> translate_tab_from_id(std::string_view id) {
  for (size_t i = 0; i < std::size(kTabIds); ++i)
    if (id == kTabIds[i]) return static_cast<TranslateTab>(i);
  return std::nullopt;
}

TranslateLengthCurve translate_length_curve(const std::vector<TranslatePair>& pairs, const std::vector<char>& exact_attention,
                                            const std::vector<char>& exact_bottleneck, int width) {
  TranslateLengthCurve c;
  if (pairs.empty() || width < 1) return c;
  int shortest = static_cast<int>(pairs[0].source.size()), longest = shortest;
  for (const TranslatePair& p : pairs) {
    shortest = std::min(shortest, static_cast<int>(p.source.size()));
    longest = std::max(longest, static_cast<int>(p.source.size()));
  }
  for (int lo = shortest; lo <= longest; lo += width) c.bins.push_back({lo, std::min(lo + width - 1, longest), 0, 0, 0});
  for (size_t i = 0; i < pairs.size(); ++i) {
    const int n = static_cast<int>(pairs[i].source.size()), k = static_cast<int>(pairs[i].clauses.size());
    TranslateLengthBin& b = c.bins[static_cast<size_t>((n - shortest) / width)];
    const bool a = i < exact_attention.size() && exact_attention[i], bn = i < exact_bottleneck.size() && exact_bottleneck[i];
    ++b.sentences, b.exact_attention += a, b.exact_bottleneck += bn;
    for (const int at : {0, k}) ++c.sentences[at], c.exact_attention[at] += a, c.exact_bottleneck[at] += bn;
  }
  return c;
}

TranslateLengthCurve translate_measure_curve(const TranslateModel& attention, const TranslateModel& bottleneck,
                                             int per_clause_count) {
  const auto t0 = std::chrono::steady_clock::now();
  const TranslateSplit split = translate_generate(kShippedSeed, TranslateTrainOptions{}.n_train, per_clause_count);
  const std::vector<char> a = translate_exact_each(attention, split.heldout);
  const std::vector<char> b = translate_exact_each(bottleneck, split.heldout);
  TranslateLengthCurve c = translate_length_curve(split.heldout, a, b, 4);
  c.per_clause_count = per_clause_count;
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

void TranslateTrainJob::start(const TranslateTrainOptions& options, int variant, const TranslateTrainSettings& settings) {
  if (job_.busy()) return;
  stop_ = false;
  {
    std::lock_guard lock(mutex_);
    snapshot_ = TranslateTrainSnapshot{true, variant, options.max_steps, settings, {}};
  }
  job_.start([this, options] {
    auto run = translate_train(options, [this](const TranslateProgress& p, const TranslateModel&) {
      float best = -1;
      for (const float a : p.scores.content_aligned) best = std::max(best, a);
      std::lock_guard lock(mutex_);
      if (p.evaluated || p.step % 10 == 0)
        snapshot_.points.push_back({p.step, p.loss, p.evaluated ? p.scores.exact_rate() : -1.0f, p.evaluated ? best : -1.0f});
      return !stop_;
    });
    std::lock_guard lock(mutex_);
    snapshot_.running = false;
    return stop_ ? Result<TranslateRun>(make_error("stopped")) : std::move(run);
  });
}

void TranslateTrainJob::stop() {
  stop_ = true;
  job_.join();
  (void)job_.poll();  // the stopped run's model is dropped
  std::lock_guard lock(mutex_);
  snapshot_.running = false;
}

TranslateTrainSnapshot TranslateTrainJob::snapshot() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

void TranslateState::reset() {
  text = TranslateState{}.text;
  variant = 0;
  tab = TranslateTab::alignment;
  tab_request = false;
  head = -1;
  step = 0;
  cross_off = Ablation{};
  readout_variant = -1;  // rebuilt at the next refresh
  computed_text.clear();
  error.clear();
}

const TranslateModel* translate_shown_model(const AppState& app) {
  return app.translate.models[static_cast<size_t>(app.translate.variant)].model.get();
}

const TranslateModel* translate_readout_model(const AppState& app) {
  const TranslateState& t = app.translate;
  return t.readout && t.readout_variant == t.variant ? translate_shown_model(app) : nullptr;
}

int translate_shown_head(const AppState& app) {
  const TranslateState& t = app.translate;
  if (!t.readout || t.readout->head_aligned.empty()) return -1;
  if (t.head >= 0 && t.head < static_cast<int>(t.readout->head_aligned.size())) return t.head;
  return t.readout->best_head;
}

void translate_refresh(AppState& app) {
  TranslateState& t = app.translate;
  if (auto done = t.curve_job.poll()) {
    if (*done) t.curve = std::move(**done);
    else t.curve_error = done->error();
  }
  if (auto run = t.train_job.poll()) install_run(app, std::move(*run));
  const TranslateModel* m = slot_model(app, t.variant);
  const bool same = t.readout_variant == t.variant && t.readout_off == t.cross_off.heads && t.readout_mode == app.ablation.mode;
  if (same && t.computed_text == t.text) return;
  t.computed_text = t.text;
  if (!m) {
    t.error = t.models[static_cast<size_t>(t.variant)].error;
    return;
  }
  Ablation off = t.cross_off;
  off.mode = app.ablation.mode;
  std::string used = t.text;
  auto r = translate_readout(*m, used, off);
  if (r) {
    t.error.clear();
  } else {
    t.error = r.error();  // the last good sentence stays on screen, on the model and heads now asked for
    if (same || t.readout_text.empty()) return;
    used = t.readout_text;
    r = translate_readout(*m, used, off);
    if (!r) return;
  }
  t.readout = std::move(*r);
  t.readout_text = used;
  t.readout_variant = t.variant;
  t.readout_off = t.cross_off.heads;
  t.readout_mode = off.mode;
  t.step = std::clamp(t.step, 0, t.readout->rows() - 1);
  auto effects = translate_head_effects(*m, *t.readout);
  t.effects = effects ? std::move(*effects) : std::vector<TranslateHeadEffect>{};
  for (int v = 0; v < kTranslateVariants; ++v) {
    t.side[static_cast<size_t>(v)].reset();
    t.side_error[static_cast<size_t>(v)].clear();
    if (v == t.variant && !t.cross_off.any()) {  // the readout above is this model's, every head on
      t.side[static_cast<size_t>(v)] = t.readout;
      continue;
    }
    const TranslateModel* sm = slot_model(app, v);
    if (!sm) {
      t.side_error[static_cast<size_t>(v)] = t.models[static_cast<size_t>(v)].error;
      continue;
    }
    auto sr = translate_readout(*sm, used);
    if (sr) t.side[static_cast<size_t>(v)] = std::move(*sr);
    else t.side_error[static_cast<size_t>(v)] = sr.error();
  }
  ++t.version;
}

void translate_curve_start(AppState& app) {
  TranslateState& t = app.translate;
  if (t.curve || t.curve_job.busy()) return;
  slot_model(app, 0);
  slot_model(app, kTranslateBottleneck);
  const auto& a = t.models[0];
  const auto& b = t.models[static_cast<size_t>(kTranslateBottleneck)];
  if (!a.model || !b.model) {
    t.curve_error = !a.model ? a.error : b.error;
    return;
  }
  t.curve_error.clear();
  t.curve_job.start([attention = a.model, bottleneck = b.model, n = t.curve_per_clause_count] {
    return Result<TranslateLengthCurve>(translate_measure_curve(*attention, *bottleneck, n));
  });
}

Status translate_train_start(AppState& app) {
  TranslateState& t = app.translate;
  if (t.train_job.busy()) return make_error("a translation model is training; stop it first");
  const TranslateTrainSettings& s = t.train_settings;
  TranslateTrainOptions o;
  o.seed = static_cast<uint64_t>(s.seed);
  o.max_steps = s.max_steps;
  o.heldout_per_length = s.heldout_per_length;
  o.arch.n_heads = s.n_heads;
  o.arch.d_model = s.d_model;
  if (t.variant == kTranslateBottleneck) {
    o.arch.bottleneck = true;
  } else {
    const TranslateModel* shipped = slot_model(app, t.variant);
    if (!shipped) return make_error(t.models[static_cast<size_t>(t.variant)].error);
    o.arch.score = shipped->arch.score;
  }
  if (s.max_steps < 1 || s.max_steps > 20000) return make_error("steps must be from 1 to 20000");
  if (auto check = translate_model_init(o.arch, o.seed); !check) return make_error(check.error());
  t.train_error.clear();
  t.train_result.clear();
  t.train_job.start(o, t.variant, s);
  return Ok{};
}

Status translate_use_shipped(AppState& app) {
  TranslateState& t = app.translate;
  TranslateModelSlot& slot = t.models[static_cast<size_t>(t.variant)];
  if (slot.retrained.empty()) return make_error("the shown model is the shipped one");
  slot = load_variant(app.assets, t.variant);
  if (t.variant == 0 || t.variant == kTranslateBottleneck) t.curve.reset();
  t.readout_variant = -1;
  t.computed_text.clear();
  return Ok{};
}

Status translate_set_variant(AppState& app, std::string_view id) {
  const int v = translate_variant_from_id(id);
  if (v < 0) {
    std::string known;
    for (const TranslateVariant& k : kVariants) known += (known.empty() ? "" : ", ") + std::string(k.id);
    return make_error("no translation model '" + std::string(id) + "' (known: " + known + ")");
  }
  TranslateState& t = app.translate;
  if (!slot_model(app, v)) return make_error(t.models[static_cast<size_t>(v)].error);
  if (v != t.variant) {
    t.variant = v;
    t.cross_off = Ablation{};  // another model: its own heads
    t.head = -1;
  }
  return Ok{};
}

Status translate_toggle_head(AppState& app, int layer, int head) {
  TranslateState& t = app.translate;
  const TranslateModel* m = slot_model(app, t.variant);
  if (!m) return make_error(t.models[static_cast<size_t>(t.variant)].error);
  Ablation next = t.cross_off;
  ablation_toggle(next, {layer, head});
  if (Status s = translate_ablation_validate(*m, next); !s) return s;
  t.cross_off = std::move(next);
  return Ok{};
}

Status translate_set_step(AppState& app, int step) {
  TranslateState& t = app.translate;
  if (!t.readout) return make_error("no translation to step through yet");
  if (step < 0 || step >= t.readout->rows())
    return make_error("step " + std::to_string(step) + " is outside the translation's " + std::to_string(t.readout->rows()) +
                      " steps (0 to " + std::to_string(t.readout->rows() - 1) + ")");
  t.step = step;
  return Ok{};
}

}  // namespace attnviz
