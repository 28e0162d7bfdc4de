// The Translation view's Step by step tab: decoding one step in the seed article's notation, with
// this step's numbers — the decoder's state s_{i-1} as the query, each score e_ij against the
// source's annotations h_j, the weights α_ij, the context c_i, and the next token with its
// probability. The bottleneck model reads one fixed c instead, which the tab says and shows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "views/translate/translate_parts.h"
#include "widgets/draw.h"
#include "widgets/formula.h"

namespace attnviz {

namespace {

constexpr ImU32 kStepAccent = IM_COL32(255, 200, 90, 255);

std::string number(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(v));
  return buf;
}

// A vector as a strip of coloured cells, its values in the tooltip (and in the cells when they fit).
void vector_strip(const AppState& app, const char* id, const RowVec& v) {
  const int n = static_cast<int>(v.size());
  if (n == 0) return;
  const float cell = std::clamp((ImGui::GetContentRegionAvail().x - 4) / static_cast<float>(n), 6.0f, tl_px(2.6f));
  const float top = std::max(v.cwiseAbs().maxCoeff(), 1e-6f);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int i = 0; i < n; ++i) {
    const float t = 0.5f + 0.5f * v(i) / top;
    const Rgba c = colormap_sample(Colormap::diverging, t);
    const ImVec2 p0(at.x + cell * static_cast<float>(i), at.y), p1(p0.x + cell - 1, at.y + tl_px(1.4f));
    dl->AddRectFilled(p0, p1, IM_COL32(c.r, c.g, c.b, 255));
  }
  ImGui::InvisibleButton(id, ImVec2(cell * static_cast<float>(n), tl_px(1.4f)));
  if (ImGui::IsItemHovered()) {
    const int i = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - at.x) / cell), 0, n - 1);
    ImGui::SetTooltip("[%d] = %.4f", i, static_cast<double>(v(i)));
  }
  (void)app;
}

// The decoder's input so far as chips, the token this step produces outlined.
void step_chips(const AppState& app, const TranslateReadout& r, int step) {
  const TranslateModel* m = translate_shown_model(app);
  ImGui::TextDisabled("%s", tr(app.lang, Str::tl_steps_read));
  for (int i = 0; i <= step; ++i) {
    const std::string tok = i == 0 ? m->decoder.vocab[kTranslateBos] : r.output[static_cast<size_t>(i - 1)];
    same_line_or_wrap(ui_text_width(tok) + ImGui::GetStyle().FramePadding.x * 2);
    ImGui::SmallButton((tok + "##in" + std::to_string(i)).c_str());
  }
  const std::string next = translate_row_token(*m, r, step);
  same_line_or_wrap(ui_text_width(next) + tl_px(6));
  ImGui::TextDisabled("→");
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.45f, 0.1f, 1));
  ImGui::SmallButton((next + "##next").c_str());
  ImGui::PopStyleColor();
}

void navigation(AppState& app) {
  TranslateState& t = app.translate;
  const int rows = t.readout->rows();
  if (ImGui::ArrowButton("##prev", ImGuiDir_Left) && t.step > 0) --t.step;
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Right) && t.step + 1 < rows) ++t.step;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(tl_px(14));
  int shown = t.step + 1;
  if (ImGui::SliderInt("##step", &shown, 1, rows, tr_format(app.lang, Str::tl_step_of, shown, rows).c_str())) t.step = shown - 1;
}

std::string score_markup(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::scaled_dot: return "e_{ij} = \\frac{q_i · k_j}{\\sqrt{d_k}}";
    case ScoreKind::dot: return "e_{ij} = q_i · k_j";
    case ScoreKind::general: return "e_{ij} = q_i^T W_a k_j";
    case ScoreKind::additive: return "e_{ij} = v_a^T tanh(W_a q_i + U_a k_j)";
  }
  return "";
}

// Per source token j: e_ij and α_ij, the gold token and the strongest marked.
void score_table(const AppState& app, const TranslateReadout& r, const HeadTrace& h, int step) {
  const Lang L = app.lang;
  const int S = static_cast<int>(h.weights_kept.cols());
  Eigen::Index strongest = 0;
  h.weights_kept.row(step).maxCoeff(&strongest);
  const int gold = r.exact && step < static_cast<int>(r.pair.gold.size()) ? r.pair.gold[static_cast<size_t>(step)] : -1;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const float height = std::min(ImGui::GetContentRegionAvail().y, (static_cast<float>(S) + 1.5f) * ImGui::GetFrameHeight());
  if (!ImGui::BeginTable("tl_scores", 4, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("j");
  ImGui::TableSetupColumn(tr(L, Str::tl_col_source));
  ImGui::TableSetupColumn("e_ij");
  ImGui::TableSetupColumn("α_ij", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (int j = 0; j < S; ++j) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", j + 1);
    ImGui::TableNextColumn();
    const std::string word = r.pair.source[static_cast<size_t>(j)] + (j == gold ? "  ◆" : "");
    if (j == strongest) ImGui::TextColored(ImVec4(1, 0.78f, 0.35f, 1), "%s", word.c_str());
    else ImGui::TextUnformatted(word.c_str());
    ImGui::TableNextColumn();
    const float e = h.scores_scaled.size() ? h.scores_scaled(step, j) : h.scores_raw.size() ? h.scores_raw(step, j) : 0.0f;
    ImGui::TextUnformatted(number(e).c_str());
    ImGui::TableNextColumn();
    const float a = h.weights_kept(step, j);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = std::max(ImGui::GetContentRegionAvail().x - tl_px(4), 10.0f);
    ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + w * a, p.y + ImGui::GetTextLineHeight()), IM_COL32(90, 150, 230, 255));
    ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
    ImGui::SameLine();
    ImGui::TextUnformatted(number(a).c_str());
  }
  ImGui::EndTable();
  ImGui::TextDisabled("%s", tr(L, gold >= 0 ? Str::tl_steps_marks : Str::tl_steps_marks_no_gold));
}

