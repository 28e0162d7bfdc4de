// Steps 8–10 of the lecture: the head's weighted sum of values, the concat of every head, and the
// W_O projection. Numbers are the Trace's own values; the weighted sum is shown term by term from
// the weights and V, with the Trace's result under them, never re-added here.
#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "analysis/measures.h"
#include "analysis/stats.h"
#include "model/layer_source.h"
#include "views/steps/steps_body.h"
#include "views/steps/steps_draw.h"
#include "views/steps/steps_format.h"
#include "widgets/draw.h"
#include "widgets/formula.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

constexpr int kTerms = 6;  // rows of the weighted-sum table before "… and N more"

void big_formula(const char* markup) { formula_item(markup, ImGui::GetFontSize() * 1.5f, kStepsAccent); }

// A (T, C) map of a layer matrix, the query's row framed, optionally a head's columns framed too.
void wide_map(StepsView& v, const char* id, const Mat& m, int block, int frame_first, int frame_last) {
  MatrixMap map;
  map.id = id;
  map.values = &m;
  map.rows = &v.t.queries;
  const float room = steps_matrix_label_room(map).x;
  map.cell_w = (ImGui::GetContentRegionAvail().x - room - 4) / static_cast<float>(m.cols());
  map.cell_h = std::clamp(ImGui::GetFontSize() * 6 / static_cast<float>(m.rows()), 2.0f, ImGui::GetTextLineHeight());
  map.vmax = steps_scale(m);
  map.vmin = -map.vmax;
  map.cmap = Colormap::diverging;
  map.highlight_row = v.f.query;
  map.block = block;
  map.frame_first = frame_first;
  map.frame_last = frame_last;
  const MatrixHit hit = steps_matrix_map(map);
  if (hit.hovered) {
    ImGui::SetTooltip("%s · [%d] = %s", v.t.queries[static_cast<size_t>(hit.row)].text.c_str(), hit.col,
                      steps_number(m(hit.row, hit.col), 6).c_str());
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      v.app.query = hit.row;
      if (block > 0) v.app.head = hit.col / block;
    }
  }
}

// Output = Σ_i head_i W^O_i + b^O at the query: each head's term (its norm as a bar, its first
// values), the bias, their sum and the trace's own output under it, so the sum can be checked.
void head_terms(StepsView& v) {
  const Lang L = v.app.lang;
  if (!v.app.trace_model) return;  // an attention file: no W_O to split by
  auto terms = head_output_terms(*v.app.trace_model, v.t, v.f.layer, v.f.query);
  if (!terms) return;
  const int NH = static_cast<int>(terms->rows()), C = static_cast<int>(terms->cols());
  auto layer = model_layer(*v.app.trace_model, v.f.layer);
  if (!layer) return;
  const Vec& bias = (*layer)->attn.out_b;
  Mat rows(NH + 3, C);
  rows.topRows(NH) = *terms;
  rows.row(NH) = bias.transpose();
  rows.row(NH + 1) = terms->colwise().sum() + bias.transpose();
  rows.row(NH + 2) = v.layer.attn.out.row(v.f.query);
  std::vector<TraceToken> labels(static_cast<size_t>(NH + 3));
  for (int h = 0; h < NH; ++h) labels[static_cast<size_t>(h)].text = "head_" + std::to_string(h + 1) + " W^O_" + std::to_string(h + 1);
  labels[static_cast<size_t>(NH)].text = "b^O";
  labels[static_cast<size_t>(NH + 1)].text = "Σ";
  labels[static_cast<size_t>(NH + 2)].text = tr(L, Str::steps_terms_trace);
  big_formula("out_q = \\sum_{i=1}^h head_i W^O_i + b^O");
  text_wrapped(tr_format(L, Str::steps_terms_explain, v.t.queries[static_cast<size_t>(v.f.query)].text.c_str(), NH));
  float top = 0;
  for (int h = 0; h < NH; ++h) top = std::max(top, rows.row(h).norm());
  if (!ImGui::BeginTable("head_terms", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn("|y|");
  ImGui::TableSetupColumn("##bar", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 10);
  ImGui::TableHeadersRow();
  for (int r = 0; r < NH + 3; ++r) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool chosen = r == v.f.head;
    if (chosen) ImGui::TextColored(ImColor(kStepsAccent), "%s", labels[static_cast<size_t>(r)].text.c_str());
    else ImGui::TextUnformatted(labels[static_cast<size_t>(r)].text.c_str());
    ImGui::TableNextColumn();
    steps_cell_right(steps_number(rows.row(r).norm(), v.decimals));
    ImGui::TableNextColumn();
    if (r < NH) {  // the head's share of the largest term
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = ImGui::GetFontSize() * 10, h = ImGui::GetTextLineHeight() * 0.7f;
      const float f = top > 0 ? rows.row(r).norm() / top : 0.0f;
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f), ImVec2(p.x + w * f, p.y + h * 1.2f),
                                                chosen ? kStepsAccent : IM_COL32(120, 160, 220, 255));
      ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
    }
  }
  ImGui::EndTable();
  NumberTable table;
  table.id = "terms_table";
  table.label_header = "";
  table.labels = &labels;
  const float avail = ImGui::GetContentRegionAvail().x;
  table.groups.push_back({"y", &rows, 0, -1, steps_dims_fit(avail, ImGui::GetFontSize() * 7, 1, v.decimals, 8), false});
  table.highlight_row = v.f.head;
  table.decimals = v.decimals;
  steps_number_table(table);
}

