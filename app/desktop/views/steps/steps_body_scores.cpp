// Steps 4–7 of the lecture: the query's row of scores, key by key, as it is scaled, masked and turned
// into weights, each beside the whole (T, T) matrix with the query's row framed. Every number is
// the Trace's value; the only sums formed here are the +0 / +(-∞) of the mask and the row's total.
#include <algorithm>
#include <cmath>
#include <functional>

#include <imgui.h>

#include "views/steps/steps_body.h"
#include "views/steps/steps_draw.h"
#include "views/steps/steps_format.h"
#include "widgets/draw.h"
#include "widgets/formula.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

// Signed bars use the diverging map's ends (red above zero, blue below); weights use one neutral hue.
constexpr ImU32 kBarPositive = IM_COL32(226, 134, 111, 255);
constexpr ImU32 kBarNegative = IM_COL32(58, 123, 191, 255);
constexpr ImU32 kBarWeight = IM_COL32(90, 160, 230, 255);
constexpr ImGuiTableFlags kListFlags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg |
                                       ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_NoHostExtendX;

float row_max_abs(const Mat& m, int row) {
  float best = 0;
  for (int j = 0; j < m.cols(); ++j)
    if (std::isfinite(m(row, j))) best = std::max(best, std::fabs(m(row, j)));
  return best;
}

// A square cell that fits the matrix into w x h (the visible part of the body, so a projector shows
// it whole), at least 3 px and no larger than a big text line. Below the list, where little visible
// height is left, the width alone decides.
float fit_cell(float w, float h, const Mat& m) {
  if (h < ImGui::GetFontSize() * 8) h = w;
  const float by_w = w / static_cast<float>(m.cols()), by_h = h / static_cast<float>(m.rows());
  return std::clamp(std::floor(std::min(by_w, by_h)), 3.0f, ImGui::GetFontSize() * 1.6f);
}

float bar_width() { return ImGui::GetFontSize() * 5; }

// The key's label cell: accent for the query's own token, dim for padding.
void key_label(const StepsView& v, int j, ImU32 color = 0) {
  const TraceToken& tok = v.t.keys[static_cast<size_t>(j)];
  const std::string s = steps_clip(tok.text, 14);
  if (color) ImGui::TextColored(ImColor(color), "%s", s.c_str());
  else if (tok.pad) ImGui::TextDisabled("%s", s.c_str());
  else ImGui::TextUnformatted(s.c_str());
}

void number_bar_cell(float value, float max_abs) {
  steps_bar(value, max_abs, true, bar_width(), value >= 0 ? kBarPositive : kBarNegative);
}

void cell_tooltip(const StepsView& v, int q, int k, const char* what, float value) {
  ImGui::SetTooltip("%s: %s (#%d)\n%s: %s (#%d)\n%s = %s", tr(v.app.lang, Str::query), v.t.queries[static_cast<size_t>(q)].text.c_str(), q,
                    tr(v.app.lang, Str::key), v.t.keys[static_cast<size_t>(k)].text.c_str(), k, what, steps_number(value, 6).c_str());
}

// The room a colour bar and its numbers take under a map (colormap_legend).
float colour_bar_room() { return ImGui::GetTextLineHeight() * 1.6f + 4; }

// A (T, T) matrix drawn cell by cell, diverging around 0, the query's row framed; a click on a row
// makes it the query.
void scores_map(StepsView& v, const char* id, const char* what, const Mat& values, const Mat* mask, float width) {
  MatrixMap map;
  map.id = id;
  map.values = &values;
  map.mask = mask;
  map.rows = &v.t.queries;
  map.cols = &v.t.keys;
  const ImVec2 room = steps_matrix_label_room(map);
  const float cell = fit_cell(width - room.x - 4, ImGui::GetContentRegionAvail().y - room.y - 4 - colour_bar_room(), values);
  map.cell_w = map.cell_h = cell;
  // One scale for raw, scaled and masked scores when asked: the raw scores' largest value.
  map.vmax = steps_scale(v.app.steps.shared_scale ? v.scores.raw : values);
  map.vmin = -map.vmax;
  map.cmap = Colormap::diverging;
  map.highlight_row = v.f.query;
  const MatrixHit hit = steps_matrix_map(map);
  if (hit.hovered) {
    cell_tooltip(v, hit.row, hit.col, what, values(hit.row, hit.col));
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) v.app.query = hit.row;
  }
}

