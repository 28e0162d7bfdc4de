// The bottom of the Coreference view: the minimal pair (tired ↔ wide). Its actions (make B the
// pair, swap A and B), both answers side by side, and one head's weights for A and B with their
// difference A − B on the diverging scale. Reads app.trace / app.trace_b and the CorefSide cache;
// the buttons only set sentences (coref_use_minimal_pair, coref_swap_sentences).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "model/head_map.h"
#include "render/heatmap.h"
#include "state/answer_text.h"
#include "views/coref/coref_parts.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

// "A  tired → animal  p = 97.3%  ✓ correct"; the sentence itself only when B is not A's pair
// (otherwise it is the sentence above with one word changed, shown on hover).
void answer_column(const AppState& app, const char* name, const CorefSide& s, bool show_text) {
  const Lang L = app.lang;
  const CorefExample& e = s.example;
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("%s", name);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.text.c_str());
  ImGui::SameLine();
  if (show_text || !s.fits) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x);
    ImGui::TextUnformatted(s.text.c_str());
    if (!s.fits && s.why) ImGui::TextDisabled("%s", no_answer_text(*s.why, L).c_str());
    ImGui::PopTextWrapPos();
  }
  if (!s.fits) return;
  const int referent = s.answer ? s.answer->referent : e.referent;
  if (e.property >= 0) {
    coref_chip(coref_token_text(e, e.property), kCorefColProperty);
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("→");
    ImGui::SameLine();
  }
  if (referent < 0) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("?");
    return;
  }
  coref_chip(coref_token_text(e, referent), coref_role_color(e, referent));
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  if (!s.answer) {
    ImGui::TextDisabled("(%s)", tr(L, Str::co_pair_rule));
    return;
  }
  coref_probability_text(app, *s.answer);
  if (e.referent >= 0) {
    ImGui::SameLine();
    coref_verdict(app, referent == e.referent);
  }
}

float cmap_width(float cell, int cols) { return std::max(cell * static_cast<float>(cols), ImGui::GetFontSize() * 8); }

// Where the A – B legend starts: under the difference map, pulled left when its labels need more
// room than the window has; -1 when that would run into the first legend (it then takes a line).
float legend_x(Lang L, float edge, float x0, float cell, int cols_a, int cols_b, float gap) {
  const float width = std::max(cell * static_cast<float>(cols_a), diverging_legend_min_width(L));
  const float wanted = std::min(x0 + cell * static_cast<float>(cols_a + cols_b) + gap * 2, edge - width);
  return wanted >= x0 + cmap_width(cell, cols_a) + gap ? wanted : -1.0f;
}

void cell_tooltip(const AppState& app, const Trace& A, const Trace* B, int q, int k, int layer, int head, bool from_b) {
  const Lang L = app.lang;
  const Trace& T = from_b && B ? *B : A;
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(coref_head_name(app, layer, head).c_str());
  ImGui::Text("%s: %s (#%d) · %s: %s (#%d)", tr(L, Str::query), T.queries[static_cast<size_t>(q)].text.c_str(), q,
              tr(L, Str::key), T.keys[static_cast<size_t>(k)].text.c_str(), k);
  ImGui::Separator();
  const float a = q < A.n_queries() && k < A.n_keys() ? head_map_at(A, layer, head, q, k) : NAN;
  const bool same = B && B->n_queries() == A.n_queries() && B->n_keys() == A.n_keys();
  if (!from_b || same) ImGui::Text("A %s: %.4f", tr(L, Str::weight), static_cast<double>(a));
  if (B && q < B->n_queries() && k < B->n_keys()) {
    const float b = head_map_at(*B, layer, head, q, k);
    ImGui::Text("B %s: %.4f", tr(L, Str::weight), static_cast<double>(b));
    if (same) ImGui::Text("A – B: %+.4f", static_cast<double>(a - b));
  }
  ImGui::EndTooltip();
}

