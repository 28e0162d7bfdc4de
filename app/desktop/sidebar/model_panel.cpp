// The Model & masks panel: which model (sandbox, trained demos, a file, the Train view's model);
// for the sandbox its architecture (only head counts that divide d_model are offered), seed, norm
// placement, positions, activation, scoring function, scaling, temperature; the masks; and, for a
// model with a vocabulary, the words it knows.
#include <algorithm>
#include <string>
#include <vector>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "shell/panels.h"
#include "state/app_state.h"
#include "state/model_source.h"
#include "state/source_text.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

constexpr int kModelSizes[] = {8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};

void size_section(AppState& app) {
  ModelConfig& c = app.config;
  const Lang L = app.lang;
  std::string preview = std::to_string(c.d_model);
  if (ImGui::BeginCombo(tr(L, Str::d_model), preview.c_str())) {
    for (int size : kModelSizes)
      if (ImGui::Selectable(std::to_string(size).c_str(), size == c.d_model)) {
        c.d_model = size;
        if (c.d_model % c.n_heads != 0) c.n_heads = 1;  // keep the config valid: 1 always divides
        app.dirty = true;
      }
    ImGui::EndCombo();
  }
  if (ImGui::BeginCombo(tr(L, Str::heads), std::to_string(c.n_heads).c_str())) {
    for (int h = 1; h <= std::min(c.d_model, 64); ++h)
      if (c.d_model % h == 0 && ImGui::Selectable((std::to_string(h) + "   (d_k = " + std::to_string(c.d_model / h) + ")").c_str(),
                                                  h == c.n_heads)) {
        c.n_heads = h;
        c.head_scores.clear();
        if (c.n_kv_heads > 0 && h % c.n_kv_heads != 0) c.n_kv_heads = 0;  // keep the config valid
        app.dirty = true;
      }
    ImGui::EndCombo();
  }
  // Grouped-query attention: fewer key/value heads than query heads, each shared by a group.
  const int kv = c.kv_heads();
  if (ImGui::BeginCombo(tr(L, Str::kv_heads), std::to_string(kv).c_str())) {
    for (int k = c.n_heads; k >= 1; --k)
      if (c.n_heads % k == 0 &&
          ImGui::Selectable(tr_format(L, k == c.n_heads ? Str::kv_heads_all : Str::kv_heads_shared, k, c.n_heads / k).c_str(),
                            k == kv)) {
        c.n_kv_heads = k == c.n_heads ? 0 : k;
        app.dirty = true;
      }
    ImGui::EndCombo();
  }
  if (ImGui::SliderInt(tr(L, Str::layers), &c.n_layers, 1, 12)) app.dirty = true;
  if (ImGui::InputInt(tr(L, Str::ffn_width), &c.d_ff, 64, 512)) {
    c.d_ff = std::clamp(c.d_ff, 0, 8192);  // 0: attention-only layers
    app.dirty = true;
  }
  if (c.d_ff == 0) ImGui::TextDisabled("%s", tr(L, Str::ffn_none));
  int seed = static_cast<int>(app.seed);
  if (ImGui::InputInt(tr(L, Str::seed), &seed)) {
    app.seed = static_cast<uint64_t>(std::max(seed, 0));
    app.dirty = true;
  }
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::reroll))) {
    app.seed = app.seed * 6364136223846793005ull % 1000003ull + 1;
    app.dirty = true;
  }
}

template <class E>
bool enum_combo(const char* label, E& value, std::initializer_list<std::pair<E, const char*>> options) {
  const char* preview = "";
  for (const auto& [v, name] : options)
    if (v == value) preview = name;
  bool changed = false;
  if (ImGui::BeginCombo(label, preview)) {
    for (const auto& [v, name] : options)
      if (ImGui::Selectable(name, v == value)) {
        changed = v != value;
        value = v;
      }
    ImGui::EndCombo();
  }
  return changed;
}

