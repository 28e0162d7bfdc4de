// The seeds' picture of why several heads help (seed 003: one head looks from "its" at "law" only;
// two heads at "law" and "application"), drawn from the models shown: one row per head.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "demos/coref_data.h"
#include "demos/gather_demo.h"
#include "model/head_map.h"
#include "shell/fonts.h"
#include "shell/panels.h"
#include "views/compare/compare_parts.h"
#include "widgets/gui_resources.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

// The chosen query row, else the word the shown demo answers at; -1: none.
int rows_query(const AppState& app, const Trace& A) {
  if (app.query >= 0 && app.query < A.n_queries()) return app.query;
  int q = -1;
  if (app.source == ModelSource::demo_gather) q = gather_make(app.sentence).query;
  else if (app.source == ModelSource::demo_coref) q = coref_make(app.sentence).pronoun;
  return q < A.n_queries() ? q : -1;
}

constexpr Str kSlotNames[kGatherSlots] = {Str::gather_owner, Str::gather_owner_trait, Str::gather_owned,
                                          Str::gather_owned_trait};

}  // namespace

void compare_query_rows(AppState& app, GuiResources& gui, const Trace& A, const Trace& B, int layer) {
  const Lang L = app.lang;
  const int q = rows_query(app, A);
  if (q < 0 || A.n_queries() != B.n_queries() || A.n_keys() != B.n_keys() || layer >= static_cast<int>(B.layers.size())) {
    ImGui::TextDisabled("%s", tr(L, Str::cmp_rows_hint));
    return;
  }
  const int nh = A.config.n_heads;
  Mat rows(nh + 1, A.n_keys());
  rows.row(0) = head_map_rows(B, layer, 0, q, 1).row(0);  // query q's row alone
  for (int h = 0; h < nh; ++h) rows.row(h + 1) = head_map_rows(A, layer, h, q, 1).row(0);
  std::vector<TraceToken> labels(static_cast<size_t>(nh + 1));
  labels[0].text = tr(L, Str::cmp_rows_single);
  for (int h = 0; h < nh; ++h) labels[static_cast<size_t>(h + 1)].text = tr_format(L, Str::cmp_rows_head, h + 1);

  // Each row's strongest key, and in the gather demo the role of that word in its sentence.
  const GatherExample gather = app.source == ModelSource::demo_gather ? gather_make(app.sentence) : GatherExample{};
  std::vector<std::string> notes;
  float note_w = 0;
  for (int r = 0; r <= nh; ++r) {
    int k = 0;
    const float w = rows.row(r).maxCoeff(&k);
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.2f", static_cast<double>(w));
    std::string note = "→ " + A.keys[static_cast<size_t>(k)].text + buf;
    for (int s = 0; s < kGatherSlots; ++s)
      if (gather.query == q && gather.slot_token[static_cast<size_t>(s)] == k) note += " · " + std::string(tr(L, kSlotNames[s]));
    note_w = std::max(note_w, ImGui::CalcTextSize(note.c_str()).x);
    notes.push_back(std::move(note));
  }

  ImGui::TextUnformatted(tr_format(L, Str::cmp_rows_title, A.queries[static_cast<size_t>(q)].text.c_str(), nh).c_str());
  const float fs = ImGui::GetFontSize();
  const float row_label_w = heatmap_label_extent(labels);
  const float col_label_h = heatmap_label_extent(A.keys);
  const float avail = ImGui::GetContentRegionAvail().x;
  // As wide as the view allows, and short enough that every head's row shows without scrolling.
  const float by_width = (avail - row_label_w - note_w - fs * 1.5f) / static_cast<float>(A.n_keys());
  const float by_height = (ImGui::GetContentRegionAvail().y - col_label_h - fs) / static_cast<float>(nh + 1);
  const float cell = std::floor(std::clamp(std::min(by_width, by_height), fs * 0.9f, fs * 2.6f));
  const ImVec2 start = ImGui::GetCursorScreenPos();
  HeatmapWidget w;
  w.values = &rows;
  w.rows = &labels;
  w.cols = &A.keys;
  w.origin = ImVec2(start.x + row_label_w, start.y + col_label_h);
  w.cell = cell;
  w.row_labels = w.col_labels = true;
  w.row_label_w = row_label_w;
  w.col_label_h = col_label_h;
  w.annotate = app.annotate;
  w.cmap = app.cmap;
  w.keep_col_labels = {q};
  w.id = "query_rows";
  const HeatmapHit hit = heatmap_widget(w);
  gui.drawn.push_back(DrawnHeatmap{layer, -1, hit.cells_origin.x, hit.cells_origin.y, cell, static_cast<int>(rows.rows()),
                                   static_cast<int>(rows.cols()), "compare_rows", hit.rows_labelled, hit.cols_labelled,
                                   hit.label_px, hit.numbers, ImGui::GetWindowDrawList()->GetClipRectMin(),
                                   ImGui::GetWindowDrawList()->GetClipRectMax()});
  // The single head's row apart from the heads' rows: a line under it.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float right = w.origin.x + cell * static_cast<float>(A.n_keys());
  dl->AddLine(ImVec2(start.x, w.origin.y + cell), ImVec2(right, w.origin.y + cell), ImGui::GetColorU32(ImGuiCol_Text),
              std::max(1.0f, ui_scale() * 2.0f));
  for (int r = 0; r <= nh; ++r) {
    const float y = w.origin.y + cell * static_cast<float>(r) + (cell - ImGui::GetTextLineHeight()) * 0.5f;
    dl->AddText(ImVec2(right + fs * 0.5f, y), r == 0 ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : ImGui::GetColorU32(ImGuiCol_Text),
                notes[static_cast<size_t>(r)].c_str());
  }
  if (hit.hovered) {
    ImGui::BeginTooltip();
    ImGui::Text("%s · %s → %s: %.4f", labels[static_cast<size_t>(hit.row)].text.c_str(), A.queries[static_cast<size_t>(q)].text.c_str(),
                A.keys[static_cast<size_t>(hit.col)].text.c_str(), static_cast<double>(rows(hit.row, hit.col)));
    ImGui::EndTooltip();
  }
  if (hit.clicked && hit.row > 0) app.head = hit.row - 1;
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(right + note_w + fs - start.x, col_label_h + cell * static_cast<float>(nh + 1) + fs * 0.3f));
}

}  // namespace attnviz
