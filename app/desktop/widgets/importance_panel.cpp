// Cells are coloured by the drop over the largest drop (magma), with the value printed; a switched-
// off head is hatched, a head whose removal changes the answer is marked with a star.
#include "widgets/importance_panel.h"

#include <algorithm>
#include <string>
#include <vector>

#include <imgui.h>

#include <imgui_stdlib.h>

#include "state/answer_text.h"
#include "widgets/draw.h"
#include "widgets/measure_controls.h"
#include "widgets/value_grid.h"
#include "widgets/data_export_button.h"

namespace attnviz {

namespace {

void grid(AppState& app, const ImportanceGrid& g) {
  const Lang L = app.lang;
  ValueGrid hg;
  hg.id = "importance_grid";
  hg.values = g.drop;
  hg.best_row = g.best_layer;
  hg.best_column = g.best_head;
  hg.hatched = &app.ablation;
  for (size_t l = 0; l < g.drop.size(); ++l)
    for (size_t h = 0; h < g.drop[l].size(); ++h) {
      // A star where switching that head off alone changes the answer.
      hg.texts.push_back(grid_value_text(g.drop[l][h], 3) + (g.flips[l][h] ? "*" : ""));
      hg.marks.push_back(g.flips[l][h] ? "*" : "");
    }
  const ValueGridHit hit = value_grid(L, hg);
  if (hit.clicked) app_toggle_head(app, hit.row, hit.column);
  if (hit.row >= 0 && !hit.clicked)
    ImGui::SetTooltip("%s %d · %s %d\n%.6f\n%s", tr(L, Str::layer), hit.row + 1, tr(L, Str::head), hit.column + 1,
                      static_cast<double>(g.drop[static_cast<size_t>(hit.row)][static_cast<size_t>(hit.column)]),
                      tr(L, app.ablation.has(hit.row, hit.column) ? Str::head_on_tip : Str::head_off_tip));
}

// The set's mean grid: "mean [answers changed]" in each cell, mean ± spread on hover; a click lists
// the sentences that head matters for, each one a click away from the sentence box.
void set_grid(AppState& app, const ImportanceSetGrid& g) {
  const Lang L = app.lang;
  ImportanceSetState& s = app.importance_set;
  ValueGrid hg;
  hg.id = "importance_set_grid";
  hg.values = g.mean;
  hg.best_row = g.best_layer;
  hg.best_column = g.best_head;
  hg.selected_row = s.cell_layer;
  hg.selected_column = s.cell_head;
  hg.hatched = &app.ablation;
  for (size_t l = 0; l < g.mean.size(); ++l)
    for (size_t h = 0; h < g.mean[l].size(); ++h) {
      hg.texts.push_back(grid_value_text(g.mean[l][h], 3) + " [" + std::to_string(g.answer_changes[l][h]) + "]");
      hg.marks.push_back(g.answer_changes[l][h] > 0 ? "*" : "");
    }
  const ValueGridHit hit = value_grid(L, hg);
  if (hit.clicked) {
    s.cell_layer = hit.row;
    s.cell_head = hit.column;
  }
  if (hit.row >= 0 && !hit.clicked) {
    const auto l = static_cast<size_t>(hit.row), h = static_cast<size_t>(hit.column);
    ImGui::SetTooltip("%s", tr_format(L, Str::imp_set_cell_tip, hit.row + 1, hit.column + 1, static_cast<double>(g.mean[l][h]),
                                      static_cast<double>(g.spread[l][h]), g.answer_changes[l][h], static_cast<int>(g.sentences.size()))
                                .c_str());
  }
  if (g.best_layer >= 0) {
    const auto l = static_cast<size_t>(g.best_layer), h = static_cast<size_t>(g.best_head);
    ImGui::TextUnformatted(tr_format(L, Str::imp_set_best, g.best_layer + 1, g.best_head + 1, static_cast<double>(g.mean[l][h]),
                                     static_cast<double>(g.spread[l][h]), g.answer_changes[l][h], static_cast<int>(g.sentences.size()))
                               .c_str());
  }
  data_export_button(app, DataPanel::importance_set);
  if (s.cell_layer < 0) {
    ImGui::TextDisabled("%s", tr(L, Str::imp_set_click));
    return;
  }
  // The sentences the clicked head matters for: a drop of at least 0.1, the largest first.
  const std::vector<int> which = importance_set_sentences_for(g, s.cell_layer, s.cell_head, 0.1f);
  section_header(tr_format(L, Str::imp_set_for_head, s.cell_layer + 1, s.cell_head + 1, static_cast<int>(which.size()),
                           static_cast<int>(g.sentences.size()))
                     .c_str());
  const size_t shown = std::min<size_t>(which.size(), 12);
  for (size_t i = 0; i < shown; ++i) {
    const auto k = static_cast<size_t>(which[i]);
    const ImportanceGrid& one = g.per_sentence[k];
    const auto l = static_cast<size_t>(s.cell_layer), h = static_cast<size_t>(s.cell_head);
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton(tr(L, Str::imp_set_use))) {
      app.sentence = g.sentences[k].text;
      app.dirty = true;
    }
    ImGui::SameLine();
    ImGui::Text("%.3f%s  %s", static_cast<double>(one.drop[l][h]), one.flips[l][h] ? "*" : " ", g.sentences[k].text.c_str());
    ImGui::PopID();
  }
  if (which.size() > shown) ImGui::TextDisabled("%s", tr_format(L, Str::imp_set_more, static_cast<int>(which.size() - shown)).c_str());
}

void set_section(AppState& app) {
  const Lang L = app.lang;
  ImportanceSetState& s = app.importance_set;
  if (ImGui::Button(tr(L, Str::imp_set_demo))) importance_set_use_demo(app);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::imp_set_demo_tip));
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::imp_set_pairs))) importance_set_use_minimal_pairs(app);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::imp_set_pairs_tip));
  const std::vector<const PresetSet*> presets = importance_set_presets(app);
  if (!presets.empty()) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(button_width(tr(L, Str::imp_set_preset)) + ImGui::GetFrameHeight());
    if (ImGui::BeginCombo("##preset_set", tr(L, Str::imp_set_preset))) {
      for (const PresetSet* p : presets) {
        const std::string name = tr_format(L, Str::imp_set_preset_item, (L == Lang::ko ? p->name_ko : p->name_en).c_str(),
                                           static_cast<int>(p->sentences.size()));
        if (ImGui::Selectable(name.c_str(), s.source == "preset:" + p->id)) (void)importance_set_use_preset(app, p->id);
      }
      ImGui::EndCombo();
    }
  }
  ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - button_width(tr(L, Str::imp_set_open)) - 8));
  ImGui::InputText("##set_path", &s.file_path_edit);
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::imp_set_open))) {
    if (Status st = importance_set_load_file(app, s.file_path_edit); !st) s.error = st.error();
  }
  if (!s.sentences.empty()) {
    const std::string source = importance_set_source_name(app, L);
    ImGui::TextDisabled("%s", tr_format(L, Str::imp_set_chosen, static_cast<int>(s.sentences.size()), source.c_str()).c_str());
    if (s.job.busy()) {
      ImGui::TextDisabled("%s", tr_format(L, Str::imp_set_running, static_cast<int>(s.sentences.size())).c_str());
    } else if (ImGui::Button(tr(L, Str::imp_set_measure))) {
      if (Status st = importance_set_start(app); !st) s.error = st.error();
    }
  }
  if (!s.error.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(1, 0.6f, 0.5f, 1), "%s", s.error.c_str());
    ImGui::PopTextWrapPos();
  }
  if (const ImportanceSetGrid* g = importance_set_shown(app)) {
    ImGui::TextUnformatted(tr_format(L, Str::imp_set_title, static_cast<int>(g->sentences.size()),
                                     g->mode == AblationMode::zero ? tr(L, Str::ablation_zero) : tr(L, Str::ablation_mean))
                               .c_str());
    set_grid(app, *g);
  }
}

}  // namespace