void next_token(const AppState& app, const TranslateReadout& r, int step) {
  const Lang L = app.lang;
  const TranslateModel* m = translate_shown_model(app);
  const auto& top = r.top[static_cast<size_t>(step)];
  const std::string tok = m->decoder.vocab[static_cast<size_t>(top[0].token)];
  formula_item("y_i = argmax_y p(y | y_{<i}, x) = " + tok, tl_px(1.25f), kStepAccent);
  std::string line = tr_format(L, Str::tl_next_prob, tok.c_str(), static_cast<double>(top[0].probability) * 100.0);
  for (size_t k = 1; k < top.size(); ++k)
    line += (k == 1 ? "  · " + std::string(tr(L, Str::tl_then)) + " " : ", ") + m->decoder.vocab[static_cast<size_t>(top[k].token)] + " " +
            number(top[k].probability * 100.0f).substr(0, 4) + "%";
  text_wrapped(line);
}

}  // namespace

void translate_steps_tab(AppState& app) {
  const Lang L = app.lang;
  TranslateState& t = app.translate;
  const TranslateModel* m = translate_readout_model(app);
  if (!m) return;
  const TranslateReadout& r = *t.readout;
  const int step = std::clamp(t.step, 0, r.rows() - 1);
  navigation(app);
  step_chips(app, r, step);
  ImGui::Spacing();
  const bool bottleneck = r.forward.decoder.empty();
  const int head = bottleneck ? -1 : std::max(0, t.head == -2 ? r.best_head : translate_shown_head(app));
  const float left_w = bottleneck ? 0.0f : std::min(ImGui::GetContentRegionAvail().x * 0.42f, tl_px(26));
  if (!bottleneck) {
    ImGui::BeginGroup();
    AlignmentDraw d;
    d.model = m;
    d.readout = &r;
    d.head = head;
    d.size = ImVec2(left_w, ImGui::GetContentRegionAvail().y - tl_px(1));
    d.max_cell = tl_px(1.6f);
    d.highlight_row = step;
    d.id = "tl_step_alignment";
    const AlignmentHit hit = alignment_matrix(app, d);
    if (hit.clicked && hit.row >= 0) t.step = hit.row;
    ImGui::EndGroup();
    ImGui::SameLine();
  }
  ImGui::BeginChild("tl_step_numbers", ImVec2(0, 0), false);
  const int NH = m->arch.n_heads;
  // 1. The decoder's state becomes the query.
  section_header(tr(L, Str::tl_steps_query_title));
  text_wrapped(tr(L, bottleneck ? Str::tl_steps_query_bottleneck : Str::tl_steps_query));
  if (!bottleneck) {
    const HeadTrace& h = r.forward.decoder[static_cast<size_t>(head / NH)].cross.attn.heads[static_cast<size_t>(head % NH)];
    formula_item("q_i = W_Q s_{i-1}", tl_px(1.2f), kStepAccent);
    vector_strip(app, "##q", h.q.row(step));
    // 2. A score per source token; 3. the weights.
    section_header(tr_format(L, Str::tl_steps_scores_title, translate_head_name(app, head).c_str()).c_str());
    text_wrapped(tr(L, Str::tl_steps_annotations));
    formula_item("k_j = W_K h_j,\\,\\, v_j = W_V h_j", tl_px(1.2f), kStepAccent);
    formula_item(score_markup(m->arch.score), tl_px(1.2f), kStepAccent);
    formula_item("α_{ij} = \\frac{exp(e_{ij})}{\\sum_k exp(e_{ik})}", tl_px(1.2f), kStepAccent);
    score_table(app, r, h, step);
    // 4. The context.
    section_header(tr(L, Str::tl_steps_context_title));
    formula_item("c_i = \\sum_j α_{ij} v_j", tl_px(1.2f), kStepAccent);
    vector_strip(app, "##c", h.out.row(step));
    text_wrapped(tr(L, Str::tl_steps_context_note));
  } else {
    section_header(tr(L, Str::tl_steps_context_title));
    formula_item("c = \\frac{1}{S} \\sum_j h_j", tl_px(1.2f), kStepAccent);
    vector_strip(app, "##c", r.forward.context);
    text_wrapped(tr(L, Str::tl_steps_bottleneck_note));
  }
  // 5. The next token.
  section_header(tr(L, Str::tl_steps_next_title));
  next_token(app, r, step);
  ImGui::EndChild();
}

}  // namespace attnviz
