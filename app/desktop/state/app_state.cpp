// app_update: the single place where edits become engine work and results become the view —
// including the Compare view's derived maps and every texture. Sessions map to and from AppState.
#include "state/app_state.h"

#include <algorithm>

#include "state/model_source.h"

namespace attnviz {

namespace {

constexpr const char* kViewIds[] = {"heads", "model", "lines", "compare", "steps", "stats", "coref", "train"};

// B's job for the chosen compare mode: A's job with one thing changed.
ComputeJob compare_job(const AppState& app, const ComputeJob& a) {
  ComputeJob b = a;
  switch (app.compare_mode) {
    case CompareMode::sentence_b: b.input.text = app.compare_sentence; break;
    case CompareMode::single_vs_multi:
      b.config.n_heads = 1;
      b.config.head_scores.clear();
      break;  // only for the sandbox: app_update does not ask a fixed model for it
    case CompareMode::masked_vs_unmasked:
      b.input.mask = MaskSpec{};
      if (!a.input.mask.any()) b.input.mask.causal = true;
      break;
    case CompareMode::scaled_vs_unscaled:
      b.config.score = a.config.score == ScoreKind::dot ? ScoreKind::scaled_dot : ScoreKind::dot;
      b.config.head_scores.clear();
      if (a.model) {  // the same trained weights, scored the other way
        auto m = std::make_shared<Model>(*a.model);
        m->config.score = m->config.score == ScoreKind::dot ? ScoreKind::scaled_dot : ScoreKind::dot;
        m->config.head_scores.clear();
        b.model = std::move(m);
      }
      break;
  }
  return b;
}

std::vector<const Mat*> all_heads(const Trace& t) {
  std::vector<const Mat*> maps;
  for (const LayerTrace& l : t.layers)
    for (const HeadTrace& h : l.attn.heads) maps.push_back(&h.weights);
  return maps;
}

uint64_t compare_key(const AppState& app) { return app.trace_version * 1024 + static_cast<uint64_t>(app.layer); }

void rebuild_compare(AppState& app) {
  CompareMaps& cm = app.compare;
  if (cm.key == compare_key(app)) return;
  cm = CompareMaps{};
  cm.key = compare_key(app);
  if (!app.trace || !app.trace_b) return;
  const Trace& A = *app.trace;
  const Trace& B = *app.trace_b;
  if (app.layer >= static_cast<int>(B.layers.size())) return;
  const auto& ha = A.layers[static_cast<size_t>(app.layer)].attn.heads;
  const auto& hb = B.layers[static_cast<size_t>(app.layer)].attn.heads;
  for (size_t h = 0; h < ha.size(); ++h) {
    cm.a.push_back(ha[h].weights);
    cm.a_titles.push_back("A · " + std::to_string(h + 1));
  }
  for (size_t h = 0; h < hb.size(); ++h) {
    cm.b.push_back(hb[h].weights);
    cm.b_titles.push_back("B · " + std::to_string(h + 1));
  }
  if (app.compare_mode == CompareMode::single_vs_multi) {
    Mat avg = Mat::Zero(ha[0].weights.rows(), ha[0].weights.cols());
    for (const HeadTrace& h : ha) avg += h.weights;
    avg /= static_cast<float>(ha.size());
    cm.a.push_back(avg);
    cm.a_titles.push_back("A · average");
    cm.diff.push_back(avg - hb[0].weights);
    cm.diff_titles.push_back("average – B");
    return;
  }
  if (A.n_queries() != B.n_queries() || A.n_keys() != B.n_keys()) {
    cm.note = "A has " + std::to_string(A.n_queries()) + " tokens and B " + std::to_string(B.n_queries()) +
              ": a difference map needs the same number of tokens";
    return;
  }
  for (size_t h = 0; h < std::min(ha.size(), hb.size()); ++h) {
    cm.diff.push_back(ha[h].weights - hb[h].weights);
    cm.diff_titles.push_back("A – B · " + std::to_string(h + 1));
  }
}

// While the views show the Train view's model, every new report replaces it: the heatmaps follow
// training as it happens.
void follow_training(AppState& app) {
  if (app.source != ModelSource::trained) return;
  TrainViewState& tv = app.train_view;
  const uint64_t v = tv.runner.version();
  if (v == tv.runner_seen) return;
  tv.runner_seen = v;
  auto model = tv.runner.snapshot().model;
  if (model && model != app.model) {
    app.model = std::move(model);
    app.dirty = true;
  }
}

void refresh_textures(AppState& app) {
  const int side = app.texture_side;
  if (app.trace) app.textures.update(app.trace_version, all_heads(*app.trace), app.cmap, 0.0f, 1.0f, side);
  if (app.trace_b) app.textures_b.update(app.trace_version, all_heads(*app.trace_b), app.cmap, 0.0f, 1.0f, side);
  std::vector<const Mat*> cmp;
  for (const Mat& m : app.compare.diff) cmp.push_back(&m);
  // Differences of weights lie in [-1, 1]: white is "no change".
  app.textures_cmp.update(app.compare.key, cmp, Colormap::diverging, -1.0f, 1.0f, side);
}

}  // namespace

void app_update(AppState& app) {
  if (app.dirty) {
    ComputeRequest req;
    req.id = ++app.posted_id;
    req.a.config = app.config;
    req.a.seed = app.seed;
    req.a.input.text = app.sentence;
    if (app_reads_pairs(app)) req.a.input.text_b = app.sentence_b;
    if (app.cross) req.a.input.source_text = app.source_sentence;
    req.a.input.mask = app.mask;
    if (app.source != ModelSource::sandbox) req.a.model = app.model;
    const bool fixed_heads = req.a.model && app.compare_mode == CompareMode::single_vs_multi;
    if (app_needs_b(app) && !fixed_heads) req.b = compare_job(app, req.a);
    app.worker.post(std::move(req));
    app.dirty = false;
  }
  static_assert(sizeof(kViewIds) / sizeof(kViewIds[0]) == sizeof(kAllViews) / sizeof(kAllViews[0]));
  if (auto result = app.worker.poll()) {
    app.shown_id = result->id;
    app.compute_seconds = result->seconds;
    if (result->trace) {
      app.trace = std::move(result->trace);
      app.trace_b = std::move(result->trace_b);
      app.error_b = result->error_b;
      app.error.clear();
      ++app.trace_version;
      app.lines_hidden.resize(static_cast<size_t>(app.trace->config.n_heads), 0);
    } else {
      app.error = result->error;
    }
  }
  // Selections may point past a smaller model or sentence (after an edit, a session, a script).
  if (app.trace) {
    const Trace& t = *app.trace;
    app.layer = std::clamp(app.layer, 0, static_cast<int>(t.layers.size()) - 1);
    app.head = std::clamp(app.head, 0, t.config.n_heads - 1);
    if (app.zoom_head >= t.config.n_heads) app.zoom_head = -1;
    if (app.query >= t.n_queries() || app.query < -1) app.query = -1;
    app.step = std::max(app.step, 0);
  }
  // The Compare view needs B: ask for it when the view opens or its mode changed.
  if (app_needs_b(app) && app.trace && !app.trace_b && !app_computing(app) && app.error_b.empty()) {
    if (app.source != ModelSource::sandbox && app.compare_mode == CompareMode::single_vs_multi)
      app.error_b = "1 head vs N heads rebuilds a sandbox model with one head; a trained model has fixed heads "
                    "(the Train view trains a 1-head and an N-head model side by side)";
    else
      app.dirty = true;
  }
  follow_training(app);
  app_poll_model_loader(app);
  rebuild_compare(app);
  refresh_textures(app);
}

bool app_needs_b(const AppState& app) {
  return app.view == View::compare || (app.view == View::coref && app.compare_mode == CompareMode::sentence_b);
}

bool app_computing(const AppState& app) {
  return app.shown_id != app.posted_id || app.worker.busy() || app.model_loader.busy();
}

bool app_reads_pairs(const AppState& app) {
  return app.source != ModelSource::sandbox && app.model && app.model->tokenizer &&
         app.model->tokenizer->kind_name() == "wordpiece";
}

unsigned app_head_texture(const AppState& app, int layer, int head) {
  if (!app.trace) return 0;
  return app.textures.texture(layer * app.trace->config.n_heads + head);
}

const char* view_id(View v) { return kViewIds[static_cast<size_t>(v)]; }

bool view_from_id(const std::string& id, View& out) {
  for (View v : kAllViews)
    if (id == view_id(v)) {
      out = v;
      return true;
    }
  return false;
}

Session app_capture_session(const AppState& app) {
  Session s;
  s.sentence = app.sentence;
  s.source_sentence = app.source_sentence;
  s.cross = app.cross;
  s.config = app.config;
  s.seed = app.seed;
  s.mask = app.mask;
  s.layer = app.layer;
  s.head = app.head;
  s.query = app.query;
  s.ui["view"] = view_id(app.view);
  s.ui["language"] = app.lang == Lang::ko ? "ko" : "en";
  s.ui["colormap"] = std::string(name_of(app.cmap));
  s.ui["compare_sentence"] = app.compare_sentence;
  s.ui["compare_mode"] = std::to_string(static_cast<int>(app.compare_mode));
  s.ui["annotate"] = app.annotate ? "1" : "0";
  // A model trained in the app lives only in memory (the Train view saves it as a file).
  const bool saved_source = app.source != ModelSource::trained;
  s.ui["model_source"] = source_id(saved_source ? app.source : ModelSource::sandbox);
  if (app.source == ModelSource::file) s.ui["model_path"] = app.model_path;
  if (!app.sentence_b.empty()) s.ui["sentence_b"] = app.sentence_b;
  return s;
}

Status app_apply_session(AppState& app, const Session& s) {
  // Validate the UI part completely before touching the state: a bad file changes nothing.
  View view = app.view;
  if (auto it = s.ui.find("view"); it != s.ui.end() && !view_from_id(it->second, view))
    return make_error("session: unknown view '" + it->second + "'");
  Lang lang = app.lang;
  if (auto it = s.ui.find("language"); it != s.ui.end()) {
    if (it->second != "en" && it->second != "ko") return make_error("session: unknown language '" + it->second + "'");
    lang = it->second == "ko" ? Lang::ko : Lang::en;
  }
  Colormap cmap = app.cmap;
  if (auto it = s.ui.find("colormap"); it != s.ui.end()) {
    auto c = colormap_from_name(it->second);
    if (!c || *c == Colormap::diverging) return make_error("session: unknown colour map '" + it->second + "'");
    cmap = *c;
  }
  CompareMode mode = app.compare_mode;
  if (auto it = s.ui.find("compare_mode"); it != s.ui.end()) {
    if (it->second.size() != 1 || it->second[0] < '0' || it->second[0] > '3')
      return make_error("session: unknown compare mode '" + it->second + "'");
    mode = static_cast<CompareMode>(it->second[0] - '0');
  }
  if (Status st = config_validate(s.config); !st) return make_error("session: " + st.error());
  ModelSource source = ModelSource::sandbox;
  if (auto it = s.ui.find("model_source"); it != s.ui.end() && (!source_from_id(it->second, source) || source == ModelSource::trained))
    return make_error("session: unknown model source '" + it->second + "'");
  const auto path = s.ui.find("model_path");
  if (source == ModelSource::file && path == s.ui.end()) return make_error("session: model_source file needs model_path");
  // Last check, first change: loading the model may fail (a moved file) and then nothing changes.
  if (Status st = app_use_source(app, source, path == s.ui.end() ? std::string() : path->second); !st)
    return make_error("session: " + st.error());
  app.sentence = s.sentence;
  app.source_sentence = s.source_sentence;
  app.cross = s.cross;
  app.config = s.config;
  app.seed = s.seed;
  app.mask = s.mask;
  app.layer = s.layer;
  app.head = s.head;
  app.query = s.query;
  app.view = view;
  app.lang = lang;
  app.cmap = cmap;
  app.compare_mode = mode;
  if (auto it = s.ui.find("compare_sentence"); it != s.ui.end()) app.compare_sentence = it->second;
  const auto sentence_b = s.ui.find("sentence_b");
  app.sentence_b = sentence_b == s.ui.end() ? std::string() : sentence_b->second;
  if (auto it = s.ui.find("annotate"); it != s.ui.end()) app.annotate = it->second != "0";
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
  return Ok{};
}

}  // namespace attnviz
