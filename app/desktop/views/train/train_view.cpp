// The Train view: train the coreference or the induction demo from scratch inside the app, off
// the UI thread. Settings, Start / Pause / Resume / Stop / Reset, saving the model and the status
// line; the tabs below are the run's curves and heatmaps (train_run.cpp) and a 1-head vs N-head
// pair (train_pair.cpp). Nothing here waits for training.
#include <algorithm>
#include <string>
#include <vector>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "shell/fonts.h"
#include "shell/panels.h"
#include "shell/shell.h"
#include "shell/view_registry.h"
#include "views/train/train_actions.h"
#include "views/train/train_parts.h"

namespace attnviz {

namespace {

// "Label [field]" as one unit that wraps as a whole; the value is clamped to [lo, hi].
void int_field(const char* label, const char* id, const char* tip, int& v, float width, int lo, int hi) {
  const float inner = ImGui::GetStyle().ItemInnerSpacing.x;
  train_flow(ImGui::CalcTextSize(label).x + inner + width);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  ImGui::SameLine(0, inner);
  ImGui::SetNextItemWidth(width);
  ImGui::InputInt(id, &v, 0, 0);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  v = std::clamp(v, lo, hi);
}

bool flow_button(const char* label, bool enabled, const char* tip = nullptr) {
  const ImGuiStyle& st = ImGui::GetStyle();
  train_flow(ImGui::CalcTextSize(label).x + st.FramePadding.x * 2);
  ImGui::BeginDisabled(!enabled);
  const bool pressed = ImGui::Button(label);
  ImGui::EndDisabled();
  if (tip && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tip);
  return pressed;
}

void settings_row(AppState& app, bool running) {
  TrainState& tv = app.train;
  TrainSettings& s = tv.settings;
  const Lang L = app.lang;
  const float fs = ImGui::GetFontSize();
  ImGui::BeginDisabled(running);
  const char* demos[] = {tr(L, Str::tr_demo_coref), tr(L, Str::tr_demo_induction)};
  float combo_w = 0;
  for (const char* d : demos) combo_w = std::max(combo_w, ImGui::CalcTextSize(d).x);
  combo_w += ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetFrameHeight();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::tr_demo));
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SetNextItemWidth(combo_w);
  if (ImGui::BeginCombo("##demo", demos[static_cast<int>(tv.demo)])) {
    for (DemoKind d : {DemoKind::coreference, DemoKind::induction})
      if (ImGui::Selectable(demos[static_cast<int>(d)], d == tv.demo) && d != tv.demo) train_choose_demo(tv, d);
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::tr_demo_tip));
  int_field(tr(L, Str::tr_seed), "##seed", tr(L, Str::tr_seed_tip), s.seed, fs * 3.5f, 0, 1 << 30);
  int_field(tr(L, Str::tr_heads), "##heads", tr(L, Str::tr_heads_tip), s.n_heads, fs * 2.2f, 1, 64);
  int_field("d_model", "##d_model", tr(L, Str::tr_d_model_tip), s.d_model, fs * 2.8f, 1, 1024);
  int_field(tr(L, Str::tr_max_steps), "##max_steps", tr(L, Str::tr_max_steps_tip), s.max_steps, fs * 3.5f, 1, 100000);
  int_field(tr(L, Str::tr_report_every), "##report", tr(L, Str::tr_report_every_tip), s.report_every, fs * 2.2f, 1, 1000);
  if (flow_button(tr(L, Str::tr_defaults), true, tr(L, Str::tr_defaults_tip))) tv.settings = train_defaults(tv.demo);
  ImGui::EndDisabled();
}

void buttons_row(AppState& app, const TrainSnapshot& s) {
  TrainState& tv = app.train;
  const Lang L = app.lang;
  ImGui::BeginDisabled(s.running);
  if (ImGui::Button(tr(L, Str::tr_start))) train_start(app);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr(L, Str::tr_start_tip));
  if (s.paused) {
    if (flow_button(tr(L, Str::tr_resume), true)) tv.runner.resume();
  } else if (flow_button(tr(L, Str::tr_pause), s.running)) {
    tv.runner.pause();
  }
  if (flow_button(tr(L, Str::tr_stop), s.running, tr(L, Str::tr_stop_tip))) tv.runner.stop();
  if (flow_button(tr(L, Str::tr_reset), s.running || !s.reports.empty() || !s.error.empty(), tr(L, Str::tr_reset_tip)))
    train_reset(app);
  const bool shown = app.source == ModelSource::trained && s.model;
  if (flow_button(tr(L, shown ? Str::tr_in_views : Str::tr_use_in_views), s.model && !shown, tr(L, Str::tr_use_tip)))
    train_use_in_views(app);
  // Saving asks for the path in a small popup, so the path field takes no row of its own.
  if (flow_button(tr(L, Str::tr_save), s.model != nullptr)) ImGui::OpenPopup("save_model");
  if (ImGui::BeginPopup("save_model")) {
    ImGui::TextUnformatted(tr(L, Str::tr_save_hint));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##save_path", &tv.save_path, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button(tr(L, Str::tr_save_button)) || enter) {
      train_save(app, tv.save_path);
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
}