void pair_heatmaps(AppState& app, const GuiResources& gui, const CorefSide& a, int layer, int head, bool is_best) {
  const Lang L = app.lang;
  const Trace& A = *app.trace;
  const Trace& B = *app.trace_b;
  if (layer >= static_cast<int>(B.layers.size()) || head >= B.config.n_heads) return;
  std::string name = coref_head_name(app, layer, head);
  if (is_best) name += std::string(" (") + tr(L, Str::co_best) + ")";
  const std::string title = tr_format(L, Str::co_pair_head, name.c_str());
  ImGui::Spacing();
  ImGui::TextUnformatted(title.c_str());
  const bool same = A.n_queries() == B.n_queries() && A.n_keys() == B.n_keys();
  if (!same) text_wrapped(tr_format(L, Str::cmp_note_tokens, A.n_queries(), B.n_queries()));
  const float row_w = heatmap_label_extent(A.queries);
  const float col_h = std::max(heatmap_label_extent(A.keys), heatmap_label_extent(B.keys));
  const float title_h = ImGui::GetTextLineHeightWithSpacing();
  const float gap = ImGui::GetFontSize() * 1.2f;
  const float avail = ImGui::GetContentRegionAvail().x - row_w - gap * 2;
  const float total_cols = static_cast<float>(A.n_keys() + B.n_keys() + (same ? A.n_keys() : 0));
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const float top = start.y + col_h + title_h;
  // As wide as the row allows, but no taller than what is left of the window (scroll-independent)
  // unless that would make the cells too small to read.
  float cell = std::clamp(std::floor(avail / total_cols), 2.0f, ImGui::GetFontSize() * 2.2f);
  const float legend_line = ImGui::GetFontSize() * 0.7f + ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.y * 2;
  const bool legends_stack = same && legend_x(L, start.x + ImGui::GetContentRegionAvail().x, start.x + row_w, cell, A.n_keys(),
                                              B.n_keys(), gap) < 0;
  const float legend_h = legend_line * (legends_stack ? 2.0f : 1.0f) + ImGui::GetStyle().WindowPadding.y;
  const float left_h = ImGui::GetWindowPos().y + ImGui::GetWindowHeight() - (top + ImGui::GetScrollY()) - legend_h;
  const float rows = static_cast<float>(std::max(A.n_queries(), B.n_queries()));
  cell = std::min(cell, std::max(std::floor(left_h / rows), ImGui::GetFontSize() * 0.75f));
  const int pronoun = a.example.pronoun;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);

  const std::string prop_a = a.example.property >= 0 ? std::string(" · ") + coref_token_text(a.example, a.example.property) : "";
  const CorefSide& bs = app.coref.b;
  const std::string prop_b = bs.example.property >= 0 ? std::string(" · ") + coref_token_text(bs.example, bs.example.property) : "";
  const int nh = A.config.n_heads;
  struct Panel {
    const Trace* t;
    unsigned texture;
    std::string title;
    bool diff;
  };
  std::vector<Panel> panels = {{&A, gui_head_texture(app, gui, layer, head), "A" + prop_a, false},
                               {&B, gui.heads_b.texture(layer * nh + head), "B" + prop_b, false}};
  const std::shared_ptr<const Mat> map_a = head_map_shared(A, layer, head), map_b = head_map_shared(B, layer, head);
  Mat diff;
  if (same) {
    diff = *map_a - *map_b;
    panels.push_back({&A, 0u, "A – B", true});
  }
  float x = start.x + row_w;
  float right = x;
  for (size_t i = 0; i < panels.size(); ++i) {
    const Panel& pn = panels[i];
    const Mat& w = pn.diff ? diff : pn.t == &A ? *map_a : *map_b;
    dl->AddText(ImVec2(x, top - title_h), text, pn.title.c_str());
    HeatmapWidget hw;
    hw.texture = pn.texture;  // 0 for A – B: painted from `diff`
    hw.values = &w;
    hw.rows = &pn.t->queries;
    hw.cols = &pn.t->keys;
    hw.mask = pn.diff ? nullptr : &pn.t->mask;
    hw.origin = ImVec2(x, top);
    hw.cell = cell;
    hw.row_labels = i == 0;
    hw.col_labels = true;
    hw.row_label_w = row_w;
    hw.col_label_h = col_h;
    hw.col_label_gap = title_h;
    hw.annotate = app.annotate;
    hw.cmap = pn.diff ? Colormap::diverging : app.cmap;
    hw.vmin = pn.diff ? -1.0f : 0.0f;  // differences of weights lie in [-1, 1]: white is "no change"
    hw.highlight_row = i == 1 ? bs.example.pronoun : pronoun;
    const CorefExample& ex = i == 1 ? bs.example : a.example;  // the candidates and the property word keep their labels
    hw.keep_col_labels = {ex.candidate_a, ex.candidate_b, ex.property};
    hw.id = i == 0 ? "pair_a" : i == 1 ? "pair_b" : "pair_diff";
    const HeatmapHit hit = heatmap_widget(hw);
    if (hit.hovered) cell_tooltip(app, A, &B, hit.row, hit.col, layer, head, i == 1);
    right = x + cell * static_cast<float>(pn.t->n_keys());
    x = right + gap;
  }
  const float bottom = top + cell * static_cast<float>(std::max(A.n_queries(), B.n_queries()));
  ImGui::SetCursorScreenPos(ImVec2(start.x, bottom + ImGui::GetStyle().ItemSpacing.y));
  ImGui::Dummy(ImVec2(right - start.x, 1));
  // Legends: the weights' colour map under A and B, the diverging one under A – B.
  ImGui::SetCursorScreenPos(ImVec2(start.x + row_w, ImGui::GetCursorScreenPos().y));
  const float edge = start.x + ImGui::GetContentRegionAvail().x;
  colormap_legend(app.cmap, 0.0f, 1.0f, cmap_width(cell, A.n_keys()));
  if (!same) return;
  const float lx = legend_x(L, edge, start.x + row_w, cell, A.n_keys(), B.n_keys(), gap);
  const float width = std::max(cell * A.n_keys(), diverging_legend_min_width(L));
  if (lx >= 0) {
    ImGui::SameLine(0, 0);
    ImGui::SetCursorScreenPos(ImVec2(lx, ImGui::GetCursorScreenPos().y));
  } else {  // a line of its own, still as far right as it fits
    const float diff_x = start.x + row_w + cell * (A.n_keys() + B.n_keys()) + gap * 2;
    const float x0 = std::max(start.x + row_w, std::min(diff_x, edge - width));
    ImGui::SetCursorScreenPos(ImVec2(x0, ImGui::GetCursorScreenPos().y));
  }
  diverging_legend(L, width);
}

}  // namespace