// The weights through the shared heatmap widget and the head's texture, as in the Heads view.
void weights_map(StepsView& v, float width) {
  const Trace& t = v.t;
  HeatmapWidget w;
  w.texture = gui_head_texture(v.app, v.gui, v.f.layer, v.f.head);
  w.values = &v.weights;
  w.rows = &t.queries;
  w.cols = &t.keys;
  w.mask = &trace_layer_mask(t, v.f.layer);
  w.row_labels = w.col_labels = true;
  w.row_label_w = heatmap_label_extent(t.queries);
  w.col_label_h = heatmap_label_extent(t.keys);
  w.cell = fit_cell(width - w.row_label_w - 4, ImGui::GetContentRegionAvail().y - w.col_label_h - 4 - colour_bar_room(),
                    v.weights);
  w.annotate = false;
  w.cmap = v.app.cmap;
  w.highlight_row = v.f.query;
  w.id = "weights";
  const ImVec2 start = ImGui::GetCursorScreenPos();
  w.origin = ImVec2(start.x + w.row_label_w, start.y + w.col_label_h);
  const HeatmapHit hit = heatmap_widget(w);
  if (hit.label_row_clicked >= 0) v.app.query = hit.label_row_clicked;
  if (hit.hovered) {
    cell_tooltip(v, hit.row, hit.col, tr(v.app.lang, Str::weight), v.weights(hit.row, hit.col));
    if (hit.clicked) v.app.query = hit.row;
  }
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(w.row_label_w + w.cell * t.n_keys(), w.col_label_h + w.cell * t.n_queries()));
  ImGui::SetCursorScreenPos(ImVec2(w.origin.x, ImGui::GetCursorScreenPos().y));
  colormap_legend(w.cmap, 0.0f, 1.0f, std::max(w.cell * t.n_keys(), ImGui::GetFontSize() * 8));
}

// The key list and the matrix side by side when the map still gets a useful width beside the list
// as drawn, else the map goes below it.
void list_and_map(const std::function<void()>& list, const std::function<void(float)>& map) {
  const float avail = ImGui::GetContentRegionAvail().x;
  const float gap = ImGui::GetFontSize() * 1.5f;
  ImGui::BeginGroup();
  list();
  ImGui::EndGroup();
  const float map_w = avail - ImGui::GetItemRectSize().x - gap;
  if (map_w >= ImGui::GetFontSize() * 10) {
    ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    map(map_w);
    ImGui::EndGroup();
  } else {
    ImGui::Spacing();
    map(std::min(avail, ImGui::GetFontSize() * 24));
  }
}

std::string formula_of(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::scaled_dot:
    case ScoreKind::dot: return "q_i · k_j";
    case ScoreKind::general: return "q_i W_a k_j^T";
    case ScoreKind::additive: return "v^T tanh(W_q q_i + W_k k_j)";
  }
  return {};
}

int argmax_row(const Mat& m, int row) {
  int best = 0;
  for (int j = 1; j < m.cols(); ++j)
    if (m(row, j) > m(row, best)) best = j;
  return best;
}

}  // namespace

void steps_body_scores(StepsView& v) {
  const Trace& t = v.t;
  const HeadTrace& h = v.head;
  const int q = v.f.query;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (h.score == ScoreKind::general || h.score == ScoreKind::additive)  // not a plain dot product: say which
    ImGui::TextColored(ImColor(kStepsAccent), "%s: %s", tr(v.app.lang, Str::scoring),
                       tr(v.app.lang, h.score == ScoreKind::general ? Str::score_general : Str::score_additive));
  steps_vector_line("q_i", h.q, q, steps_dims_fit(avail, ImGui::CalcTextSize("q_i = [").x, 1, v.decimals, 6), v.decimals);

  // One worked dot product: the key that matches best, its first two terms, and the result.
  const int best = argmax_row(v.scores.raw, q);
  std::string example = std::string(tr(v.app.lang, Str::steps_example)) + " \"" + t.keys[static_cast<size_t>(best)].text + "\": ";
  if (h.score == ScoreKind::scaled_dot || h.score == ScoreKind::dot) {
    example += "q_i · k_j = ";
    for (int a = 0; a < std::min<int>(2, static_cast<int>(h.q.cols())); ++a)
      example += "(" + steps_number(h.q(q, a), v.decimals) + ")(" + steps_number(h.k(best, a), v.decimals) + ") + ";
    example += "… = " + steps_number(v.scores.raw(q, best), v.decimals);
  } else {
    example += formula_of(h.score) + " = " + steps_number(v.scores.raw(q, best), v.decimals);
  }
  text_wrapped(example);
  ImGui::Spacing();

  const float m = row_max_abs(v.scores.raw, q);
  const std::string formula = formula_of(h.score);
  list_and_map(
      [&] {
        if (!ImGui::BeginTable("scores", 3, kListFlags)) return;
        ImGui::TableSetupColumn(tr(v.app.lang, Str::key));
        ImGui::TableSetupColumn(h.score == ScoreKind::additive ? "v^T tanh(…)" : formula.c_str());
        ImGui::TableSetupColumn("##bar");
        ImGui::TableHeadersRow();
        for (int j = 0; j < t.n_keys(); ++j) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          key_label(v, j, j == best ? kStepsAccent : 0);
          ImGui::TableNextColumn();
          steps_cell_right(steps_number(v.scores.raw(q, j), v.decimals));
          ImGui::TableNextColumn();
          number_bar_cell(v.scores.raw(q, j), m);
        }
        ImGui::EndTable();
      },
      [&](float w) { scores_map(v, "raw", "QK^T", v.scores.raw, nullptr, w); });
}