// The choices the sandbox and the coreference demo share, each one combo.
bool score_combo(Lang L, ScoreKind& score) {
  return enum_combo(tr(L, Str::scoring), score,
                    {{ScoreKind::scaled_dot, tr(L, Str::score_scaled_dot)},
                     {ScoreKind::dot, tr(L, Str::score_dot)},
                     {ScoreKind::general, tr(L, Str::score_general)},
                     {ScoreKind::additive, tr(L, Str::score_additive)}});
}
bool norm_combo(Lang L, NormPlacement& norm) {
  return enum_combo(tr(L, Str::norm), norm, {{NormPlacement::post, tr(L, Str::norm_post)}, {NormPlacement::pre, tr(L, Str::norm_pre)}});
}
// `rotary`: offer rotary positions too (the sandbox; training has no backward pass for them).
bool positions_combo(Lang L, PositionEncoding& positions, bool rotary) {
  const std::pair<PositionEncoding, const char*> added[] = {{PositionEncoding::sinusoidal, tr(L, Str::pos_sinusoidal)},
                                                            {PositionEncoding::learned, tr(L, Str::pos_learned)},
                                                            {PositionEncoding::none, tr(L, Str::pos_none)}};
  if (!rotary) return enum_combo(tr(L, Str::positions), positions, {added[0], added[1], added[2]});
  return enum_combo(tr(L, Str::positions), positions,
                    {added[0], added[1], added[2], {PositionEncoding::rotary, tr(L, Str::pos_rotary)}});
}

void architecture_section(AppState& app) {
  ModelConfig& c = app.config;
  const Lang L = app.lang;
  bool changed = false;
  changed |= norm_combo(L, c.norm);
  changed |= positions_combo(L, c.positions, true);
  changed |= enum_combo(tr(L, Str::activation), c.activation,
                        {{Activation::relu, "ReLU"}, {Activation::gelu, "GELU"}, {Activation::gelu_tanh, "GELU (tanh)"}});
  changed |= score_combo(L, c.score);
  // Scaling is the difference between the two dot-product kinds; the others never scale.
  const bool dot_kind = c.score == ScoreKind::scaled_dot || c.score == ScoreKind::dot;
  bool scaled = c.score == ScoreKind::scaled_dot;
  if (!dot_kind) ImGui::BeginDisabled();
  if (ImGui::Checkbox(tr(L, Str::scaling), &scaled)) {
    c.score = scaled ? ScoreKind::scaled_dot : ScoreKind::dot;
    changed = true;
  }
  if (!dot_kind) ImGui::EndDisabled();
  if (ImGui::SliderFloat(tr(L, Str::temperature), &c.temperature, 0.05f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic)) {
    c.temperature = std::clamp(c.temperature, kMinTemperature, kMaxTemperature);
    changed = true;
  }
  if (changed) {
    c.head_scores.clear();
    app.dirty = true;
  }
}

// A checkbox that switches an integer mask parameter between "off" and its last value.
bool toggled_int(const char* label, const char* value_label, int& value, int off, int on_default, int lo, int hi) {
  bool on = value != off;
  bool changed = ImGui::Checkbox(label, &on);
  if (changed) value = on ? on_default : off;
  if (on) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    changed |= ImGui::SliderInt(value_label, &value, lo, hi);
  }
  return changed;
}

void mask_section(AppState& app) {
  MaskSpec& m = app.mask;
  const Lang L = app.lang;
  bool changed = false;
  if (app_model_config(app).causal) {  // GPT: causal whatever the checkbox says, so show it fixed
    bool always = true;
    ImGui::BeginDisabled();
    ImGui::Checkbox(tr(L, Str::ck_causal_model), &always);
    ImGui::EndDisabled();
  } else {
    changed |= ImGui::Checkbox(tr(L, Str::mask_causal), &m.causal);
  }
  const int tokens = app.trace ? app.trace->real_keys : 12;
  ImGui::PushID("pad");
  changed |= toggled_int(tr(L, Str::mask_padding), tr(L, Str::pad_length), m.pad_to, 0, tokens + 4, 1, std::max(64, tokens + 32));
  ImGui::PopID();
  ImGui::PushID("window");
  changed |= toggled_int(tr(L, Str::mask_window), tr(L, Str::window_radius), m.window, -1, 2, 0, 32);
  ImGui::PopID();
  ImGui::PushID("stride");
  changed |= toggled_int(tr(L, Str::mask_strided), tr(L, Str::stride), m.stride, 0, 3, 1, 32);
  ImGui::PopID();
  ImGui::Text("%s: %zu", tr(L, Str::mask_custom), m.hidden_cells.size());
  ImGui::SameLine();
  if (ImGui::SmallButton(tr(L, Str::clear_custom))) {
    changed |= !m.hidden_cells.empty();
    m.hidden_cells.clear();
  }
  ImGui::TextDisabled("%s", tr(L, Str::custom_hint));
  if (changed) app.dirty = true;
}

