// Cells are coloured on the diverging map from -1 to 1 (white: nothing comes back), the effect
// printed with two decimals; the cell that brings back most is outlined.
#include "widgets/patching_panel.h"

#include <string>

#include <imgui.h>

#include "widgets/draw.h"
#include "widgets/value_grid.h"
#include "widgets/data_export_button.h"

namespace attnviz {

namespace {

void result_grid(AppState& app, const PatchingRun& run) {
  const Lang L = app.lang;
  const PatchResult& r = *run.result;
  const bool by_head = r.by == PatchBy::head;
  if (r.metric == PatchMetric::log_prob_diff)
    ImGui::TextUnformatted(tr_format(L, Str::patch_metric_coref, r.clean_referent_text.c_str(), r.corrupt_referent_text.c_str(),
                                     static_cast<double>(r.clean), static_cast<double>(r.corrupt))
                               .c_str());
  else
    ImGui::TextUnformatted(tr_format(L, Str::patch_metric_lm, r.answer_text.c_str(), r.wrong_text.c_str(),
                                     static_cast<double>(r.clean), static_cast<double>(r.corrupt))
                               .c_str());
  ValueGrid g;
  g.id = by_head ? "patch_heads" : "patch_positions";
  g.values = r.effect;
  g.diverging = true;
  g.selected_row = app.patching.cell_row;
  g.selected_column = app.patching.cell_column;
  float best = -1e30f;
  for (size_t l = 0; l < r.effect.size(); ++l)
    for (size_t c = 0; c < r.effect[l].size(); ++c) {
      g.texts.push_back(grid_value_text(r.effect[l][c], 2));
      g.marks.push_back("");
      if (r.effect[l][c] > best) {
        best = r.effect[l][c];
        g.best_row = static_cast<int>(l);
        g.best_column = static_cast<int>(c);
      }
    }
  const auto differs = [&](size_t t) {
    return t < run.clean_tokens.size() && t < run.corrupt_tokens.size() && run.clean_tokens[t] != run.corrupt_tokens[t];
  };
  if (!by_head)
    for (size_t t = 0; t < run.corrupt_tokens.size(); ++t) g.column_labels.push_back(run.corrupt_tokens[t] + (differs(t) ? "*" : ""));
  const ValueGridHit hit = value_grid(L, g);
  if (hit.clicked) {
    app.patching.cell_row = hit.row;
    app.patching.cell_column = hit.column;
  }
  if (hit.row >= 0) {
    const auto l = static_cast<size_t>(hit.row), c = static_cast<size_t>(hit.column);
    const double e = r.effect[l][c], m = r.patched[l][c];
    const char* answer = r.patched_answer[l][c].c_str();
    if (by_head)
      ImGui::SetTooltip("%s", tr_format(L, Str::patch_cell_tip_head, hit.row + 1, hit.column + 1, e, m, answer).c_str());
    else
      ImGui::SetTooltip("%s", tr_format(L, Str::patch_cell_tip_position, hit.row + 1, hit.column, run.clean_tokens[c].c_str(),
                                        run.corrupt_tokens[c].c_str(), e, m, answer)
                                  .c_str());
  }
  if (g.best_row >= 0) {
    const auto l = static_cast<size_t>(g.best_row), c = static_cast<size_t>(g.best_column);
    ImGui::PushTextWrapPos(0);
    if (by_head)
      ImGui::TextUnformatted(tr_format(L, Str::patch_best_head, g.best_row + 1, g.best_column + 1, static_cast<double>(best),
                                       r.patched_answer[l][c].c_str())
                                 .c_str());
    else
      ImGui::TextUnformatted(tr_format(L, Str::patch_best_position, g.best_row + 1, run.corrupt_tokens[c].c_str(), g.best_column,
                                       static_cast<double>(best), r.patched_answer[l][c].c_str())
                                 .c_str());
    if (!by_head) ImGui::TextDisabled("%s", tr(L, Str::patch_columns));
    ImGui::PopTextWrapPos();
  }
}

}  // namespace

void patching_panel(AppState& app) {
  const Lang L = app.lang;
  PatchingState& s = app.patching;
  scroll_anchor(app.scroll_to, "patching");
  section_header(tr(L, Str::patch_title));
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", tr(L, Str::patch_explain));
  ImGui::PopTextWrapPos();
  int by = s.by == PatchBy::head ? 0 : 1;
  ImGui::RadioButton(tr(L, Str::patch_by_head), &by, 0);
  ImGui::SameLine();
  ImGui::RadioButton(tr(L, Str::patch_by_position), &by, 1);
  if (patching_current(app) && patching_current(app)->result) {
    ImGui::SameLine();
    data_export_button(app, DataPanel::patching);
  }
  s.by = by == 0 ? PatchBy::head : PatchBy::position;
  patching_update(app);
  if (!patching_wanted(app)) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr(L, Str::patch_needs_b));
    ImGui::PopTextWrapPos();
    return;
  }
  const PatchingRun* run = patching_current(app);
  if (!run) {
    ImGui::TextDisabled("%s", tr(L, Str::patch_running));
    return;
  }
  if (!run->result) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(1, 0.6f, 0.5f, 1), "%s", patching_failure_text(*run, L).c_str());
    ImGui::PopTextWrapPos();
  }
  if (run->result) result_grid(app, *run);
}

}  // namespace attnviz
