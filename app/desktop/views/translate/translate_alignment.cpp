// The Translation view's alignment matrix (shared by its tabs) and the Alignment tab: the matrix of
// the chosen cross-attention head beside the decoder's heads — how many of the sentence's content
// tokens each one aligns, switching it off, and what the model then translates.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "views/translate/translate_parts.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

std::vector<TraceToken> tokens_of(const std::vector<std::string>& texts) {
  std::vector<TraceToken> out;
  for (const std::string& s : texts) out.push_back(TraceToken{s});
  return out;
}

std::string row_label(const std::string& token) { return translate_particle_token(token) ? "-" + token : token; }

void cell_tooltip(const AppState& app, const AlignmentDraw& d, const Mat& values, int row, int col) {
  const Lang L = app.lang;
  const TranslateReadout& r = *d.readout;
  ImGui::BeginTooltip();
  ImGui::Text("%s", translate_head_name(app, d.head).c_str());
  ImGui::Text("%s ← %s", translate_row_token(*d.model, r, row).c_str(), r.pair.source[static_cast<size_t>(col)].c_str());
  ImGui::Text("α = %.4f", static_cast<double>(values(row, col)));
  if (r.exact && row < static_cast<int>(r.pair.gold.size()))
    ImGui::TextDisabled("%s", tr_format(L, Str::tl_gold_is, r.pair.source[static_cast<size_t>(r.pair.gold[static_cast<size_t>(row)])].c_str()).c_str());
  ImGui::EndTooltip();
}

}  // namespace

Mat alignment_values(const TranslateReadout& r, int head) {
  const auto& layers = r.forward.decoder;
  if (layers.empty()) return Mat();
  const auto& heads = layers[0].cross.attn.heads;
  const int NH = static_cast<int>(heads.size());
  if (head >= 0) return layers[static_cast<size_t>(head / NH)].cross.attn.heads[static_cast<size_t>(head % NH)].weights_kept;
  Mat mean = Mat::Zero(heads[0].weights_kept.rows(), heads[0].weights_kept.cols());
  for (const HeadTrace& h : heads) mean += h.weights_kept;
  return mean / static_cast<float>(NH);
}

std::string translate_head_name(const AppState& app, int head) {
  if (head < 0) return tr(app.lang, Str::tl_mean_heads);
  const TranslateModel* m = translate_shown_model(app);
  const int NH = m ? m->arch.n_heads : 1;
  return std::string(tr(app.lang, Str::layer)) + " " + std::to_string(head / NH + 1) + " · " + tr(app.lang, Str::head) + " " +
         std::to_string(head % NH + 1);
}