Str source_label(ModelSource s) {
  switch (s) {
    case ModelSource::sandbox: return Str::src_sandbox;
    case ModelSource::demo_coref: return Str::src_coref;
    case ModelSource::demo_induction: return Str::src_induction;
    case ModelSource::demo_gather: return Str::src_gather;
    case ModelSource::file: return Str::src_file;
    case ModelSource::trained: return Str::src_trained;
    case ModelSource::attention: return Str::src_attention;
  }
  return Str::src_sandbox;
}

// The path field with its Open button, the progress bar while a model loads off the UI thread, and
// the recently opened models (one click opens one again).
void open_model_section(AppState& app) {
  const Lang L = app.lang;
  const ImGuiStyle& style = ImGui::GetStyle();
  const bool loading = app.model_loader.busy();
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(tr(L, Str::src_load)).x -
                          style.FramePadding.x * 2 - style.ItemSpacing.x);
  const bool enter = ImGui::InputTextWithHint("##model_path", tr(L, Str::src_path_hint), &app.model_path_edit,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if (loading) ImGui::BeginDisabled();
  if ((ImGui::Button(tr(L, Str::src_load)) || enter) && !loading) app_open_model(app, app.model_path_edit);
  if (loading) ImGui::EndDisabled();
  if (loading) {
    const float f = app.model_loader.progress();
    const std::string overlay =
        tr_format(L, Str::ck_loading, app.model_loader.path().c_str(), static_cast<int>(f * 100.0f + 0.5f));
    ImGui::ProgressBar(f, ImVec2(-1, 0), overlay.c_str());
  }
  if (app.recent_models.empty()) return;
  ImGui::TextDisabled("%s", tr(L, Str::ck_recent));
  for (size_t i = 0; i < app.recent_models.size(); ++i) {
    const std::string& path = app.recent_models[i];
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(path.c_str(), path == app.model_path && app.source == ModelSource::file) && !loading) {
      app.model_path_edit = path;
      app_open_model(app, path);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", path.c_str());
    ImGui::PopID();
  }
}