void steps_body_scale(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const HeadTrace& h = v.head;
  const int q = v.f.query, HS = t.config.head_size();
  const ScoreDivisor d = lecture_score_divisor(t.config, h.score);
  const bool has_tau = t.config.temperature != 1.0f;
  std::string line;
  if (d.uses_root && t.config.scaled_dot_scale > 0)  // Gemma 27B: 1/√(d_model / h), not 1/√d_k
    line = steps_printf("× %g", static_cast<double>(1.0f / d.total));
  else if (d.uses_root && !has_tau) line = steps_printf("÷ √%d = ÷ %g", HS, static_cast<double>(d.root));
  else if (d.uses_root)
    line = steps_printf("÷ (√%d · τ) = ÷ (%g × %g) = ÷ %g", HS, static_cast<double>(d.root), static_cast<double>(d.temperature),
                        static_cast<double>(d.total));
  else if (has_tau) line = steps_printf("÷ τ = ÷ %g", static_cast<double>(d.temperature));
  if (!line.empty()) {
    ImGui::PushFont(steps_large_font());
    ImGui::TextColored(ImColor(kStepsAccent), "%s", line.c_str());
    ImGui::PopFont();
  }
  if (h.score == ScoreKind::dot) text_wrapped(tr(L, Str::steps_scale_dot));
  if (h.score == ScoreKind::general) text_wrapped(tr(L, Str::steps_scale_general));
  if (h.score == ScoreKind::additive) text_wrapped(tr(L, Str::steps_scale_additive));
  if (has_tau)
    text_wrapped(tr_format(L, Str::steps_scale_temperature, static_cast<double>(d.temperature)));
  else if (!d.uses_root)
    text_wrapped(tr(L, Str::steps_scale_unchanged));
  if (t.config.attn_softcap > 0)  // Gemma 2: the column below is capped too
    text_wrapped(tr_format(L, Str::steps_scale_softcap, static_cast<double>(t.config.attn_softcap),
                           static_cast<double>(t.config.attn_softcap)));
  ImGui::Spacing();

  const float m = row_max_abs(v.scores.scaled, q);
  const std::string div = steps_printf("÷ %g", static_cast<double>(d.total));
  list_and_map(
      [&] {
        if (!ImGui::BeginTable("scaled", 4, kListFlags)) return;
        ImGui::TableSetupColumn(tr(L, Str::key));
        ImGui::TableSetupColumn(tr(L, Str::steps_col_raw));
        ImGui::TableSetupColumn(div.c_str());
        ImGui::TableSetupColumn("##bar");
        ImGui::TableHeadersRow();
        for (int j = 0; j < t.n_keys(); ++j) {
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          key_label(v, j);
          ImGui::TableNextColumn();
          steps_cell_right(steps_number(v.scores.raw(q, j), v.decimals), ImGui::GetColorU32(ImGuiCol_TextDisabled));
          ImGui::TableNextColumn();
          steps_cell_right(steps_number(v.scores.scaled(q, j), v.decimals));
          ImGui::TableNextColumn();
          number_bar_cell(v.scores.scaled(q, j), m);
        }
        ImGui::EndTable();
      },
      [&](float w) { scores_map(v, "scaled", tr(L, Str::steps_col_scaled), v.scores.scaled, nullptr, w); });
}

