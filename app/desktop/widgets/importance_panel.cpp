// Cells are coloured by the drop over the largest drop (magma), with the value printed; a switched-
// off head is hatched, a head whose removal changes the answer is marked with a star.
#include "widgets/importance_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "state/answer_text.h"
#include "state/grid_fit.h"
#include "widgets/draw.h"
#include "widgets/measure_controls.h"

namespace attnviz {

namespace {

// The value a cell prints: fixed decimals, no "-0.000" (a drop that rounds to nothing reads as 0),
// a star when switching that head off alone changes the answer.
std::string cell_text(const ImportanceGrid& g, int l, int h) {
  const float d = g.drop[static_cast<size_t>(l)][static_cast<size_t>(h)];
  char buf[32];
  const double shown = std::abs(d) < 0.0005f ? 0.0 : static_cast<double>(d);
  std::snprintf(buf, sizeof buf, "%.3f%s", shown, g.flips[static_cast<size_t>(l)][static_cast<size_t>(h)] ? "*" : "");
  return buf;
}

// Room around a cell's value or its column's label: the low drops are near-black cells on the dark
// background, so with less the numbers of neighbouring cells read as one ("8.579*0.000").
constexpr float kCellPadding = 14;

void grid(AppState& app, const ImportanceGrid& g) {
  const Lang L = app.lang;
  const int NL = static_cast<int>(g.drop.size()), NH = NL > 0 ? static_cast<int>(g.drop[0].size()) : 0;
  float top = 0;
  for (const auto& row : g.drop)
    for (float d : row) top = std::max(top, d);
  GridFitInput fit_in;
  fit_in.columns = NH;
  fit_in.avail = ImGui::GetContentRegionAvail().x;
  fit_in.label_w = std::max(ImGui::CalcTextSize((std::string(tr(L, Str::layer)) + " 00").c_str()).x,
                            ImGui::CalcTextSize((std::string(tr(L, Str::head)) + " →").c_str()).x) +
                   8;
  std::vector<std::string> texts;  // layer by layer, head by head
  for (int l = 0; l < NL; ++l)
    for (int h = 0; h < NH; ++h) {
      texts.push_back(cell_text(g, l, h));
      fit_in.value_w = std::max(fit_in.value_w, ImGui::CalcTextSize(texts.back().c_str()).x + kCellPadding);
    }
  fit_in.column_label_w =
      ImGui::CalcTextSize((std::string(tr(L, Str::head)) + " " + std::to_string(NH)).c_str()).x + kCellPadding;
  const GridFit lay = grid_fit(fit_in);
  const float cell_w = lay.cell_w, label_w = fit_in.label_w, cell_h = ImGui::GetFrameHeight();
  const float height = ImGui::GetTextLineHeightWithSpacing() + NL * (cell_h + 2);
  // Wider than the view even at the narrowest cells (many heads): the grid scrolls sideways.
  if (lay.scrolls)
    ImGui::BeginChild("importance_grid", ImVec2(0, height + ImGui::GetStyle().ScrollbarSize + 4), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  if (lay.short_labels) dl->AddText(origin, dim, (std::string(tr(L, Str::head)) + " →").c_str());
  for (int h = 0; h < NH; ++h) {
    const std::string label =
        lay.short_labels ? std::to_string(h + 1) : std::string(tr(L, Str::head)) + " " + std::to_string(h + 1);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    if (tw <= cell_w || !lay.short_labels || h % 2 == 0)  // narrow columns: every other number
      dl->AddText(ImVec2(origin.x + label_w + h * cell_w + (cell_w - tw) * 0.5f, origin.y), dim, label.c_str());
  }
  const float y0 = origin.y + ImGui::GetTextLineHeightWithSpacing();
  for (int l = 0; l < NL; ++l) {
    const float y = y0 + l * (cell_h + 2);
    dl->AddText(ImVec2(origin.x, y + (cell_h - ImGui::GetTextLineHeight()) * 0.5f), dim,
                (std::string(tr(L, Str::layer)) + " " + std::to_string(l + 1)).c_str());
    for (int h = 0; h < NH; ++h) {
      const float d = g.drop[static_cast<size_t>(l)][static_cast<size_t>(h)];
      const ImVec2 p0(origin.x + label_w + h * cell_w, y), p1(p0.x + cell_w - 2, y + cell_h);
      const Rgba rgb = colormap_sample(Colormap::magma, top > 0 ? std::clamp(d / top, 0.0f, 1.0f) : 0.0f);
      const ImU32 bg = IM_COL32(rgb.r, rgb.g, rgb.b, 255);
      dl->AddRectFilled(p0, p1, bg);
      const bool off = app.ablation.has(l, h);
      if (off) draw_hatch(dl, p0, p1, 8.0f);
      if (l == g.best_layer && h == g.best_head) dl->AddRect(p0, p1, IM_COL32(255, 200, 60, 255), 0, 0, 2.0f);
      // No room for the value: the star alone, where switching the head off changes the answer.
      const bool flips = g.flips[static_cast<size_t>(l)][static_cast<size_t>(h)];
      const char* text = lay.values ? texts[static_cast<size_t>(l * NH + h)].c_str() : flips ? "*" : "";
      const ImVec2 sz = ImGui::CalcTextSize(text);
      const ImVec2 at(p0.x + (cell_w - 2 - sz.x) * 0.5f, y + (cell_h - sz.y) * 0.5f);
      if (*text) draw_cell_text(dl, at, bg, off, text);
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(l * NH + h);
      if (ImGui::InvisibleButton("cell", ImVec2(cell_w - 2, cell_h))) app_toggle_head(app, l, h);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s %d · %s %d\n%.6f\n%s", tr(L, Str::layer), l + 1, tr(L, Str::head), h + 1, static_cast<double>(d),
                          tr(L, app.ablation.has(l, h) ? Str::head_on_tip : Str::head_off_tip));
      ImGui::PopID();
    }
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(lay.width, height));
  if (lay.scrolls) ImGui::EndChild();
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