void source_section(AppState& app) {
  const Lang L = app.lang;
  // "File…" is chosen in the combo but loaded only by the Load button; until then it is pending.
  static_assert(std::size(kAllModelSources) == 7);
  const bool has_trained = app.train.runner.snapshot().model != nullptr;
  ModelSource shown = app.source;
  if (app.model_file_pending) shown = ModelSource::file;
  section_header(tr(L, Str::src_label));
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##source", tr(L, source_label(shown)))) {
    for (ModelSource s : kAllModelSources) {
      // An attention file is opened from the File menu or by dropping it; listed only while shown.
      if (s == ModelSource::attention && app.source != ModelSource::attention) continue;
      const bool enabled = (s != ModelSource::trained || has_trained) && s != ModelSource::attention;
      if (!enabled) ImGui::BeginDisabled();
      if (ImGui::Selectable(tr(L, source_label(s)), s == shown)) {
        app.model_file_pending = s == ModelSource::file;
        if (s == ModelSource::file) app.model_path_edit = app.model_path;
        else (void)app_use_source(app, s);  // a failure is shown from model_error below
      }
      if (!enabled) ImGui::EndDisabled();
    }
    ImGui::EndCombo();
  }
  if (shown == ModelSource::file || app.model_loader.busy()) open_model_section(app);
  if (!app.model_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    text_wrapped(tr_format(L, Str::src_error, app.model_error.c_str()));
    ImGui::PopStyleColor();
  }
  if (app.source == ModelSource::attention && app.attention) {
    const Trace& t = app.attention->trace;
    text_wrapped(
        tr_format(L, Str::attn_opened, app.model_path.c_str(), t.config.n_layers, t.config.n_heads, t.n_queries()));
    if (!app.attention->model.empty()) text_wrapped(app.attention->model);
    if (app.attention->cross_trace) text_wrapped(tr(L, Str::attn_has_cross));
    if (const auto& off = app.attention->off_rows; !off.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.35f, 1));
      text_wrapped(tr_format(L, Str::attn_rows_off, static_cast<int>(off.size()), off_rows_summary(off, 6).c_str()));
      ImGui::PopStyleColor();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped(tr(L, Str::attn_no_switch));
    ImGui::PopStyleColor();
    return;
  }
  if (app.source == ModelSource::sandbox || !app.model) return;
  const ModelConfig& c = app.model->config;
  text_wrapped(tr_format(L, Str::src_summary, c.d_model, c.n_heads, c.n_layers, c.d_ff,
                         model_source_text(app.model->source, L).c_str()));
  if (c.kv_heads() != c.n_heads) text_wrapped(tr_format(L, Str::src_gqa, c.n_heads, c.kv_heads()));
  if (app.model && !app.model->stored_as.empty()) text_wrapped(tr_format(L, Str::src_stored_as, app.model->stored_as.c_str()));
  if (app.model && app.model->vision_tensors_unread > 0)
    text_wrapped(tr_format(L, Str::src_vision_unread, app.model->vision_tensors_unread));
  if (c.head_dim > 0) text_wrapped(tr_format(L, Str::src_head_width, c.head_size(), c.q_dim(), c.d_model));
  if (c.positions == PositionEncoding::rotary || c.norm_kind == NormKind::rms_norm || c.gated_ffn || c.parallel_residual ||
      c.sliding_window > 0 || c.qk_norm || c.sublayer_norm || c.attn_softcap > 0 || c.logit_softcap > 0) {
    std::string parts;
    auto add = [&](const std::string& p) { parts += (parts.empty() ? "" : " · ") + p; };
    if (c.positions == PositionEncoding::rotary) {
      add(tr_format(L, Str::src_rope, static_cast<double>(c.rope.theta)));
      if (c.rotary_dims() < c.head_size()) add(tr_format(L, Str::src_rope_partial, c.rotary_dims(), c.head_size()));
      if (c.rope.scaling == RopeScaling::divisors)
        add(tr_format(L, Str::src_rope_divisors, static_cast<int>(c.rope.divisors.size())));
      else if (c.rope.scaling != RopeScaling::none)
        add(std::string(name_of(c.rope.scaling)) + " ×" + std::to_string(static_cast<int>(c.rope.factor)));
    }
    if (c.rope_local_theta > 0) add(tr_format(L, Str::src_rope_local, static_cast<double>(c.rope_local_theta)));
    if (c.norm_kind == NormKind::rms_norm) add("RMSNorm");
    if (c.qk_norm) add(tr(L, Str::src_qk_norm));
    if (c.sublayer_norm) add(tr(L, Str::src_sublayer_norm));
    if (c.gated_ffn) add(c.activation == Activation::silu ? "SwiGLU" : c.activation == Activation::relu ? "ReGLU" : "GeGLU");
    if (c.parallel_residual) add(tr(L, Str::src_parallel_residual));
    if (c.sliding_window > 0 && c.sliding_window_pattern > 0)
      add(tr_format(L, Str::src_window_pattern, c.sliding_window, c.sliding_window_pattern - 1, c.sliding_window_pattern));
    else if (c.sliding_window > 0)
      add(tr_format(L, Str::src_sliding_window, c.sliding_window));
    if (c.attn_softcap > 0) add(tr_format(L, Str::src_attn_softcap, static_cast<double>(c.attn_softcap)));
    if (c.logit_softcap > 0) add(tr_format(L, Str::src_logit_softcap, static_cast<double>(c.logit_softcap)));
    text_wrapped(parts);
  }
  if (const auto& tok = app.model->tokenizer)
    text_wrapped(tr_format(L, Str::ck_tokenizer, std::string(tok->kind_name()).c_str(), tok->vocab_size()));
  if (demo_is_live(app.source)) return;  // its architecture is live (demo_arch_section)
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped(tr(L, Str::src_fixed));
  ImGui::PopStyleColor();
}