float token_label_width(const StepsView& v) { return std::min(heatmap_label_extent(v.t.keys), ImGui::GetFontSize() * 7); }

}  // namespace

void steps_body_weighted_sum(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const HeadTrace& h = v.head;
  const int q = v.f.query, HS = t.config.head_size();
  big_formula("o_i = \\sum_j w_{ij}v_j");
  ImGui::Spacing();

  const float avail = ImGui::GetContentRegionAvail().x;
  const std::string more = tr_format(L, Str::steps_more_terms, 0);
  const float label_w = std::max(token_label_width(v), ImGui::CalcTextSize(more.c_str()).x);
  // The weight column takes one number's room, so fit the v columns beside label + weight.
  const float num_col = steps_number_width(v.decimals) + ImGui::GetStyle().CellPadding.x * 2 + 1;
  const int dims = steps_dims_fit(avail - num_col, label_w, 1, v.decimals, 5);
  const std::vector<KeyWeight> top = top_keys(v.weights, q, kTerms);
  int nonzero = 0;
  for (int j = 0; j < t.n_keys(); ++j) nonzero += v.weights(q, j) > 0 ? 1 : 0;

  ImGui::TextDisabled("%s", tr(L, Str::steps_terms));
  const int n_cols = 2 + dims + (dims < HS ? 1 : 0);
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_BordersOuterH | ImGuiTableFlags_NoHostExtendX;
  if (ImGui::BeginTable("terms", n_cols, flags)) {
    const float num_w = steps_number_width(v.decimals);
    ImGui::TableSetupColumn(tr(L, Str::key), ImGuiTableColumnFlags_WidthFixed, label_w);
    ImGui::TableSetupColumn("w_ij", ImGuiTableColumnFlags_WidthFixed, num_w);
    std::vector<std::string> names;
    for (int a = 0; a < dims; ++a) names.push_back("v_j" + std::to_string(a));
    for (const std::string& n : names) ImGui::TableSetupColumn(n.c_str(), ImGuiTableColumnFlags_WidthFixed, num_w);
    if (dims < HS) ImGui::TableSetupColumn("…", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("…").x);
    ImGui::TableHeadersRow();
    for (const KeyWeight& kw : top) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(steps_clip(t.keys[static_cast<size_t>(kw.key)].text, 14).c_str());
      ImGui::TableNextColumn();
      steps_cell_right(steps_number(v.weights(q, kw.key), v.decimals), kStepsAccent);
      for (int a = 0; a < dims; ++a) {
        ImGui::TableNextColumn();
        steps_cell_right(steps_number(h.v(kw.key, a), v.decimals));
      }
      if (dims < HS) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("…");
      }
    }
    if (nonzero > static_cast<int>(top.size())) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", tr_format(L, Str::steps_more_terms, nonzero - static_cast<int>(top.size())).c_str());
    }
    ImGui::TableNextRow();
    ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(255, 160, 30, 70));
    ImGui::TableNextColumn();
    ImGui::TextColored(ImColor(kStepsAccent), "o_i (%s)", steps_clip(t.queries[static_cast<size_t>(q)].text, 10).c_str());
    ImGui::TableNextColumn();
    steps_cell_right("=");
    for (int a = 0; a < dims; ++a) {
      ImGui::TableNextColumn();
      steps_cell_right(steps_number(h.out(q, a), v.decimals), kStepsAccent);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();

  NumberTable table;
  table.id = "o_table";
  table.label_header = tr(L, Str::steps_token);
  table.labels = &t.queries;
  table.groups.push_back({"o", &h.out, 0, -1, steps_dims_fit(avail, label_w, 1, v.decimals, 6), true});
  table.highlight_row = q;
  table.decimals = v.decimals;
  ImGui::TextDisabled("O (T, HS) · %s", tr_format(L, Str::steps_first_dims, table.groups[0].dims, HS).c_str());
  steps_number_table(table);
}

