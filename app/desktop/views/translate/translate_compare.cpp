// The Translation view's comparisons: the sentence through every shipped scoring function side by
// side (each model's best aligning head on this sentence, its translation and how many content
// tokens that head aligns), and the bottleneck against attention — exact-match rate by sentence
// length on held-out sentences, measured off the UI thread when the tab is first opened.
#include <algorithm>
#include <string>

#include <imgui.h>

#include "views/translate/translate_parts.h"
#include "widgets/draw.h"
#include "widgets/plot.h"

namespace attnviz {

namespace {

void translation_line(const AppState& app, const TranslateReadout& r) {
  const Lang L = app.lang;
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x);
  ImGui::TextColored(r.exact ? tl_right_colour() : tl_wrong_colour(), "%s %s", r.exact ? "○" : "×", translate_written(r.output).c_str());
  ImGui::PopTextWrapPos();
  (void)L;
}

}  // namespace

void translate_scores_tab(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  text_wrapped(tr(L, Str::tl_scores_intro));
  const auto& variants = translate_variants();
  int shown = 0;
  for (int v = 0; v < kTranslateVariants; ++v) shown += v != kTranslateBottleneck;
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
  const float w = (ImGui::GetContentRegionAvail().x - gap * static_cast<float>(shown - 1)) / static_cast<float>(shown);
  const float h = ImGui::GetContentRegionAvail().y;
  bool first = true;
  for (int v = 0; v < kTranslateVariants; ++v) {
    if (v == kTranslateBottleneck) continue;
    if (!first) ImGui::SameLine(0, gap);
    first = false;
    ImGui::PushID(v);
    ImGui::BeginChild("tl_score_column", ImVec2(w, h), false);
    section_header(tr(L, variants[static_cast<size_t>(v)].label));
    const auto& side = t.side[static_cast<size_t>(v)];
    const TranslateModel* m = t.models[static_cast<size_t>(v)].model.get();
    if (!side || !m) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(tl_wrong_colour(), "%s", t.side_error[static_cast<size_t>(v)].c_str());
      ImGui::PopTextWrapPos();
    } else {
      translation_line(app, *side);
      const int best = side->best_head, NH = m->arch.n_heads;
      if (best >= 0) {
        const std::string name = "L" + std::to_string(best / NH + 1) + " H" + std::to_string(best % NH + 1);
        ImGui::TextDisabled("%s", tr_format(L, Str::tl_head_aligned, name.c_str(),
                                            static_cast<double>(side->head_aligned[static_cast<size_t>(best)]) * 100.0).c_str());
        AlignmentDraw d;
        d.model = m;
        d.readout = &*side;
        d.head = best;
        d.size = ImVec2(w, ImGui::GetContentRegionAvail().y);
        d.id = "tl_score_alignment";
        alignment_matrix(app, d);
      }
    }
    ImGui::EndChild();
    ImGui::PopID();
  }
}

void translate_bottleneck_tab(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  translate_curve_start(app);
  text_wrapped(tr(L, Str::tl_bottleneck_intro));
  // This sentence, both ways.
  const auto& a = t.side[0];
  const auto& b = t.side[static_cast<size_t>(kTranslateBottleneck)];
  if (a && b) {
    ImGui::TextDisabled("%s", tr(L, Str::tl_with_attention));
    ImGui::SameLine();
    translation_line(app, *a);
    ImGui::TextDisabled("%s", tr(L, Str::tl_variant_bottleneck));
    ImGui::SameLine();
    translation_line(app, *b);
  }
  ImGui::Spacing();
  if (!t.curve_error.empty()) {
    ImGui::TextColored(tl_wrong_colour(), "%s", t.curve_error.c_str());
    return;
  }
  if (!t.curve) {
    ImGui::TextDisabled("%s", tr_format(L, Str::tl_curve_measuring, t.curve_per_clause_count * kTranslateMaxClauses).c_str());
    return;
  }
  const TranslateLengthCurve& c = *t.curve;
  PlotSpec plot;
  plot.id = "tl_curve";
  plot.title = tr(L, Str::tl_curve_title);
  plot.x_label = tr(L, Str::tl_curve_x);
  PlotSeries attention{tr(L, Str::tl_with_attention), IM_COL32(120, 220, 120, 255), {}};
  PlotSeries bottleneck{tr(L, Str::tl_variant_bottleneck), IM_COL32(240, 140, 60, 255), {}};
  for (const TranslateLengthBin& bin : c.bins) {
    if (bin.sentences == 0) continue;
    const float x = 0.5f * static_cast<float>(bin.shortest + bin.longest), n = static_cast<float>(bin.sentences);
    attention.points.push_back(ImVec2(x, static_cast<float>(bin.exact_attention) / n));
    bottleneck.points.push_back(ImVec2(x, static_cast<float>(bin.exact_bottleneck) / n));
  }
  plot.series = {attention, bottleneck};
  plot.percent = true;
  plot.y_min = 0;
  plot.y_max = 1.04f;  // room above 100% for the attention model's line
  plot.thickness = app.presentation ? 3.0f : 2.0f;
  const float table_h = ImGui::GetTextLineHeightWithSpacing() * 6;
  plot.size = ImVec2(ImGui::GetContentRegionAvail().x, std::max(tl_px(10), ImGui::GetContentRegionAvail().y - table_h));
  train_plot(plot);
  // By clauses, the figures: exact-match rates of both models.
  if (ImGui::BeginTable("tl_by_clauses", 5, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("");
    for (int k = 1; k <= kTranslateMaxClauses; ++k) ImGui::TableSetupColumn(tr_format(L, Str::tl_clauses, k).c_str());
    ImGui::TableSetupColumn(tr(L, Str::tl_all_sentences));
    ImGui::TableHeadersRow();
    const auto row = [&](const char* name, const int* exact) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
      for (int k : {1, 2, 3, 0}) {
        ImGui::TableNextColumn();
        ImGui::Text("%.1f%%", c.sentences[k] ? 100.0 * exact[k] / c.sentences[k] : 0.0);
      }
    };
    row(tr(L, Str::tl_with_attention), c.exact_attention);
    row(tr(L, Str::tl_variant_bottleneck), c.exact_bottleneck);
    ImGui::EndTable();
  }
  ImGui::TextDisabled("%s", tr_format(L, Str::tl_curve_note, c.sentences[0], c.seconds).c_str());
}

}  // namespace attnviz
