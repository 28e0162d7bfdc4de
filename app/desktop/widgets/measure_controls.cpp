// One definition of each measure's name and tooltip, used wherever a measure can be chosen.
#include "widgets/measure_controls.h"

#include <imgui.h>

#include <string>

#include "state/answer_text.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {
Str measure_tip(AttentionMeasure m) {
  switch (m) {
    case AttentionMeasure::weights: return Str::measure_tip_weights;
    case AttentionMeasure::value_norm: return Str::measure_tip_value_norm;
    case AttentionMeasure::rollout: return Str::measure_tip_rollout;
  }
  return Str::measure_tip_weights;
}

void wrapped_tooltip(const char* text) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}
}  // namespace

void ablation_mode_combo(AppState& app) {
  const Lang L = app.lang;
  const char* names[] = {tr(L, Str::ablation_zero), tr(L, Str::ablation_mean)};
  int mode = app.ablation.mode == AblationMode::zero ? 0 : 1;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(names[mode]).x + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::Combo("##ablation_mode", &mode, names, 2)) {
    app.ablation.mode = mode == 0 ? AblationMode::zero : AblationMode::mean;
    app.dirty = true;
  }
  if (ImGui::IsItemHovered())
    wrapped_tooltip((std::string(tr(L, Str::ablation_mode)) + ": " + tr(L, Str::ablation_mode_tip)).c_str());
}

namespace {
float measure_box_width() { return ImGui::GetFontSize() * 7.5f; }  // the combo's box, without its label
}  // namespace

float measure_combo_width(const AppState& app) {
  return measure_box_width() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(tr(app.lang, Str::measure)).x;
}

void measure_combo(AppState& app) {
  const Lang L = app.lang;
  ImGui::SetNextItemWidth(measure_box_width());
  if (ImGui::BeginCombo(tr(L, Str::measure), measure_label(L, app.measure))) {
    for (AttentionMeasure m : kAllMeasures) {
      if (ImGui::Selectable(measure_label(L, m), m == app.measure)) app.measure = m;
      if (ImGui::IsItemHovered()) wrapped_tooltip(tr(L, measure_tip(m)));
    }
    ImGui::EndCombo();
  } else if (ImGui::IsItemHovered()) {
    wrapped_tooltip(tr(L, measure_tip(app.measure)));
  }
}

namespace {

const char* scale_label(Lang L, ColorScale kind) {
  switch (kind) {
    case ColorScale::linear: return tr(L, Str::scale_linear);
    case ColorScale::log: return tr(L, Str::scale_log);
    case ColorScale::power: return tr(L, Str::scale_sqrt);
  }
  return "?";
}

}  // namespace

void map_scale_controls(AppState& app) {
  const Lang L = app.lang;
  const float box = ImGui::GetFontSize() * 6.0f;
  same_line_or_wrap(box + ImGui::CalcTextSize(tr(L, Str::scale_label)).x + ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SetNextItemWidth(box);
  if (ImGui::BeginCombo(tr(L, Str::scale_label), scale_label(L, app.color_scale.kind))) {
    for (ColorScale k : {ColorScale::linear, ColorScale::log, ColorScale::power})
      if (ImGui::Selectable(scale_label(L, k), k == app.color_scale.kind)) app.color_scale.kind = k;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) wrapped_tooltip(tr(L, Str::scale_tip));
  same_line_or_wrap(checkbox_width(tr(L, Str::first_aside)));
  const bool can = measure_sets_first_aside(app.measure) && !app_words_shown(app);
  if (!can) ImGui::BeginDisabled();
  ImGui::Checkbox(tr(L, Str::first_aside), &app.first_aside);  // app_update rebuilds the maps
  if (!can) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) wrapped_tooltip(tr(L, can ? Str::first_aside_tip : Str::first_aside_off_tip));
}

void measure_error(const AppState& app) {
  if (!app.maps.error.empty()) {  // on a line of its own, wrapped: it is a sentence, not a label
    const Lang L = app.lang;
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.5f, 1));
    text_wrapped(tr_format(L, Str::measure_unavailable, app.maps.error.c_str()));
    ImGui::PopStyleColor();
  }
}

void answer_line(AppState& app) {
  const Lang L = app.lang;
  if (app.view == View::translate) {  // its own sentence and models: the side panels' answer is not about it
    ImGui::TextDisabled("%s", tr(L, Str::tl_own_models));
    return;
  }
  if (!app.trace) return;
  ImGui::TextDisabled("%s:", tr(L, Str::answer_label));
  ImGui::SameLine();
  const std::string line = answer_line_text(app.answer ? &*app.answer : nullptr, app.answer_error ? &*app.answer_error : nullptr,
                                            *app.trace, L);
  if (app.answer) {
    const ImVec4 colour = app.ablation.any() ? ImVec4(1.0f, 0.7f, 0.35f, 1) : ImVec4(0.6f, 0.9f, 0.6f, 1);
    ImGui::TextColored(colour, "%s", line.c_str());
  } else {
    ImGui::TextDisabled("%s", line.c_str());
  }
  if (!app.ablation.any()) return;  // the status bar lists the heads that are off
  // The controls first, so that a long answer never pushes them off the edge; the full model's
  // answer (its best token only) last, clipped by the window if it must be.
  ImGui::SameLine();
  ablation_mode_combo(app);
  ImGui::SameLine();
  if (ImGui::SmallButton(tr(L, Str::heads_all_on))) {
    app.ablation.heads.clear();
    app.dirty = true;
  }
  if (app.answer_full) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s %s", tr(L, Str::answer_heads_on), answer_text(*app.answer_full, *app.trace, L, 1).c_str());
  }
}

}  // namespace attnviz
