// Cells are coloured by the drop over the largest drop (magma), with the value printed; a switched-
// off head is hatched, a head whose removal changes the answer is marked with a star.
#include "widgets/importance_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include <imgui_stdlib.h>

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

// A layer × head grid of values: colour by the value over the largest (magma), the cell's text
// printed when it fits (else its mark alone), the best cell outlined, switched-off heads hatched.
struct HeadGrid {
  std::vector<std::vector<float>> values;  // [L][NH]
  std::vector<std::string> texts;          // layer by layer, head by head
  std::vector<std::string> marks;          // what a cell too narrow for its text shows ("*" or "")
  int best_layer = -1, best_head = -1;
  int selected_layer = -1, selected_head = -1;  // outlined in white
};
struct HeadGridHit {
  int layer = -1, head = -1;  // hovered
  bool clicked = false;
};

HeadGridHit head_grid(AppState& app, const HeadGrid& g) {
  const Lang L = app.lang;
  HeadGridHit hit;
  const int NL = static_cast<int>(g.values.size()), NH = NL > 0 ? static_cast<int>(g.values[0].size()) : 0;
  float top = 0;
  for (const auto& row : g.values)
    for (float d : row) top = std::max(top, d);
  GridFitInput fit_in;
  fit_in.columns = NH;
  fit_in.avail = ImGui::GetContentRegionAvail().x;
  fit_in.label_w = std::max(ImGui::CalcTextSize((std::string(tr(L, Str::layer)) + " 00").c_str()).x,
                            ImGui::CalcTextSize((std::string(tr(L, Str::head)) + " →").c_str()).x) +
                   8;
  for (const std::string& t : g.texts) fit_in.value_w = std::max(fit_in.value_w, ImGui::CalcTextSize(t.c_str()).x + kCellPadding);
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
      const float d = g.values[static_cast<size_t>(l)][static_cast<size_t>(h)];
      const ImVec2 p0(origin.x + label_w + h * cell_w, y), p1(p0.x + cell_w - 2, y + cell_h);
      const Rgba rgb = colormap_sample(Colormap::magma, top > 0 ? std::clamp(d / top, 0.0f, 1.0f) : 0.0f);
      const ImU32 bg = IM_COL32(rgb.r, rgb.g, rgb.b, 255);
      dl->AddRectFilled(p0, p1, bg);
      const bool off = app.ablation.has(l, h);
      if (off) draw_hatch(dl, p0, p1, 8.0f);
      if (l == g.best_layer && h == g.best_head) dl->AddRect(p0, p1, IM_COL32(255, 200, 60, 255), 0, 0, 2.0f);
      if (l == g.selected_layer && h == g.selected_head) dl->AddRect(p0, p1, IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
      const size_t k = static_cast<size_t>(l * NH + h);
      const char* text = lay.values ? g.texts[k].c_str() : g.marks[k].c_str();
      const ImVec2 sz = ImGui::CalcTextSize(text);
      const ImVec2 at(p0.x + (cell_w - 2 - sz.x) * 0.5f, y + (cell_h - sz.y) * 0.5f);
      if (*text) draw_cell_text(dl, at, bg, off, text);
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(l * NH + h);
      if (ImGui::InvisibleButton("cell", ImVec2(cell_w - 2, cell_h))) {
        hit.clicked = true;
        hit.layer = l;
        hit.head = h;
      }
      if (ImGui::IsItemHovered()) {
        hit.layer = l;
        hit.head = h;
      }
      ImGui::PopID();
    }
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(lay.width, height));
  if (lay.scrolls) ImGui::EndChild();
  return hit;
}

void grid(AppState& app, const ImportanceGrid& g) {
  const Lang L = app.lang;
  HeadGrid hg;
  hg.values = g.drop;
  hg.best_layer = g.best_layer;
  hg.best_head = g.best_head;
  for (size_t l = 0; l < g.drop.size(); ++l)
    for (size_t h = 0; h < g.drop[l].size(); ++h) {
      hg.texts.push_back(cell_text(g, static_cast<int>(l), static_cast<int>(h)));
      hg.marks.push_back(g.flips[l][h] ? "*" : "");
    }
  const HeadGridHit hit = head_grid(app, hg);
  if (hit.clicked) app_toggle_head(app, hit.layer, hit.head);
  if (hit.layer >= 0 && !hit.clicked)
    ImGui::SetTooltip("%s %d · %s %d\n%.6f\n%s", tr(L, Str::layer), hit.layer + 1, tr(L, Str::head), hit.head + 1,
                      static_cast<double>(g.drop[static_cast<size_t>(hit.layer)][static_cast<size_t>(hit.head)]),
                      tr(L, app.ablation.has(hit.layer, hit.head) ? Str::head_on_tip : Str::head_off_tip));
}

// The set's mean grid: "mean [answers changed]" in each cell, mean ± spread on hover; a click lists
// the sentences that head matters for, each one a click away from the sentence box.
void set_grid(AppState& app, const ImportanceSetGrid& g) {
  const Lang L = app.lang;
  ImportanceSetState& s = app.importance_set;
  HeadGrid hg;
  hg.values = g.mean;
  hg.best_layer = g.best_layer;
  hg.best_head = g.best_head;
  hg.selected_layer = s.cell_layer;
  hg.selected_head = s.cell_head;
  for (size_t l = 0; l < g.mean.size(); ++l)
    for (size_t h = 0; h < g.mean[l].size(); ++h) {
      char buf[48];
      const double shown = std::abs(g.mean[l][h]) < 0.0005f ? 0.0 : static_cast<double>(g.mean[l][h]);
      std::snprintf(buf, sizeof buf, "%.3f [%d]", shown, g.answer_changes[l][h]);
      hg.texts.push_back(buf);
      hg.marks.push_back(g.answer_changes[l][h] > 0 ? "*" : "");
    }
  const HeadGridHit hit = head_grid(app, hg);
  if (hit.clicked) {
    s.cell_layer = hit.layer;
    s.cell_head = hit.head;
  }
  if (hit.layer >= 0 && !hit.clicked) {
    const auto l = static_cast<size_t>(hit.layer), h = static_cast<size_t>(hit.head);
    ImGui::SetTooltip("%s", tr_format(L, Str::imp_set_cell_tip, hit.layer + 1, hit.head + 1, static_cast<double>(g.mean[l][h]),
                                      static_cast<double>(g.spread[l][h]), g.answer_changes[l][h], static_cast<int>(g.sentences.size()))
                                .c_str());
  }
  if (g.best_layer >= 0) {
    const auto l = static_cast<size_t>(g.best_layer), h = static_cast<size_t>(g.best_head);
    ImGui::TextUnformatted(tr_format(L, Str::imp_set_best, g.best_layer + 1, g.best_head + 1, static_cast<double>(g.mean[l][h]),
                                     static_cast<double>(g.spread[l][h]), g.answer_changes[l][h], static_cast<int>(g.sentences.size()))
                               .c_str());
  }
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
  ImGui::SetNextItemWidth(std::max(80.0f, ImGui::GetContentRegionAvail().x - button_width(tr(L, Str::imp_set_open)) - 8));
  ImGui::InputText("##set_path", &s.file_path_edit);
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::imp_set_open))) {
    if (Status st = importance_set_load_file(app, s.file_path_edit); !st) s.error = st.error();
  }
  if (!s.sentences.empty()) {
    const std::string source = s.source == "demo" ? std::string(tr(L, Str::imp_set_demo_name)) : s.source;
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