// A trained demo's architecture (coreference or induction): every change shows that demo trained
// with it — shipped or cached at once, or trained off the UI thread (progress here and in the
// status bar; the views keep the previous model until it is ready).
void demo_arch_section(AppState& app) {
  const Lang L = app.lang;
  DemoArch a = demo_shown_arch(app.retrain, app.source);
  bool changed = false;
  if (ImGui::BeginCombo(tr(L, Str::d_model), std::to_string(a.d_model).c_str())) {
    for (int size : {16, 32, 64, 128, 256})
      if (ImGui::Selectable(std::to_string(size).c_str(), size == a.d_model)) {
        a.d_model = size;
        if (a.d_model % a.n_heads != 0) a.n_heads = 1;
        changed = true;
      }
    ImGui::EndCombo();
  }
  if (ImGui::BeginCombo(tr(L, Str::heads), std::to_string(a.n_heads).c_str())) {
    for (int h : {1, 2, 4, 8, 16})
      if (a.d_model % h == 0 && ImGui::Selectable(std::to_string(h).c_str(), h == a.n_heads)) {
        a.n_heads = h;
        changed = true;
      }
    ImGui::EndCombo();
  }
  changed |= ImGui::SliderInt(tr(L, Str::layers), &a.n_layers, 1, 4);
  if (ImGui::BeginCombo(tr(L, Str::ffn_width), std::to_string(a.d_ff).c_str())) {
    for (int f : {0, 64, 128, 256})
      if (ImGui::Selectable(std::to_string(f).c_str(), f == a.d_ff)) {
        a.d_ff = f;
        changed = true;
      }
    ImGui::EndCombo();
  }
  changed |= score_combo(L, a.score);
  changed |= norm_combo(L, a.norm);
  changed |= positions_combo(L, a.positions, false);
  if (changed) demo_retrain_request(app, DemoJob{app.source, a});
  const DemoRetrain& r = app.retrain;
  if (r.training) {
    const float f = demo_retrain_progress(app);
    ImGui::ProgressBar(f, ImVec2(-1, 0), tr_format(L, Str::rt_training, demo_job_label(r.running).c_str()).c_str());
  } else if (r.outcome) {
    ImGui::PushStyleColor(ImGuiCol_Text, r.outcome->reached() ? ImVec4(0.55f, 0.85f, 0.55f, 1) : ImVec4(1.0f, 0.6f, 0.4f, 1));
    text_wrapped(retrain_outcome_text(*r.outcome, L));
    ImGui::PopStyleColor();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped(tr(L, app.source == ModelSource::demo_induction ? Str::rt_hint_induction : Str::rt_hint));
  ImGui::PopStyleColor();
}

// The words a trained model knows, as buttons that add the word to the sentence.
void vocab_section(AppState& app) {
  if (app.source == ModelSource::sandbox || !app.model || app.model->vocab.empty()) return;
  const Lang L = app.lang;
  const auto& vocab = app.model->vocab;
  const std::string title = tr_format(L, Str::vocab_title, static_cast<int>(vocab.size()));
  ImGui::SetNextItemOpen(app.vocab_open);
  app.vocab_open = ImGui::CollapsingHeader(title.c_str());
  if (!app.vocab_open) return;
  text_wrapped(tr(L, Str::vocab_hint));
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (size_t i = 0; i < vocab.size(); ++i) {
    const std::string& w = vocab[i];
    if (w.size() > 2 && w.front() == '[' && w.back() == ']') continue;  // [PAD], [UNK], [CLS]: not typed
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton(w.c_str())) {
      const bool glue = w == "." || w == "," || w == "'" || app.sentence.empty() || app.sentence.back() == ' ';
      app.sentence += (glue ? "" : " ") + w;
      app.dirty = true;
    }
    ImGui::PopID();
    const float next = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x +
                       (i + 1 < vocab.size() ? ImGui::CalcTextSize(vocab[i + 1].c_str()).x : 0) +
                       ImGui::GetStyle().FramePadding.x * 2;
    if (i + 1 < vocab.size() && next < right) ImGui::SameLine();
  }
}

}  // namespace

void panel_model(AppState& app) {
  // "###" keeps the window's id (and its scroll) when the language changes the title.
  const std::string title = std::string(tr(app.lang, Str::panel_model)) + "###panel_model";
  if (!ImGui::Begin(title.c_str(), nullptr, kPanelWindowFlags)) {
    ImGui::End();
    return;
  }
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
  source_section(app);
  if (app.source == ModelSource::sandbox) {
    section_header(tr(app.lang, Str::model_size));
    size_section(app);
    architecture_section(app);
  }
  if (demo_is_live(app.source)) {
    section_header(tr(app.lang, Str::model_size));
    demo_arch_section(app);
  }
  if (app.source != ModelSource::attention) {  // a file's weights were masked (or not) when they were saved
    section_header(tr(app.lang, Str::masks));
    mask_section(app);
  }
  ImGui::PopItemWidth();
  vocab_section(app);
  ImGui::End();
}

}  // namespace attnviz