void steps_body_mask(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const int q = v.f.query;
  int hidden = 0;
  for (int j = 0; j < t.n_keys(); ++j) hidden += std::isfinite(trace_layer_mask(t, v.f.layer)(q, j)) ? 0 : 1;
  const bool any_mask = (trace_layer_mask(t, v.f.layer).array() == -INFINITY).any();
  if (!any_mask)
    text_wrapped(tr(L, Str::steps_mask_none));
  else {
    ImGui::PushFont(steps_large_font());
    ImGui::TextColored(ImColor(hidden ? kStepsHidden : kStepsAccent), "%s",
                       tr_format(L, Str::steps_mask_hidden_count, hidden, t.n_keys()).c_str());
    ImGui::PopFont();
  }
  ImGui::Spacing();

  auto reasons = [&](int j) {
    const MaskWhy why = lecture_mask_why(v.app.mask, q, j, t.real_keys);
    std::string s;
    auto add = [&](const std::string& r) { s += (s.empty() ? "" : "\n") + r; };
    if (why.causal) add(tr(L, Str::steps_reason_causal));
    if (why.padding) add(tr(L, Str::steps_reason_padding));
    if (why.window) add(tr_format(L, Str::steps_reason_window, v.app.mask.window));
    if (why.strided) add(tr_format(L, Str::steps_reason_strided, v.app.mask.stride));
    if (why.custom) add(tr(L, Str::steps_reason_custom));
    if (s.empty()) s = tr(L, Str::steps_reason_stale);
    return s;
  };
  list_and_map(
      [&] {
        if (!ImGui::BeginTable("masked", 5, kListFlags)) return;
        ImGui::TableSetupColumn(tr(L, Str::key));
        ImGui::TableSetupColumn(tr(L, Str::steps_col_scaled));
        ImGui::TableSetupColumn(tr(L, Str::steps_col_mask));
        ImGui::TableSetupColumn("=");
        ImGui::TableSetupColumn("##why");
        ImGui::TableHeadersRow();
        for (int j = 0; j < t.n_keys(); ++j) {
          const float mk = trace_layer_mask(t, v.f.layer)(q, j);
          const bool off = !std::isfinite(mk);
          const ImU32 col = off ? kStepsHidden : 0;
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          key_label(v, j, col);
          ImGui::TableNextColumn();
          steps_cell_right(steps_number(v.scores.scaled(q, j), v.decimals), off ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : 0);
          ImGui::TableNextColumn();
          steps_cell_right(off ? "-∞" : "+0", col);
          ImGui::TableNextColumn();
          steps_cell_right(steps_number(v.scores.scaled(q, j) + mk, v.decimals), col);
          ImGui::TableNextColumn();
          if (off) ImGui::TextColored(ImColor(kStepsHidden), "%s", reasons(j).c_str());
          else ImGui::TextDisabled("%s", tr(L, Str::steps_visible));
        }
        ImGui::EndTable();
      },
      [&](float w) { scores_map(v, "masked", tr(L, Str::steps_col_scaled), v.scores.scaled, &trace_layer_mask(t, v.f.layer), w); });
}

void steps_body_softmax(StepsView& v) {
  const Trace& t = v.t;
  const Lang L = v.app.lang;
  const int q = v.f.query;
  formula_item("w_{ij} = \\frac{exp(s_{ij})}{\\sum_k exp(s_{ik})}", ImGui::GetFontSize() * 1.3f, kStepsAccent);
  double sum = 0;
  for (int j = 0; j < t.n_keys(); ++j) sum += v.weights(q, j);
  if (sum == 0) ImGui::TextColored(ImColor(kStepsHidden), "%s", tr(L, Str::steps_all_hidden));
  else formula_item("\\sum_j w_{ij} = " + steps_number(static_cast<float>(sum), v.decimals), ImGui::GetFontSize(),
                    ImGui::GetColorU32(ImGuiCol_Text));
  ImGui::Spacing();

  float m = 0;
  for (int j = 0; j < t.n_keys(); ++j) m = std::max(m, v.weights(q, j));
  const int best = argmax_row(v.weights, q);
  list_and_map(
      [&] {
        if (!ImGui::BeginTable("weights", 3, kListFlags)) return;
        ImGui::TableSetupColumn(tr(L, Str::key));
        ImGui::TableSetupColumn("##bar");
        ImGui::TableSetupColumn(tr(L, Str::weight));
        ImGui::TableHeadersRow();
        for (int j = 0; j < t.n_keys(); ++j) {
          const bool off = !std::isfinite(trace_layer_mask(t, v.f.layer)(q, j));
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          key_label(v, j, off ? kStepsHidden : (j == best && m > 0 ? kStepsAccent : 0));
          ImGui::TableNextColumn();
          steps_bar(v.weights(q, j), m, false, bar_width(), j == best ? kStepsAccent : kBarWeight);
          ImGui::TableNextColumn();
          steps_cell_right(steps_number(v.weights(q, j), v.decimals), off ? ImGui::GetColorU32(ImGuiCol_TextDisabled) : 0);
        }
        ImGui::EndTable();
      },
      [&](float w) { weights_map(v, w); });
}

}  // namespace attnviz