void coref_pair_section(AppState& app, const GuiResources& gui, const CorefSide& a, int layer, int head, bool is_best) {
  const Lang L = app.lang;
  CorefState& v = app.coref;
  section_header(tr(L, Str::co_pair_title));
  if (v.minimal_pair.empty()) {
    text_wrapped(tr(L, Str::co_pair_no_property));
    return;
  }
  const bool is_pair = coref_b_shown(app) && app.compare.sentence == v.minimal_pair;
  const std::string label = tr_format(L, Str::co_pair_swap, coref_token_text(a.example, a.example.property), v.partner.c_str());
  ImGui::BeginDisabled(is_pair);
  if (ImGui::Button(label.c_str())) coref_use_minimal_pair(app);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr(L, Str::co_pair_swap_tip));
  if (!coref_b_shown(app)) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr(L, Str::co_pair_hint));
    return;
  }
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::co_pair_make_main))) coref_swap_sentences(app);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::co_pair_make_main_tip));
  if (!is_pair) {
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", tr(L, Str::co_pair_not_pair));
  }
  if (!app.error_b.empty()) {
    text_wrapped(std::string(tr(L, Str::cmp_error_b)) + " " + app.error_b);
    return;
  }
  if (!app.trace_b) {
    ImGui::TextDisabled("%s", tr(L, Str::computing));
    return;
  }
  // Side by side when both answers fit on one line, else one above the other.
  const float one = ImGui::CalcTextSize("A  suitcase → suitcase  p > 99.9%").x + ImGui::CalcTextSize(tr(L, Str::co_correct)).x +
                    ImGui::GetFontSize() * 5;
  const int columns = ImGui::GetContentRegionAvail().x >= 2 * one ? 2 : 1;
  if (ImGui::BeginTable("answers", columns, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    answer_column(app, "A", a, !is_pair);
    if (columns == 1) ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(columns == 1 ? 0 : 1);
    answer_column(app, "B", v.b, !is_pair);
    ImGui::EndTable();
  }
  if (layer >= 0) pair_heatmaps(app, gui, a, layer, head, is_best);
}

}  // namespace attnviz