AlignmentHit alignment_matrix(const AppState& app, const AlignmentDraw& d) {
  AlignmentHit out;
  const TranslateReadout& r = *d.readout;
  const Mat values = alignment_values(r, d.head);
  if (values.size() == 0) return out;
  const int R = static_cast<int>(values.rows()), S = static_cast<int>(values.cols());
  std::vector<std::string> rows;
  for (int i = 0; i < R; ++i) rows.push_back(translate_row_token(*d.model, r, i));
  const std::vector<TraceToken> row_tokens = tokens_of(rows), col_tokens = tokens_of(r.pair.source);
  float label_w = 0;
  for (const std::string& s : rows) label_w = std::max(label_w, ui_text_width(row_label(s)));
  const float bracket = tl_px(0.6f);
  label_w += bracket + 8.0f;
  const float col_h = heatmap_label_extent(col_tokens);
  const float cell = std::max(d.min_cell, std::min({d.max_cell, (d.size.x - label_w) / static_cast<float>(S),
                                                   (d.size.y - col_h) / static_cast<float>(R)}));
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 origin(at.x + label_w, at.y + col_h);

  HeatmapWidget w;
  w.values = &values;
  w.rows = &row_tokens;
  w.cols = &col_tokens;
  w.origin = origin;
  w.cell = cell;
  w.col_labels = true;
  w.row_label_w = label_w;
  w.col_label_h = col_h;
  w.annotate = app.annotate;
  w.cmap = app.cmap;
  w.highlight_row = d.highlight_row;
  w.id = d.id;
  const HeatmapHit hit = heatmap_widget(w);

  // Row labels: a particle as "-가", bracketed to its noun's row above.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float px = std::max(kHeatmapMinLabelPx, std::min(tl_px(), cell * 0.92f));
  const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  float widest = 0;  // at the labels' size: the bracket goes just left of the longest
  for (const std::string& s : rows) widest = std::max(widest, ImGui::GetFont()->CalcTextSizeA(px, 1e9f, 0, row_label(s).c_str()).x);
  const float bracket_x = std::max(at.x + bracket * 0.3f, origin.x - 5.0f - widest - bracket * 0.7f);
  for (int i = 0; i < R; ++i) {
    const std::string label = row_label(rows[static_cast<size_t>(i)]);
    const float mid = origin.y + cell * (static_cast<float>(i) + 0.5f);
    const float tw = ImGui::GetFont()->CalcTextSizeA(px, 1e9f, 0, label.c_str()).x;
    const bool particle = translate_particle_token(rows[static_cast<size_t>(i)]);
    dl->AddText(ImGui::GetFont(), px, ImVec2(origin.x - 5.0f - tw, mid - px * 0.5f), i == d.highlight_row ? kAccent : particle ? dim : ink,
                label.c_str());
    if (particle && i > 0) {
      const float x = bracket_x, top = mid - cell;
      dl->AddLine(ImVec2(x, top), ImVec2(x, mid), dim, 1.5f);
      dl->AddLine(ImVec2(x, top), ImVec2(x + bracket * 0.6f, top), dim, 1.5f);
      dl->AddLine(ImVec2(x, mid), ImVec2(x + bracket * 0.6f, mid), dim, 1.5f);
    }
  }
  // The grammar's gold source token of each row, when the translation is the grammar's.
  if (r.exact) {
    for (int i = 0; i < std::min<int>(R, static_cast<int>(r.pair.gold.size())); ++i) {
      const float x = origin.x + cell * static_cast<float>(r.pair.gold[static_cast<size_t>(i)]), y = origin.y + cell * static_cast<float>(i);
      dl->AddRect(ImVec2(x + 1, y + 1), ImVec2(x + cell - 1, y + cell - 1), IM_COL32(255, 255, 255, 230), 0, 0, std::max(1.5f, cell * 0.08f));
    }
  }
  if (hit.hovered && hit.row >= 0 && hit.col >= 0) {
    out.row = hit.row;
    out.col = hit.col;
    out.clicked = hit.clicked;
    cell_tooltip(app, d, values, hit.row, hit.col);
  }
  ImGui::SetCursorScreenPos(ImVec2(at.x, origin.y + cell * static_cast<float>(R) + 4.0f));
  ImGui::Dummy(ImVec2(label_w + cell * static_cast<float>(S), 1));
  return out;
}