void status_row(AppState& app, const TrainSnapshot& s) {
  const TrainState& tv = app.train;
  const Lang L = app.lang;
  const TrainStatusText st = train_status_text(app, s, tv.run_settings, tv.run_demo == DemoKind::coreference ? kCorefTarget : 0.0f);
  ImGui::TextColored(st.color, "%s", st.text.c_str());
  if (!s.reports.empty()) {
    const TrainProgress& p = s.reports.back();
    // Held-out accuracy only once it has been measured (the first evaluation comes after some reports).
    const bool evaluated = std::any_of(s.reports.begin(), s.reports.end(), [](const TrainProgress& r) { return r.evaluated; });
    const std::string texts[5] = {
        tr_format(L, Str::tr_step_of, p.step, tv.run_settings.max_steps),
        tr_format(L, Str::tr_speed, s.steps_per_second),
        tr_format(L, Str::tr_elapsed, p.seconds),
        tr_format(L, Str::tr_loss_value, static_cast<double>(p.loss)),
        tr_format(L, p.heldout_partial ? Str::tr_heldout_sample : Str::tr_heldout_value,
                  100.0 * static_cast<double>(p.heldout_accuracy)),
    };
    for (int i = 0; i < (evaluated ? 5 : 4); ++i) {
      const std::string item = "·  " + texts[i];
      train_flow(ImGui::CalcTextSize(item.c_str()).x);
      ImGui::TextUnformatted(item.c_str());
    }
  }
  if (!tv.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), tr(L, Str::tr_start_failed), tv.error.c_str());
  if (!tv.message.empty()) {
    if (tv.message_error) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), tr(L, Str::tr_save_failed), tv.message.c_str());
    else ImGui::TextDisabled(tr(L, Str::tr_saved), tv.message.c_str());
  }
}

}  // namespace

std::vector<ImVec2> train_loss_points(const std::vector<TrainProgress>& reports) {
  std::vector<ImVec2> out;
  for (const TrainProgress& p : reports) out.emplace_back(static_cast<float>(p.step), p.loss);
  return out;
}

std::vector<ImVec2> train_accuracy_points(const std::vector<TrainProgress>& reports) {
  std::vector<ImVec2> out;
  for (const TrainProgress& p : reports)
    if (p.evaluated) out.emplace_back(static_cast<float>(p.step), p.heldout_accuracy);
  return out;
}

float train_line_width() { return 2.0f * ui_scale(); }

void train_flow(float w) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right) ImGui::SameLine();
}

TrainStatusText train_status_text(const AppState& app, const TrainSnapshot& s, const TrainSettings& settings, float target) {
  const Lang L = app.lang;
  const int step = s.reports.empty() ? 0 : s.reports.back().step;
  std::string text;
  ImVec4 color(0.6f, 0.6f, 0.65f, 1);
  if (!s.error.empty()) {
    text = tr_format(L, Str::tr_status_error, s.error.c_str());
    color = ImVec4(1, 0.45f, 0.4f, 1);
  } else if (s.paused) {
    text = tr_format(L, Str::tr_status_paused, step);
    color = ImVec4(1, 0.8f, 0.35f, 1);
  } else if (s.running) {
    text = tr(L, s.reports.empty() ? Str::tr_status_starting : Str::tr_status_running);  // plain text, not a format
    color = ImVec4(0.45f, 0.85f, 1, 1);
  } else if (s.finished) {
    const float acc = s.reports.empty() ? 0.0f : s.reports.back().heldout_accuracy;
    const bool reached = step < settings.max_steps || (target > 0 && acc >= target);
    text = tr_format(L, reached ? Str::tr_status_reached : Str::tr_status_finished, step);
    color = reached ? ImVec4(0.45f, 0.9f, 0.45f, 1) : ImVec4(1, 0.8f, 0.35f, 1);
  } else if (s.stopped) {
    text = tr_format(L, Str::tr_status_stopped, step);
    color = ImVec4(1, 0.8f, 0.35f, 1);
  } else {
    text = tr(L, Str::tr_status_idle);
  }
  return TrainStatusText{text, color};
}

void train_view_draw(AppState& app, GuiResources& gui) {
  if (!view_window_begin(app, View::train)) return;  // training needs no trace
  TrainState& tv = app.train;
  const Lang L = app.lang;
  train_follow_probes(app);
  const TrainSnapshot s = tv.runner.snapshot();
  settings_row(app, s.running);
  buttons_row(app, s);
  status_row(app, s);
  ImGui::Spacing();
  if (ImGui::BeginTabBar("train_tabs")) {
    const auto flags = [&](TrainTab t) { return tv.tab_request && tv.tab == t ? ImGuiTabItemFlags_SetSelected : 0; };
    // "###" keeps each tab's id when the language changes its label, so the selection stays.
    const std::string run_label = std::string(tr(L, Str::tr_tab_run)) + "###run";
    const std::string pair_label = std::string(tr(L, Str::tr_tab_pair)) + "###pair";
    if (ImGui::BeginTabItem(run_label.c_str(), nullptr, flags(TrainTab::run))) {
      if (tv.tab == TrainTab::run) tv.tab_request = false;
      if (!tv.tab_request) tv.tab = TrainTab::run;
      train_run_tab(app, gui, s);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem(pair_label.c_str(), nullptr, flags(TrainTab::compare))) {
      if (tv.tab == TrainTab::compare) tv.tab_request = false;
      if (!tv.tab_request) tv.tab = TrainTab::compare;
      train_pair_tab(app, gui);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

}  // namespace attnviz
