// app_update: the single place where edits become engine work and results become the view —
// including the Compare view's derived maps. Sessions map to and from AppState.
#include "state/app_state.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <tuple>

#include "base/json.h"
#include "model/head_map.h"
#include "state/attention_source.h"
#include "state/model_source.h"

namespace attnviz {

namespace {

// The fields a Session and AppState share, copied either way (capture: app -> session; apply:
// session -> app), so the two directions cannot drift apart.
template <class From, class To>
void copy_session_fields(const From& from, To& to) {
  const auto fields = [](auto& x) {
    return std::tie(x.sentence, x.source_sentence, x.cross, x.config, x.seed, x.generator, x.mask, x.layer, x.head,
                    x.query);
  };
  fields(to) = fields(from);
}

// While the views show the Train view's model, every new report replaces it: the heatmaps follow
// training as it happens.
void follow_training(AppState& app) {
  if (app.source != ModelSource::trained) return;
  TrainState& tv = app.train;
  const uint64_t v = tv.runner.version();
  if (v == tv.runner_seen) return;
  tv.runner_seen = v;
  auto model = tv.runner.snapshot().model;
  if (model && model != app.model) {
    app.model = std::move(model);
    app.dirty = true;
  }
}

// Heads switched off that the model no longer has (fewer layers or heads after a switch) come back
// on, and the status bar says so: a stale set must not make every recompute fail.
void ablation_fit_model(AppState& app) {
  const ModelConfig& c = app_model_config(app);
  const size_t before = app.ablation.heads.size();
  std::erase_if(app.ablation.heads, [&](const HeadRef& h) { return h.layer >= c.n_layers || h.head >= c.n_heads; });
  if (app.ablation.heads.size() == before) return;
  app.status = tr(app.lang, Str::ablation_dropped);
  app.status_is_error = false;
}

}  // namespace

void app_send_edit(AppState& app) {
  if (app.source == ModelSource::attention) {
    attention_update(app);  // no model runs: the file's trace is the result
    return;
  }
  if (!app.dirty) return;
  ablation_fit_model(app);
  compare_follow_sentence_a(app.compare, app.sentence);
  ComputeRequest req;
  req.id = ++app.posted_id;
  req.a.config = app.config;
  req.a.seed = app.seed;
  req.a.generator = app.generator;
  req.a.input.text = app.sentence;
  req.a.input.token_ids = app_generation_ids(app);  // generated tokens are kept as ids
  if (app_reads_pairs(app)) req.a.input.text_b = app.sentence_b;
  if (app.cross) req.a.input.source_text = app.source_sentence;
  req.a.input.mask = app.mask;
  req.a.input.ablation = app.ablation;
  req.a.input.max_memory = app.trace_max_memory;
  req.a.input.maps_on_demand = app.maps_on_demand;
  if (app.source != ModelSource::sandbox) req.a.model = app.model;
  const bool fixed_heads = req.a.model && app.compare.mode == CompareMode::single_vs_multi;
  if (app_needs_b(app) && !fixed_heads) {
    req.b = compare_job(app.compare.mode, app.compare.sentence, req.a);
    req.b->input.ablation = {};  // B is the comparison's other side: every head on
  } else if (app_needs_b(app) && (demo_is_live(app.source) || app.source == ModelSource::demo_gather)) {
    // Trained models: the 1-head demo of the same architecture, trained for real (the gather demo's is shipped).
    if (auto one = app.source == ModelSource::demo_gather ? gather_single_head(app) : demo_single_head(app)) {
      req.b = req.a;
      req.b->model = std::move(one);
      req.b->input.ablation = {};
    }
  }
  app.worker.post(std::move(req));
  app.dirty = false;
}

void app_update(AppState& app) {
  history_track(app, std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count());
  app_send_edit(app);
  importance_set_poll(app);
  app.lens.job.take();  // finished even when their panels are no longer drawn
  app.flow.job.take();
  patching_take(app);
  // A request sent before an attention file was opened may still finish: it is not what is shown.
  if (auto result = app.worker.poll(); result && app.source != ModelSource::attention) {
    app.shown_id = result->id;
    app.compute_seconds = result->seconds;
    app.compute_finished = result->finished;
    if (result->trace) {
      app.trace = std::move(result->trace);
      app.trace_b = std::move(result->trace_b);
      app.trace_model = std::move(result->model);
      app.answer = std::move(result->answer);
      app.answer_full = std::move(result->answer_full);
      app.answer_error = std::move(result->answer_error);
      app.answer_b = std::move(result->answer_b);
      app.error_b = result->error_b;
      // The coreference and gather demos learnt their answers with every key visible: under the
      // causal mask their scores at the last position are a "next token" they were never taught.
      // Say so instead, for A and for Compare's B (masked vs unmasked puts the causal mask on B).
      const bool trained_unmasked = app.source == ModelSource::demo_coref || app.source == ModelSource::demo_gather;
      const auto untaught = [&](const Trace* t, const std::optional<ModelAnswer>& a) {
        return trained_unmasked && t && t->causal && a && a->kind == AnswerKind::next_token;
      };
      app.answer_b_error.reset();
      if (untaught(app.trace.get(), app.answer)) {
        app.answer.reset();
        app.answer_full.reset();
        app.answer_error = NoAnswer{NoAnswerReason::mask_not_trained, {}};
      }
      if (untaught(app.trace_b.get(), app.answer_b)) {
        app.answer_b.reset();
        app.answer_b_error = NoAnswer{NoAnswerReason::mask_not_trained, {}};
      }
      app.error.clear();
      ++app.trace_version;
      app.lines.hidden.resize(static_cast<size_t>(app.trace->config.n_heads), 0);
    } else {
      app.error = result->error;
      // B was asked for together with this refused edit: say why it is missing rather than
      // asking again (an edit the engine refuses would otherwise be resent every frame).
      if (!app.trace_b) app.error_b = result->error;
    }
  }
  // Selections may point past a smaller model or sentence (after an edit, a session, a script).
  if (app.trace) {
    const Trace& t = *app.trace;
    app.layer = std::clamp(app.layer, 0, static_cast<int>(t.layers.size()) - 1);
    app.head = std::clamp(app.head, 0, t.config.n_heads - 1);
    if (app.heads.zoom_head >= t.config.n_heads) app.heads.zoom_head = -1;
    if (app.query >= t.n_queries() || app.query < -1) app.query = -1;
    app.steps.step = std::max(app.steps.step, 0);
  }
  // The Compare view needs B: ask for it when the view opens or its mode changed.
  if (app_needs_b(app) && app.trace && !app.trace_b && !app_computing(app) && app.error_b.empty() && app.error.empty()) {
    if (demo_is_live(app.source) && app.compare.mode == CompareMode::single_vs_multi) {
      if (demo_single_head(app)) app.dirty = true;  // else it trains; the view says so until it is ready
    } else if (app.source == ModelSource::demo_gather && app.compare.mode == CompareMode::single_vs_multi) {
      if (gather_single_head(app)) app.dirty = true;
      else app.error_b = "the gather demo's 1-head model (assets/demo_gather/one_head) could not be read";
    } else if (app.source != ModelSource::sandbox && !demo_is_live(app.source) &&
               app.compare.mode == CompareMode::single_vs_multi)
      app.error_b = "1 head vs N heads rebuilds a sandbox model with one head; a trained model has fixed heads "
                    "(the Train view trains a 1-head and an N-head model side by side)";
    else
      app.dirty = true;
  }
  generation_poll(app);
  follow_training(app);
  demo_retrain_poll(app);
  app_poll_model_loader(app);
  if (auto grid = app.importance.poll()) app.importance_result = std::move(grid);
  measure_maps_refresh(app.maps, app.measure, app.trace_model.get(), app.trace.get(), app.trace_version,
                       app.first_aside && !app_words_shown(app));
  shown_words_refresh(app);
  compare_maps_update(app.compare, app.trace.get(), app.trace_b.get(), app.layer, app.trace_version);
  // The Statistics view's scan starts with the frame that shows the view (a long input's runs on a
  // thread of its own, which app_busy then names), not a frame later.
  if (app.view == View::stats && app.trace && !app_computing(app)) (void)stats_cache_refresh(app);
}

bool app_needs_b(const AppState& app) {
  return app.view == View::compare || (app.view == View::coref && app.compare.mode == CompareMode::sentence_b);
}

bool app_computing(const AppState& app) {
  // A load that finished after this frame's app_update is not installed yet: still busy until it is.
  return app.shown_id != app.posted_id || app.worker.busy() || app.model_loader.busy() || app.model_loader.has_result() ||
         app.retrain.training || app.retrain.twin_training || app.generation.remaining > 0;
}

bool app_reads_pairs(const AppState& app) {
  return app.source != ModelSource::sandbox && app.model && app.model->tokenizer &&
         app.model->tokenizer->frames_pairs();
}

bool app_toggle_head(AppState& app, int layer, int head) {
  if (app.source == ModelSource::attention) return false;  // weights from a file: no model to switch heads off in
  const ModelConfig& c = app_model_config(app);
  if (layer < 0 || layer >= c.n_layers || head < 0 || head >= c.n_heads) return false;
  ablation_toggle(app.ablation, HeadRef{layer, head});
  app.dirty = true;
  return true;
}

void app_start_importance(AppState& app) {
  if (!app.trace || !app.trace_model || app.importance.busy()) return;
  app.importance_result.reset();
  app.importance.start(app.trace_model, app.trace, app.sentence, app.ablation.mode, app.trace_version);
}

const ImportanceGrid* app_importance(const AppState& app) {
  const auto& r = app.importance_result;
  return r && r->grid && r->trace_version == app.trace_version ? &*r->grid : nullptr;
}

bool app_first_aside(const AppState& app) {
  return app.first_aside && measure_sets_first_aside(app.measure) && !app_words_shown(app);
}

std::shared_ptr<const Mat> app_head_map(const AppState& app, int layer, int head) {
  if (app_words_shown(app)) return head_map_shared(*app.words.trace, layer, head);  // words keep their maps
  return measure_map_of(app.maps, *app.trace, layer, head);
}

std::shared_ptr<const Mat> app_head_weights(const AppState& app, const Trace& t, int layer, int head) {
  if (app.trace && &t == app.trace.get() && trace_forms_maps(t))
    return app.maps.formed.get(t, app.maps.trace_version, layer, head, false);
  return head_map_shared(t, layer, head);
}

AttentionMeasure app_measure_drawn(const AppState& app) {
  return app.maps.maps.empty() || app_words_shown(app) ? AttentionMeasure::weights : app.measure;
}

bool app_map_per_layer(const AppState& app) { return app_measure_drawn(app) == AttentionMeasure::rollout; }

void app_reset_views(AppState& app) {
  app.heads.reset();
  app.lines.reset();
  app.compare.reset();
  app.steps.reset();
  app.stats.reset();
  app.coref.reset();
  app.train.reset();
}

Session app_capture_session(const AppState& app) {
  Session s;
  copy_session_fields(app, s);
  s.ui["view"] = view_id(app.view);
  s.ui["language"] = app.lang == Lang::ko ? "ko" : "en";
  s.ui["colormap"] = std::string(name_of(app.cmap));
  s.ui["compare_sentence"] = app.compare.sentence;
  s.ui["compare_mode"] = std::string(compare_mode_name(app.compare.mode));
  s.ui["annotate"] = app.annotate ? "1" : "0";
  s.ui["hangul_typing"] = app.hangul.on ? "1" : "0";
  s.ui["translate_sentence"] = app.translate.text;  // the Translation view's own sentence and model
  s.ui["translate_model"] = translate_variants()[static_cast<size_t>(app.translate.variant)].id;
  s.ui["measure"] = std::string(name_of(app.measure));
  s.ui["color_scale"] = std::string(name_of(app.color_scale.kind));
  s.ui["first_aside"] = app.first_aside ? "1" : "0";
  s.ui["ablated"] = ablation_heads_format(app.ablation.heads);
  s.ui["ablation"] = std::string(name_of(app.ablation.mode));
  // A model trained in the app lives only in memory (the Train view saves it as a file).
  const bool saved_source = app.source != ModelSource::trained;
  s.ui["model_source"] = source_id(saved_source ? app.source : ModelSource::sandbox);
  if (app.source == ModelSource::file || app.source == ModelSource::attention) s.ui["model_path"] = app.model_path;
  if (!app.sentence_b.empty()) s.ui["sentence_b"] = app.sentence_b;
  // A trained demo's live architecture: the session reopens on it (found, or trained again).
  if (demo_is_live(app.source)) s.ui["demo_arch"] = demo_arch_format(demo_shown_arch(app.retrain, app.source));
  return s;
}

Status app_apply_session(AppState& app, const Session& s) {
  // Validate the UI part completely before touching the state: a bad file changes nothing.
  const JsonKeys ui_keys = {"view",       "language",   "colormap", "compare_sentence", "compare_mode",
                            "annotate",   "measure",    "ablated",  "ablation",         "model_source",
                            "model_path", "sentence_b", "demo_arch",        "hangul_typing",    "translate_sentence",
                            "translate_model", "color_scale", "first_aside"};
  for (const auto& entry : s.ui)
    if (std::find(ui_keys.begin(), ui_keys.end(), entry.first) == ui_keys.end())
      return make_error("session: ui: " + json_unknown_key(entry.first, ui_keys));
  View view = app.view;
  if (auto it = s.ui.find("view"); it != s.ui.end() && !view_from_id(it->second, view))
    return make_error("session: unknown view '" + it->second + "'");
  Lang lang = app.lang;
  if (auto it = s.ui.find("language"); it != s.ui.end()) {
    if (it->second != "en" && it->second != "ko") return make_error("session: unknown language '" + it->second + "'");
    lang = it->second == "ko" ? Lang::ko : Lang::en;
  }
  bool hangul_typing = app.hangul.on;
  if (auto it = s.ui.find("hangul_typing"); it != s.ui.end()) {
    if (it->second != "0" && it->second != "1") return make_error("session: hangul_typing is '" + it->second + "', not 0 or 1");
    hangul_typing = it->second == "1";
  }
  int translate_model = 0;
  if (auto it = s.ui.find("translate_model"); it != s.ui.end()) {
    translate_model = translate_variant_from_id(it->second);
    if (translate_model < 0) return make_error("session: unknown translate_model '" + it->second + "'");
  }
  Colormap cmap = app.cmap;
  if (auto it = s.ui.find("colormap"); it != s.ui.end()) {
    auto c = colormap_from_name(it->second);
    if (!c || *c == Colormap::diverging) return make_error("session: unknown colour map '" + it->second + "'");
    cmap = *c;
  }
  CompareMode mode = CompareMode::sentence_b;
  if (auto it = s.ui.find("compare_mode"); it != s.ui.end()) {
    auto named = compare_mode_from_name(it->second);
    // Sessions written before modes were saved by name hold the mode's position, "0" to "3".
    if (!named && it->second.size() == 1 && it->second[0] >= '0' && it->second[0] <= '3')
      named = kAllCompareModes[it->second[0] - '0'];
    if (!named) return make_error("session: unknown compare mode '" + it->second + "'");
    mode = *named;
  }
  AttentionMeasure measure = AttentionMeasure::weights;
  if (auto it = s.ui.find("measure"); it != s.ui.end()) {
    auto m = measure_from_name(it->second);
    if (!m) return make_error("session: unknown measure '" + it->second + "' (weights, value-norm or rollout)");
    measure = *m;
  }
  ColorScale color_scale = ColorScale::linear;
  if (auto it = s.ui.find("color_scale"); it != s.ui.end()) {
    auto k = color_scale_from_name(it->second);
    if (!k) return make_error("session: unknown color_scale '" + it->second + "' (linear, log or power)");
    color_scale = *k;
  }
  bool first_aside = false;
  if (auto it = s.ui.find("first_aside"); it != s.ui.end()) {
    if (it->second != "0" && it->second != "1") return make_error("session: first_aside is '" + it->second + "', not 0 or 1");
    first_aside = it->second == "1";
  }
  Ablation ablation;
  if (auto it = s.ui.find("ablated"); it != s.ui.end()) {
    auto heads = ablation_heads_parse(it->second);
    if (!heads) return make_error("session: ablated: " + heads.error());
    ablation.heads = std::move(*heads);
  }
  if (auto it = s.ui.find("ablation"); it != s.ui.end()) {
    auto m = ablation_mode_from_name(it->second);
    if (!m) return make_error("session: unknown ablation '" + it->second + "' (zero or mean)");
    ablation.mode = *m;
  }
  if (Status st = config_validate(s.config); !st) return make_error("session: " + st.error());
  ModelSource source = ModelSource::sandbox;
  if (auto it = s.ui.find("model_source"); it != s.ui.end() && (!source_from_id(it->second, source) || source == ModelSource::trained))
    return make_error("session: unknown model source '" + it->second + "'");
  const auto path = s.ui.find("model_path");
  if ((source == ModelSource::file || source == ModelSource::attention) && path == s.ui.end())
    return make_error("session: model_source " + std::string(source_id(source)) + " needs model_path");
  std::optional<DemoArch> arch;
  if (auto it = s.ui.find("demo_arch"); it != s.ui.end()) {
    if (!demo_is_live(source)) return make_error("session: demo_arch needs model_source coref or induction");
    auto parsed = demo_arch_parse(it->second, demo_shipped_arch(source));
    if (!parsed) return make_error("session: demo_arch: " + parsed.error());
    arch = *parsed;
  }
  // Last check, first change: loading the model may fail (a moved file) and then nothing changes.
  if (Status st = app_use_source(app, source, path == s.ui.end() ? std::string() : path->second); !st)
    return make_error("session: " + st.error());
  // What the views remembered belongs to what was shown before; the session starts them afresh.
  app_reset_views(app);
  copy_session_fields(s, app);
  app.view = view;
  app.lang = lang;
  app.hangul.on = hangul_typing;
  if (auto it = s.ui.find("translate_sentence"); it != s.ui.end()) app.translate.text = it->second;
  app.translate.variant = translate_model;  // loaded when the view is shown (a missing file says so there)
  app.cmap = cmap;
  app.compare.mode = mode;
  if (auto it = s.ui.find("compare_sentence"); it != s.ui.end()) app.compare.sentence = it->second;
  const auto sentence_b = s.ui.find("sentence_b");
  app.sentence_b = sentence_b == s.ui.end() ? std::string() : sentence_b->second;
  if (auto it = s.ui.find("annotate"); it != s.ui.end()) app.annotate = it->second != "0";
  app.measure = measure;
  app.color_scale.kind = color_scale;
  app.first_aside = first_aside;
  app.ablation = std::move(ablation);
  if (app.source == ModelSource::attention) app.ablation.heads.clear();  // no model to switch heads off in
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
  // The demo's architecture last: shown at once when shipped or cached, else trained off the UI thread.
  if (arch && *arch != demo_shown_arch(app.retrain, source)) demo_retrain_request(app, DemoJob{source, *arch});
  return Ok{};
}

}  // namespace attnviz