void steps_body_concat(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const int NH = t.config.n_heads, HS = t.config.head_size();
  const HeadColumns cols = lecture_head_columns(t.config, v.f.head);
  const Mat& concat = v.layer.attn.concat;

  MatrixMap probe;
  probe.rows = &t.queries;
  const float room = steps_matrix_label_room(probe).x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + room);
  const float bar_w = ImGui::GetContentRegionAvail().x - 4;
  const HeadBarHit bar = steps_head_bar(NH, v.f.head, ImVec2(bar_w, ImGui::GetFrameHeight()), "concat_bar");
  if (bar.clicked >= 0) v.app.head = bar.clicked;
  if (bar.hovered >= 0) {
    const HeadColumns c = lecture_head_columns(t.config, bar.hovered);
    ImGui::SetTooltip("%s", tr_format(L, Str::steps_concat_block, bar.hovered + 1, c.first, c.last).c_str());
  }
  wide_map(v, "concat", concat, HS, cols.first, cols.last);
  ImGui::TextColored(ImColor(kStepsAccent), "%s", tr_format(L, Str::steps_concat_block, v.f.head + 1, cols.first, cols.last).c_str());
  ImGui::Spacing();

  NumberTable table;
  table.id = "concat_table";
  table.label_header = tr(L, Str::steps_token);
  table.labels = &t.queries;
  const float avail = ImGui::GetContentRegionAvail().x;
  const int dims = steps_dims_fit(avail, token_label_width(v), 1, v.decimals, 6);
  table.groups.push_back({"c", &concat, cols.first, cols.last + 1, dims, true});
  table.highlight_row = v.f.query;
  table.decimals = v.decimals;
  steps_number_table(table);
}

void steps_body_out(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const Mat& out = v.layer.attn.out;
  big_formula("out = Concat(head_1, …, head_h)W^O + b^O,\\, W^O = W_O^T");
  ImGui::Spacing();
  wide_map(v, "out", out, 0, -1, -1);
  ImGui::Spacing();
  const float avail = ImGui::GetContentRegionAvail().x;
  NumberTable table;
  table.id = "out_table";
  table.label_header = tr(L, Str::steps_token);
  table.labels = &t.queries;
  table.groups.push_back({"y", &out, 0, -1, steps_dims_fit(avail, token_label_width(v), 1, v.decimals, 8), false});
  table.highlight_row = v.f.query;
  table.decimals = v.decimals;
  ImGui::TextDisabled("%s", tr_format(L, Str::steps_first_dims, table.groups[0].dims, static_cast<int>(out.cols())).c_str());
  steps_number_table(table);
  ImGui::Spacing();
  head_terms(v);
  ImGui::Spacing();
  text_wrapped(tr(L, t.config.d_ff == 0 ? Str::steps_out_next_no_ffn : Str::steps_out_next));
}

}  // namespace attnviz
