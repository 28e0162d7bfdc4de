// The Translation view's Train tab: retrain the shown model (its scoring function, or the
// bottleneck) with another seed, number of heads, width or step budget, off the UI thread, watching
// the loss, the held-out exact-match rate and the best head's alignment as it learns; the result
// replaces the model in every tab, and the shipped one can be put back.
#include <algorithm>
#include <string>

#include <imgui.h>

#include "views/translate/translate_parts.h"
#include "widgets/draw.h"
#include "widgets/plot.h"

namespace attnviz {

namespace {

void setting(const char* label, int& value, int lo, int hi, bool enabled) {
  ImGui::SetNextItemWidth(tl_px(7));
  ImGui::BeginDisabled(!enabled);
  if (ImGui::InputInt(label, &value)) value = std::clamp(value, lo, hi);
  ImGui::EndDisabled();
}

void curves(const AppState& app, const TranslateTrainSnapshot& s) {
  const Lang L = app.lang;
  PlotSeries loss{tr(L, Str::tr_loss), IM_COL32(240, 170, 80, 255), {}};
  PlotSeries exact{tr(L, Str::tl_train_exact), IM_COL32(120, 220, 120, 255), {}};
  PlotSeries aligned{tr(L, Str::tl_train_aligned), IM_COL32(110, 170, 250, 255), {}};
  for (const TranslateTrainPoint& p : s.points) {
    loss.points.push_back(ImVec2(static_cast<float>(p.step), p.loss));
    if (p.exact >= 0) exact.points.push_back(ImVec2(static_cast<float>(p.step), p.exact));
    if (p.aligned >= 0) aligned.points.push_back(ImVec2(static_cast<float>(p.step), p.aligned));
  }
  const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
  const float h = std::max(tl_px(8), ImGui::GetContentRegionAvail().y - tl_px(1));
  PlotSpec a;
  a.id = "tl_train_loss";
  a.title = tr(L, Str::tr_loss_curve);
  a.x_label = tr(L, Str::tr_step_axis);
  a.series = {loss};
  a.x_max = static_cast<float>(std::min(s.max_steps, 100));
  a.y_max = 0;
  a.size = ImVec2(w, h);
  a.thickness = app.presentation ? 3.0f : 2.0f;
  train_plot(a);
  ImGui::SameLine();
  PlotSpec b = a;
  b.id = "tl_train_scores";
  b.title = tr(L, Str::tl_train_heldout);
  b.series = {exact, aligned};
  b.y_max = 1.04f;
  b.percent = true;
  b.target = TranslateTrainOptions{}.target_exact;
  b.target_label = tr_format(L, Str::tl_train_target, static_cast<double>(b.target) * 100.0);
  train_plot(b);
}

}  // namespace

void translate_train_tab(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  const TranslateTrainSnapshot s = t.train_job.snapshot();
  const bool running = t.train_job.busy();
  const auto& variants = translate_variants();
  text_wrapped(tr_format(L, Str::tl_train_intro, tr(L, variants[static_cast<size_t>(t.variant)].label)));
  TranslateTrainSettings& st = t.train_settings;
  setting(tr(L, Str::seed), st.seed, 0, 1000000, !running);
  ImGui::SameLine();
  setting(tr(L, Str::heads), st.n_heads, 1, 16, !running);
  ImGui::SameLine();
  setting("d_model", st.d_model, 8, 256, !running);
  ImGui::SameLine();
  setting(tr(L, Str::tl_train_steps), st.max_steps, 1, 20000, !running);
  if (!running) {
    if (ImGui::Button(tr(L, Str::tl_train_start))) {
      if (Status r = translate_train_start(app); !r) t.train_error = r.error();
    }
  } else {
    if (ImGui::Button(tr(L, Str::tl_train_stop))) t.train_job.stop();
    ImGui::SameLine();
    const int step = s.points.empty() ? 0 : s.points.back().step;
    ImGui::ProgressBar(static_cast<float>(step) / static_cast<float>(std::max(1, s.max_steps)), ImVec2(tl_px(14), 0),
                       tr_format(L, Str::tl_step_of, step, s.max_steps).c_str());
  }
  const TranslateModelSlot& slot = t.models[static_cast<size_t>(t.variant)];
  if (!slot.retrained.empty() && !running) {
    ImGui::SameLine();
    if (ImGui::Button(tr(L, Str::tl_train_shipped))) (void)translate_use_shipped(app);
  }
  ImGui::TextDisabled("%s", slot.retrained.empty() ? tr(L, Str::tl_train_is_shipped)
                                                   : tr_format(L, Str::tl_train_is_retrained, slot.retrained.c_str()).c_str());
  if (!t.train_result.empty()) text_wrapped(t.train_result);
  if (!t.train_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, tl_error_colour());
    text_wrapped(t.train_error);
    ImGui::PopStyleColor();
  }
  if (!s.points.empty()) curves(app, s);
}

}  // namespace attnviz