namespace {

// The decoder's cross-attention heads: each one's share of the sentence's content tokens aligned,
// a switch, and the translation without it.
void heads_panel(AppState& app, float width) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  const TranslateReadout& r = *t.readout;
  const TranslateModel* m = translate_shown_model(app);
  if (!m) return;
  const int NH = m->arch.n_heads, shown = translate_shown_head(app);
  section_header(tr(L, Str::tl_heads_title));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextDisabled("%s", tr_format(L, Str::tl_heads_hint, r.content_tokens).c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::Selectable(tr(L, Str::tl_mean_heads), t.head == -2)) t.head = -2;
  float top_drop = 0;  // the bars' scale
  for (const TranslateHeadEffect& e : t.effects) top_drop = std::max(top_drop, e.logprob_drop);
  for (int k = 0; k < static_cast<int>(r.head_aligned.size()); ++k) {
    const int layer = k / NH, head = k % NH;
    ImGui::PushID(k);
    bool off = t.cross_off.has(layer, head);
    if (ImGui::Checkbox("##off", &off)) (void)translate_toggle_head(app, layer, head);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::tl_head_switch_tip));
    ImGui::SameLine();
    const std::string name = "L" + std::to_string(layer + 1) + " H" + std::to_string(head + 1);
    const std::string label = tr_format(L, Str::tl_head_aligned, name.c_str(), static_cast<double>(r.head_aligned[static_cast<size_t>(k)]) * 100.0) +
                              (k == r.best_head ? std::string(" ★") : std::string());
    if (ImGui::Selectable(label.c_str(), k == shown && t.head != -2)) t.head = k;
    // What the model translates without this head (the heads already off stay off).
    for (const TranslateHeadEffect& e : t.effects) {
      if (e.head.layer != layer || e.head.head != head) continue;
      ImGui::Indent(tl_px(1.6f));
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - tl_px(1.6f));
      const ImVec4 colour = e.exact ? tl_right_colour() : tl_wrong_colour();
      ImGui::TextColored(colour, "%s", tr_format(L, e.changed ? Str::tl_without_changed : Str::tl_without_same, translate_written(e.output).c_str()).c_str());
      // The head's importance for this sentence as a bar, the largest drop filling the panel's width.
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float bar_w = width - tl_px(1.6f), h = tl_px(0.45f);
      const float share = top_drop > 0 ? std::clamp(e.logprob_drop / top_drop, 0.0f, 1.0f) : 0.0f;
      ImDrawList* dl = ImGui::GetWindowDrawList();
      dl->AddRectFilled(p, ImVec2(p.x + bar_w, p.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
      dl->AddRectFilled(p, ImVec2(p.x + bar_w * share, p.y + h), kAccent);
      ImGui::Dummy(ImVec2(bar_w, h));
      ImGui::TextDisabled("%s", tr_format(L, Str::tl_logp_drop, static_cast<double>(e.logprob_drop)).c_str());
      ImGui::PopTextWrapPos();
      ImGui::Unindent(tl_px(1.6f));
    }
    if (off) {
      ImGui::Indent(tl_px(1.6f));
      ImGui::TextDisabled("%s", tr(L, Str::tl_head_is_off));
      ImGui::Unindent(tl_px(1.6f));
    }
    ImGui::PopID();
  }
}

}  // namespace

void translate_alignment_tab(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  const TranslateModel* m = translate_readout_model(app);
  if (!m) return;
  const TranslateReadout& r = *t.readout;
  if (r.forward.decoder.empty()) {  // the bottleneck: nothing to align
    text_wrapped(tr(L, Str::tl_bottleneck_no_matrix));
    return;
  }
  const float panel_w = std::min(tl_px(20), ImGui::GetContentRegionAvail().x * 0.36f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const int head = t.head == -2 ? -1 : translate_shown_head(app);
  const float matrix_w = avail.x - panel_w - ImGui::GetStyle().ItemSpacing.x * 2;
  ImGui::BeginGroup();
  AlignmentDraw d;
  d.model = m;
  d.readout = &r;
  d.head = head;
  d.size = ImVec2(matrix_w, ImGui::GetContentRegionAvail().y - tl_px(2.5f));
  d.min_cell = tl_px(1.05f);  // row labels as large as the text: legible on a projector, the tab scrolls
  d.id = "tl_alignment";
  alignment_matrix(app, d);
  // What the matrix is, below it: the matrix takes the height above.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + matrix_w);
  ImGui::TextUnformatted(tr_format(L, Str::tl_matrix_caption, translate_head_name(app, head).c_str()).c_str());
  ImGui::TextDisabled("%s", tr(L, r.exact ? Str::tl_gold_marked : Str::tl_gold_not_marked));
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginChild("tl_heads", ImVec2(0, 0), false);
  heads_panel(app, panel_w);
  ImGui::EndChild();
}

}  // namespace attnviz
