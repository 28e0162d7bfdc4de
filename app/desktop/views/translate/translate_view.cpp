// The Translation view: an English sentence of the demo's grammar, its Korean from a shipped
// encoder-decoder (demo:translate and its variants), and four tabs — the alignment matrix with the
// heads that make it, decoding step by step, the scoring functions side by side, and the bottleneck
// against attention by sentence length. The toolbar picks the model and the sentence; what is
// computed lives in translate_state.cpp.
#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "base/rng.h"
#include "shell/panels.h"
#include "shell/view_registry.h"
#include "views/translate/translate_parts.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

void toolbar(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::tl_model));
  ImGui::SameLine();
  const auto& variants = translate_variants();
  ImGui::SetNextItemWidth(tl_px(17));
  if (ImGui::BeginCombo("##tl_model", tr(L, variants[static_cast<size_t>(t.variant)].label))) {
    for (int v = 0; v < kTranslateVariants; ++v) {
      if (ImGui::Selectable(tr(L, variants[static_cast<size_t>(v)].label), v == t.variant)) {
        if (Status s = translate_set_variant(app, variants[static_cast<size_t>(v)].id); !s) t.error = s.error();
      }
    }
    ImGui::EndCombo();
  }
  const char* random = tr(L, Str::tl_random);
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::tl_english));
  ImGui::SameLine();
  const float random_w = button_width(random);
  ImGui::SetNextItemWidth(std::max(tl_px(10), ImGui::GetContentRegionAvail().x - random_w - ImGui::GetStyle().ItemSpacing.x));
  ImGui::InputText("##tl_text", &t.text);
  ImGui::SameLine();
  if (ImGui::Button(random)) {
    // A sentence of 1 to 3 clauses, drawn as the held-out sentences are (never the same twice in a row).
    const int clauses = static_cast<int>(t.random_draws % kTranslateMaxClauses) + 1;
    const auto pairs = translate_draw(seed_for(++t.random_draws, "translate view"), 1, clauses);
    if (!pairs.empty()) t.text = pairs[0].source_text();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::tl_random_tip));
}

void result_lines(AppState& app) {
  const Lang L = app.lang;
  const TranslateState& t = app.translate;
  if (!t.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, tl_error_colour());
    text_wrapped(tr_format(L, t.readout ? Str::tl_error_kept : Str::tl_error, t.error.c_str()));
    ImGui::PopStyleColor();
  }
  if (!t.readout) return;
  const TranslateReadout& r = *t.readout;
  ImGui::TextDisabled("%s", tr(L, Str::tl_korean));
  ImGui::SameLine();
  ImGui::SetWindowFontScale(1.35f);
  ImGui::TextUnformatted(translate_written(r.output).c_str());
  ImGui::SetWindowFontScale(1.0f);
  const std::string verdict = r.exact ? tr(L, Str::tl_exact) : tr_format(L, Str::tl_not_exact, r.pair.korean_text().c_str());
  same_line_or_wrap(ui_text_width(verdict));
  ImGui::TextColored(r.exact ? tl_right_colour() : tl_wrong_colour(), "%s", verdict.c_str());
  std::string facts = tr_format(L, Str::tl_gold_prob, std::exp(static_cast<double>(r.gold_logprob)) * 100.0);
  if (!r.finished) facts += " · " + std::string(tr(L, Str::tl_unfinished));
  if (!r.cross_off.heads.empty())
    facts += " · " + tr_format(L, Str::tl_heads_off, ablation_heads_label(r.cross_off.heads).c_str());
  ImGui::TextDisabled("%s", facts.c_str());
  if (!r.cross_off.heads.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton(tr(L, Str::tl_all_on))) app.translate.cross_off = Ablation{};
  }
}

void tabs(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  if (!ImGui::BeginTabBar("tl_tabs")) return;
  struct Tab {
    TranslateTab tab;
    Str title;
    void (*draw)(AppState&);
  };
  static constexpr Tab kTabs[] = {{TranslateTab::alignment, Str::tl_tab_alignment, translate_alignment_tab},
                                  {TranslateTab::steps, Str::tl_tab_steps, translate_steps_tab},
                                  {TranslateTab::scores, Str::tl_tab_scores, translate_scores_tab},
                                  {TranslateTab::bottleneck, Str::tl_tab_bottleneck, translate_bottleneck_tab},
                                  {TranslateTab::train, Str::tl_tab_train, translate_train_tab}};
  for (const Tab& tab : kTabs) {
    const std::string label = std::string(tr(L, tab.title)) + "###tl_tab_" + translate_tab_id(tab.tab);
    const ImGuiTabItemFlags flags = t.tab_request && t.tab == tab.tab ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
      if (!t.tab_request) t.tab = tab.tab;
      ImGui::BeginChild("tl_tab_body", ImVec2(0, 0), false);
      tab.draw(app);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
  }
  t.tab_request = false;
  ImGui::EndTabBar();
}

}  // namespace

void translate_view_draw(AppState& app, GuiResources& gui) {
  (void)gui;
  if (!view_window_begin(app, View::translate)) return;
  translate_refresh(app);
  ImGui::BeginChild("translate", ImVec2(0, 0), false);
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", tr(app.lang, Str::tl_title));
  toolbar(app);
  result_lines(app);
  if (app.translate.readout) tabs(app);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace attnviz
