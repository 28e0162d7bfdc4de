// The Step-by-step view: the lecture. For one layer, head and query it walks through multi-head
// attention one step per click (◀ Back / Next ▶, space / shift+space, or the step list): a large
// title, a plain-language sentence, the shape line, then the step's numbers read from the Trace.
// The steps' bodies live in steps_body_*.cpp; this file holds the frame around them.
#include <string>

#include <imgui.h>

#include "shell/panels.h"
#include "shell/view_registry.h"
#include "model/lean_layers.h"
#include "views/steps/steps_body.h"
#include "widgets/formula.h"
#include "views/steps/steps_draw.h"
#include "views/steps/steps_format.h"
#include "views/steps/steps_text.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

// A combo exactly as wide as its preview: the label is inside the preview, so none follows it.
float combo_width(const std::string& preview) {
  return ImGui::CalcTextSize(preview.c_str()).x + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetFrameHeight();
}

void step_button(AppState& app, const char* label, int to, bool enabled) {
  ImGui::BeginDisabled(!enabled);
  if (ImGui::Button(label)) app.steps.step = lecture_step_clamp(to);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr(app.lang, Str::steps_keys_hint));
}

// ◀ Back, Next ▶ and the layer / head / query choosers, wrapping onto a new line when narrow.
void nav_row(AppState& app, const Trace& t, const LectureFocus& f) {
  const Lang L = app.lang;
  step_button(app, tr(L, Str::steps_back), app.steps.step - 1, app.steps.step > 0);
  ImGui::SameLine();
  step_button(app, tr(L, Str::steps_next), app.steps.step + 1, app.steps.step < kLectureStepCount - 1);

  const std::string layer_preview = std::string(tr(L, Str::layer)) + " " + std::to_string(f.layer + 1) + " / " + std::to_string(t.layers.size());
  steps_flow(combo_width(layer_preview));
  ImGui::SetNextItemWidth(combo_width(layer_preview));
  if (ImGui::BeginCombo("##layer", layer_preview.c_str())) {
    for (int l = 0; l < static_cast<int>(t.layers.size()); ++l)
      if (ImGui::Selectable(std::to_string(l + 1).c_str(), l == f.layer)) app.layer = l;
    ImGui::EndCombo();
  }
  const std::string head_preview = std::string(tr(L, Str::head)) + " " + std::to_string(f.head + 1) + " / " + std::to_string(t.config.n_heads);
  steps_flow(combo_width(head_preview));
  ImGui::SetNextItemWidth(combo_width(head_preview));
  if (ImGui::BeginCombo("##head", head_preview.c_str())) {
    for (int h = 0; h < t.config.n_heads; ++h) {
      std::string item = std::to_string(h + 1);
      if (t.head(f.layer, h).score != ScoreKind::scaled_dot) item += " · " + std::string(name_of(t.head(f.layer, h).score));
      if (ImGui::Selectable(item.c_str(), h == f.head)) app.head = h;
    }
    ImGui::EndCombo();
  }
  std::string query_preview = std::string(tr(L, Str::query)) + " " + steps_clip(t.queries[static_cast<size_t>(f.query)].text, 12) +
                              " #" + std::to_string(f.query);
  if (app.query < 0) query_preview += " " + std::string(tr(L, Str::steps_query_default));
  steps_flow(combo_width(query_preview));
  ImGui::SetNextItemWidth(combo_width(query_preview));
  if (ImGui::BeginCombo("##query", query_preview.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (int q = 0; q < t.n_queries(); ++q) {
      ImGui::PushID(q);
      const std::string item = steps_clip(t.queries[static_cast<size_t>(q)].text, 24) + "  #" + std::to_string(q);
      if (ImGui::Selectable(item.c_str(), q == f.query)) app.query = q;
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
}

std::string chip_label(Lang L, int s, bool compact, int current) {
  return compact && s != current ? std::to_string(s + 1) : std::to_string(s + 1) + " " + tr(L, kStepsShort[s]);
}

// The ten steps as chips: done ones plain, the current one in the accent colour, later ones dim.
// Named chips wrap onto a second row where one is too short (presentation mode at 1280 x 800); only
// where even two rows cannot hold them does every chip but the current one keep just its number.
void step_list(AppState& app) {
  const Lang L = app.lang;
  const ImVec4 accent = ImGui::ColorConvertU32ToFloat4(kStepsAccent);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float avail = ImGui::GetContentRegionAvail().x;
  int rows = 1;
  float row = 0;
  for (int s = 0; s < kLectureStepCount; ++s) {
    const float w = ImGui::CalcTextSize(chip_label(L, s, false, app.steps.step).c_str()).x + style.FramePadding.x * 2;
    if (row > 0 && row + style.ItemSpacing.x + w > avail) ++rows, row = 0;
    row += (row > 0 ? style.ItemSpacing.x : 0) + w;
  }
  const bool compact = rows > 2;
  for (int s = 0; s < kLectureStepCount; ++s) {
    const std::string label = chip_label(L, s, compact, app.steps.step);
    if (s > 0) steps_flow(ImGui::CalcTextSize(label.c_str()).x + style.FramePadding.x * 2);
    int pushed = 0;
    if (s == app.steps.step) {
      ImGui::PushStyleColor(ImGuiCol_Button, accent);
      ImGui::PushStyleColor(ImGuiCol_ButtonHovered, accent);
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(0, 0, 0, 255));
      pushed = 3;
    } else if (s > app.steps.step) {
      ImGui::PushStyleColor(ImGuiCol_Button, IM_COL32(255, 255, 255, 14));
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      pushed = 2;
    }
    ImGui::PushID(s);
    if (ImGui::Button(label.c_str())) app.steps.step = s;
    ImGui::PopID();
    ImGui::PopStyleColor(pushed);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, kStepsTitle[s]));
  }
}