void importance_panel(AppState& app) {
  const Lang L = app.lang;
  if (app.trace && app.trace->weights_only) {  // it runs the model once per head: there is none
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr(L, Str::attn_no_importance));
    ImGui::PopTextWrapPos();
    return;
  }
  // One sentence, or a set of them (what holds for one sentence may hold for no other).
  int scope = app.importance_set.scope == ImportanceScope::set ? 1 : 0;
  ImGui::RadioButton(tr(L, Str::imp_scope_sentence), &scope, 0);
  ImGui::SameLine();
  ImGui::RadioButton(tr(L, Str::imp_scope_set), &scope, 1);
  app.importance_set.scope = scope == 1 ? ImportanceScope::set : ImportanceScope::sentence;
  if (scope == 1) {
    set_section(app);
    return;
  }
  const ImportanceGrid* g = app_importance(app);
  if (ImGui::Button(tr(L, Str::importance_button))) app_start_importance(app);
  ImGui::SameLine();
  ablation_mode_combo(app);
  if (app.importance.busy()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr(L, Str::importance_running));
    return;
  }
  const auto& r = app.importance_result;
  if (r && r->trace_version == app.trace_version && r->error) {
    ImGui::TextColored(ImVec4(1, 0.6f, 0.5f, 1), "%s", tr_format(L, Str::answer_none, no_answer_text(*r->error, L).c_str()).c_str());
    return;
  }
  if (!g) return;
  ImGui::SameLine();
  ImGui::TextDisabled("%.0f ms", r->seconds * 1000.0);
  ImGui::TextUnformatted(tr_format(L, Str::importance_title, g->mode == AblationMode::zero ? tr(L, Str::ablation_zero)
                                                                                           : tr(L, Str::ablation_mean)).c_str());
  ImGui::TextDisabled("%s", tr_format(L, Str::importance_answer, answer_text(g->answer, *app.trace, L).c_str()).c_str());
  grid(app, *g);
  if (g->best_layer >= 0)
    ImGui::TextUnformatted(tr_format(L, Str::importance_best, g->best_layer + 1, g->best_head + 1,
                                     static_cast<double>(g->drop[static_cast<size_t>(g->best_layer)][static_cast<size_t>(g->best_head)]))
                               .c_str());
  // The * legend only when a cell carries one; otherwise that no head alone decides.
  const Str legend = importance_changes_answer(*g) ? Str::importance_flip : Str::importance_no_flip;
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s  %s", tr(L, legend), tr(L, Str::importance_tip));
  ImGui::PopTextWrapPos();
}

}  // namespace attnviz