void step_body(StepsView& v, LectureStep step) {
  switch (step) {
    case LectureStep::input: steps_body_input(v); break;
    case LectureStep::head_split: steps_body_split(v); break;
    case LectureStep::qkv: steps_body_qkv(v); break;
    case LectureStep::scores: steps_body_scores(v); break;
    case LectureStep::scale: steps_body_scale(v); break;
    case LectureStep::mask: steps_body_mask(v); break;
    case LectureStep::softmax: steps_body_softmax(v); break;
    case LectureStep::weighted_sum: steps_body_weighted_sum(v); break;
    case LectureStep::concat: steps_body_concat(v); break;
    case LectureStep::out_proj: steps_body_out(v); break;
  }
}

}  // namespace

void steps_view_draw(AppState& app, GuiResources& gui) {
  if (!view_begin(app, View::steps)) return;  // a trace always has layers and tokens
  const Lang L = app.lang;
  const Trace& t = *app.trace;
  app.steps.step = lecture_step_clamp(app.steps.step);  // space / shift+space may have stepped past an end
  const LectureFocus f = lecture_focus(t, app.layer, app.head, app.query);
  auto& cache = app.steps.scores;  // long inputs drop scores: recompute them once per head, not per frame
  if (cache.version != app.trace_version || cache.layer != f.layer || cache.head != f.head) {
    cache.scores = head_scores(t.head(f.layer, f.head), t.config);
    cache.layer_filled.reset();
    cache.layer_error.clear();
    if (trace_layers_lean(t) && app.trace_model) {  // a long input keeps the layer's input and heads only
      auto filled = trace_layer_for_lecture(*app.trace_model, t, f.layer, f.head);
      if (filled) cache.layer_filled = std::move(*filled);
      else cache.layer_error = filled.error();
    }
    cache.version = app.trace_version;
    cache.layer = f.layer;
    cache.head = f.head;
  }
  if (trace_layers_lean(t) && !cache.layer_filled) {
    text_wrapped(cache.layer_error.empty() ? std::string(tr(L, Str::steps_lean_no_model)) : cache.layer_error);
    ImGui::End();
    return;
  }
  const LayerTrace& layer = cache.layer_filled ? *cache.layer_filled : t.layers[static_cast<size_t>(f.layer)];
  const HeadTrace& head = cache.layer_filled ? layer.attn.heads[static_cast<size_t>(f.head)] : t.head(f.layer, f.head);
  const std::shared_ptr<const Mat> weights = app_head_weights(app, t, f.layer, f.head);  // alive while drawn
  StepsView v{app, gui, t, f, layer, head, cache.scores, *weights, app.presentation ? 3 : 4};

  nav_row(app, t, f);
  step_list(app);
  ImGui::Separator();
  const LectureStep step = lecture_step_at(app.steps.step);
  ImGui::PushFont(steps_large_font());
  ImGui::TextColored(ImColor(kStepsAccent), "%d / %d", app.steps.step + 1, kLectureStepCount);
  ImGui::SameLine();
  text_wrapped(std::string("· ") + tr(L, kStepsTitle[app.steps.step]));
  ImGui::PopFont();
  if (const std::string formula = steps_formula_markup(step, v.head.score); !formula.empty())
    formula_item(formula, ImGui::GetFontSize() * 1.6f, kStepsAccent);
  text_wrapped(tr(L, kStepsExplain[app.steps.step]));
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(140, 200, 255, 255));
  text_wrapped(std::string(tr(L, Str::steps_shape)) + ": " + steps_shape_text(v, step));
  ImGui::PopStyleColor();
  ImGui::Checkbox(tr(L, Str::steps_notation), &app.steps.notation);
  ImGui::SameLine(0, ImGui::GetFontSize());
  if (ImGui::GetContentRegionAvail().x < ImGui::GetFrameHeight() * 1.5f + ImGui::CalcTextSize(tr(L, Str::steps_shared_scale)).x)
    ImGui::NewLine();
  ImGui::Checkbox(tr(L, Str::steps_shared_scale), &app.steps.shared_scale);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::steps_shared_scale_tip));
  if (app.steps.notation) steps_notation(v);
  ImGui::Spacing();

  ImGui::BeginChild("##step_body", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  step_body(v, step);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace attnviz
