// The Compare view: the main trace (A) beside a second one (B) that differs in one thing — the
// sentence, the head count, the masks or the ÷√d_k — with a difference map A − B per head on a
// diverging scale (white = no change). It reads app.trace, app.trace_b and the maps app_update
// derived in app.compare; it never computes attention. Mode and sentence B edits set app.dirty.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "render/heatmap.h"
#include "shell/fonts.h"
#include "shell/panels.h"
#include "shell/shell.h"
#include "shell/view_registry.h"
#include "state/answer_text.h"
#include "text/word_swap.h"
#include "views/compare/compare_parts.h"
#include "widgets/draw.h"
#include "widgets/patching_panel.h"
#include "widgets/hangul_typing.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

constexpr float kDiffMin = -1.0f, kDiffMax = 1.0f;  // the range app_update maps textures_cmp with

Str mode_str(CompareMode m) {
  switch (m) {
    case CompareMode::sentence_b: return Str::cmp_mode_sentence;
    case CompareMode::single_vs_multi: return Str::cmp_mode_heads;
    case CompareMode::masked_vs_unmasked: return Str::cmp_mode_mask;
    case CompareMode::scaled_vs_unscaled: return Str::cmp_mode_scale;
  }
  return Str::cmp_mode_sentence;
}

Str explain_str(CompareMode m) {
  switch (m) {
    case CompareMode::sentence_b: return Str::cmp_explain_sentence;
    case CompareMode::single_vs_multi: return Str::cmp_explain_heads;
    case CompareMode::masked_vs_unmasked: return Str::cmp_explain_mask;
    case CompareMode::scaled_vs_unscaled: return Str::cmp_explain_scale;
  }
  return Str::cmp_explain_sentence;
}

Str score_str(ScoreKind k) {
  switch (k) {
    case ScoreKind::scaled_dot: return Str::score_scaled_dot;
    case ScoreKind::dot: return Str::score_dot;
    case ScoreKind::general: return Str::score_general;
    case ScoreKind::additive: return Str::score_additive;
  }
  return Str::score_scaled_dot;
}

// SameLine when an item `width` wide still fits on this line, else start the next one (large fonts).
void same_line_if_fits(float width, float spacing) {
  ImGui::SameLine(0, spacing);
  if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

float labelled_width(float item_w, const char* label) {
  return item_w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

// What A and B are, in words, for the line under the toolbar.
std::string side_desc(const AppState& app, const Trace& t, bool is_a) {
  const Lang L = app.lang;
  if (t.weights_only) return t.model_source;  // two attention files: their names
  switch (app.compare.mode) {
    case CompareMode::sentence_b: return tr(L, is_a ? Str::cmp_desc_sentence_a : Str::cmp_desc_sentence_b);
    case CompareMode::single_vs_multi:
      if (!is_a) return tr_format(L, Str::cmp_desc_single, t.config.d_model);
      return tr_format(L, app.compare.average ? Str::cmp_desc_average : Str::cmp_desc_each, t.config.n_heads,
                       t.config.d_model / std::max(1, t.config.n_heads));
    case CompareMode::masked_vs_unmasked: {
      const bool a_masked = app.mask.any();  // B drops the masks, or adds causal when A has none
      if (is_a) return tr(L, a_masked ? Str::cmp_desc_masks_set : Str::cmp_desc_no_mask);
      return tr(L, a_masked ? Str::cmp_desc_no_mask : Str::cmp_desc_causal);
    }
    case CompareMode::scaled_vs_unscaled:
      return t.layers.empty() || t.layers[0].attn.heads.empty() ? std::string() : tr(L, score_str(t.head(0, 0).score));
  }
  return {};
}

// One comparison row: A, B and (when shapes match) A − B for one head.
struct Row {
  int head = 0;             // A's head (single_vs_multi: -1, the average)
  const Mat* a = nullptr;
  unsigned tex_a = 0;       // 0: no texture (A's average), the cells are painted here
  const Mat* b = nullptr;
  unsigned tex_b = 0;
  const Mat* diff = nullptr;
  unsigned tex_diff = 0;
};

std::vector<Row> build_rows(const AppState& app, const GuiResources& gui, int layer) {
  std::vector<Row> rows;
  const CompareMaps& cm = app.compare.maps;
  if (!app.trace || !app.trace_b || cm.a.empty() || cm.b.empty()) return rows;
  const int nh_b = app.trace_b->config.n_heads;
  if (app.compare.mode == CompareMode::single_vs_multi) {
    // B's one head beside each of A's heads (the default), or beside their average.
    const int n = static_cast<int>(cm.a.size()) - 1;  // A's heads; the average is last
    for (int h = app.compare.average ? -1 : 0; h < (app.compare.average ? 0 : n); ++h) {
      Row r;
      r.head = h;
      r.a = h < 0 ? &cm.a.back() : &cm.a[static_cast<size_t>(h)];
      if (h >= 0) r.tex_a = gui_head_texture(app, gui, layer, h);
      r.b = &cm.b[0];
      r.tex_b = gui.heads_b.texture(layer * nh_b);
      const size_t d = h < 0 ? cm.diff.size() - 1 : static_cast<size_t>(h);
      if (d < cm.diff.size()) {
        r.diff = &cm.diff[d];
        r.tex_diff = gui.compare.texture(static_cast<int>(d));
      }
      rows.push_back(r);
    }
    return rows;
  }
  for (size_t h = 0; h < cm.a.size() && h < cm.b.size(); ++h) {
    Row r;
    r.head = static_cast<int>(h);
    r.a = &cm.a[h];
    r.tex_a = gui_head_texture(app, gui, layer, r.head);
    r.b = &cm.b[h];
    r.tex_b = gui.heads_b.texture(layer * nh_b + r.head);
    if (h < cm.diff.size()) {
      r.diff = &cm.diff[h];
      r.tex_diff = gui.compare.texture(static_cast<int>(h));
    }
    rows.push_back(r);
  }
  return rows;
}

float max_abs(const Mat* m) { return m && m->size() > 0 ? m->cwiseAbs().maxCoeff() : 0.0f; }

bool same_tokens(const std::vector<TraceToken>& x, const std::vector<TraceToken>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].text != y[i].text) return false;
  return true;
}

// Sizes shared by every row: labels, title line, cell size.
struct Layout {
  float cell = 8, gap = 14;
  float label_a = 0, label_b = 0;  // row-label room left of A and (when B's tokens differ) of B
  float col_h = 0, title_h = 0;
  int tq = 1, tk_a = 1, tk_b = 1;
  bool has_diff = false;
  float x_a = 0, x_b = 0, x_d = 0;  // left edge of each map's cells, relative to the grid start
  float row_h = 0;
};

// has_b false: A alone (an attention file before a second one is opened), no room kept for B.
Layout layout_compare(const Trace& A, const Trace& B, bool has_diff, int n_rows, ImVec2 avail, float reserve_h,
                      bool presentation, bool has_b = true) {
  Layout g;
  g.gap = ImGui::GetFontSize() * 1.1f;
  g.label_a = heatmap_label_extent(A.queries);
  g.label_b = !has_b || same_tokens(A.queries, B.queries) ? 0.0f : heatmap_label_extent(B.queries);
  g.col_h = std::max(heatmap_label_extent(A.keys), heatmap_label_extent(B.keys));
  g.title_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  g.tq = std::max(A.n_queries(), B.n_queries());
  g.tk_a = A.n_keys();
  g.tk_b = has_b ? B.n_keys() : 0;
  g.has_diff = has_diff;
  const float cols = static_cast<float>(g.tk_a + g.tk_b + (has_diff ? g.tk_a : 0));
  const float by_w = (avail.x - g.label_a - g.label_b - g.gap * (has_diff ? 2.5f : 1.5f)) / cols;
  const float by_h = ((avail.y - g.col_h - reserve_h) / static_cast<float>(n_rows) - g.title_h - g.gap) / static_cast<float>(g.tq);
  // Height may force tiny cells (long sentences; presentation mode, whose header takes half the
  // view): rather scroll down than go below 12 px at the UI's scale, where the width allows it. At
  // 1280 x 800 in presentation mode the height alone made 4-pixel cells, 48-pixel maps. On a
  // projector (presentation mode) not below 22 px at 1280 x 800, in proportion on smaller screens:
  // cells that hold their values.
  const float min_cell = std::max(12.0f * ui_scale(), presentation ? heatmap_projector_cell(22.0f) : 0.0f);
  g.cell = std::clamp(std::floor(std::min(by_w, std::max(by_h, min_cell))), 2.0f, 64.0f);
  g.x_a = g.label_a;
  g.x_b = g.x_a + g.cell * static_cast<float>(g.tk_a) + g.gap + g.label_b;
  g.x_d = g.x_b + g.cell * static_cast<float>(g.tk_b) + g.gap;
  g.row_h = g.title_h + g.cell * static_cast<float>(g.tq) + g.gap;
  return g;
}

struct Hover {
  int row = -1, q = -1, k = -1;
};

void cell_tooltip(const AppState& app, const Trace& A, const Trace& B, const Row& r, int layer, int q, int k) {
  const Lang L = app.lang;
  auto token = [](const std::vector<TraceToken>& v, int i) { return i >= 0 && i < static_cast<int>(v.size()) ? v[static_cast<size_t>(i)].text : std::string("—"); };
  auto at = [](const Mat* m, int i, int j) { return m && i < m->rows() && j < m->cols(); };
  ImGui::BeginTooltip();
  if (r.head >= 0) ImGui::Text("%s %d · %s %d", tr(L, Str::layer), layer + 1, tr(L, Str::head), r.head + 1);
  else ImGui::Text("%s %d", tr(L, Str::layer), layer + 1);
  const std::string qa = token(A.queries, q), qb = token(B.queries, q), ka = token(A.keys, k), kb = token(B.keys, k);
  if (qa == qb) ImGui::Text("%s: %s (#%d)", tr(L, Str::query), qa.c_str(), q);
  else ImGui::Text("%s: A %s · B %s (#%d)", tr(L, Str::query), qa.c_str(), qb.c_str(), q);
  if (ka == kb) ImGui::Text("%s: %s (#%d)", tr(L, Str::key), ka.c_str(), k);
  else ImGui::Text("%s: A %s · B %s (#%d)", tr(L, Str::key), ka.c_str(), kb.c_str(), k);
  ImGui::Separator();
  if (at(r.a, q, k)) ImGui::Text("A      %.6f", static_cast<double>((*r.a)(q, k)));
  if (at(r.b, q, k)) ImGui::Text("B      %.6f", static_cast<double>((*r.b)(q, k)));
  if (at(r.diff, q, k)) {
    const float d = (*r.diff)(q, k);
    const ImVec4 col = d > 0.0005f ? ImVec4(1.0f, 0.55f, 0.5f, 1) : d < -0.0005f ? ImVec4(0.55f, 0.7f, 1.0f, 1) : ImGui::GetStyleColorVec4(ImGuiCol_Text);
    ImGui::TextColored(col, "A – B  %+.6f", static_cast<double>(d));
  }
  ImGui::EndTooltip();
}

// One map of a row. origin: top-left of its title; the cells start one title line below.
HeatmapHit draw_map(AppState& app, const Layout& g, const char* id, const std::string& title, const std::string& short_title, ImVec2 origin, const Mat* values,
                    unsigned texture, const Trace& tokens_of, bool row_labels, float row_label_w, bool col_labels,
                    const Mat* mask, bool diverging) {
  HeatmapHit none;
  if (!values) return none;
  const float map_w = g.cell * static_cast<float>(values->cols());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // The title is clipped to its map so long descriptions never run into the next column.
  dl->PushClipRect(origin, ImVec2(origin.x + map_w + g.gap * 0.5f, origin.y + g.title_h), true);
  const std::string& shown = ImGui::CalcTextSize(title.c_str()).x <= map_w + g.gap * 0.5f ? title : short_title;
  dl->AddText(origin, ImGui::GetColorU32(ImGuiCol_Text), shown.c_str());
  dl->PopClipRect();
  HeatmapWidget w;
  w.id = id;
  w.texture = texture;
  w.values = values;
  w.rows = &tokens_of.queries;
  w.cols = &tokens_of.keys;
  w.mask = mask;
  w.origin = ImVec2(origin.x, origin.y + g.title_h);
  w.cell = g.cell;
  w.row_labels = row_labels;
  w.col_labels = col_labels;
  w.row_label_w = row_label_w;
  w.col_label_h = g.col_h;
  w.col_label_gap = g.title_h;
  w.annotate = app.annotate;
  w.cmap = diverging ? Colormap::diverging : app.cmap;
  w.vmin = diverging ? kDiffMin : 0.0f;
  w.vmax = diverging ? kDiffMax : 1.0f;
  w.highlight_row = app.query;
  heatmap_keep_coref_labels(app, w);  // as in the Heads view: the roles' labels give way last
  w.row_title = tr(app.lang, Str::axis_query);
  w.col_title = tr(app.lang, Str::axis_key);
  HeatmapHit hit = heatmap_widget(w);  // A's average and the differences have no texture: painted
  if (hit.label_row_clicked >= 0) app.query = app.query == hit.label_row_clicked ? -1 : hit.label_row_clicked;
  return hit;
}

float diff_legend_room() { return ImGui::GetFontSize() * 0.7f + 4 + ImGui::GetTextLineHeight(); }

void compare_toolbar(AppState& app, const Trace& t, bool head_selector) {
  const Lang L = app.lang;
  // Attention files: B is a second file, not a mode that rebuilds a model.
  const bool modes = app.source != ModelSource::attention;
  ImGui::AlignTextToFramePadding();
  if (modes) {
    ImGui::TextUnformatted(tr(L, Str::cmp_mode));
    ImGui::SameLine();
    float mode_w = 0;
    for (CompareMode m : kAllCompareModes) mode_w = std::max(mode_w, ImGui::CalcTextSize(tr(L, mode_str(m))).x);
    ImGui::SetNextItemWidth(mode_w + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::BeginCombo("##mode", tr(L, mode_str(app.compare.mode)))) {
      for (CompareMode m : kAllCompareModes)
        if (ImGui::Selectable(tr(L, mode_str(m)), m == app.compare.mode) && m != app.compare.mode) {
          app.compare.mode = m;
          app.dirty = true;
        }
      ImGui::EndCombo();
    }
  }
  const float small_w = ImGui::GetFontSize() * 5;
  if (modes) same_line_if_fits(labelled_width(small_w, tr(L, Str::layer)), ImGui::GetFontSize());
  ImGui::SetNextItemWidth(small_w);
  const std::string layer_preview = std::to_string(app.layer + 1) + " / " + std::to_string(t.layers.size());
  if (ImGui::BeginCombo(tr(L, Str::layer), layer_preview.c_str())) {
    for (int l = 0; l < static_cast<int>(t.layers.size()); ++l)
      if (ImGui::Selectable(std::to_string(l + 1).c_str(), l == app.layer)) app.layer = l;
    ImGui::EndCombo();
  }
  if (head_selector) {
    same_line_if_fits(labelled_width(small_w, tr(L, Str::head)), ImGui::GetFontSize());
    ImGui::SetNextItemWidth(small_w);
    const std::string head_preview = std::to_string(app.head + 1) + " / " + std::to_string(t.config.n_heads);
    if (ImGui::BeginCombo(tr(L, Str::head), head_preview.c_str())) {
      for (int h = 0; h < t.config.n_heads; ++h)
        if (ImGui::Selectable(std::to_string(h + 1).c_str(), h == app.head)) app.head = h;
      ImGui::EndCombo();
    }
  }
  same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), tr(L, Str::annotate)), ImGui::GetFontSize());
  ImGui::Checkbox(tr(L, Str::annotate), &app.annotate);
  if (modes && app.compare.mode == CompareMode::single_vs_multi) {
    same_line_if_fits(labelled_width(ImGui::GetFrameHeight(), tr(L, Str::cmp_average)), ImGui::GetFontSize());
    ImGui::Checkbox(tr(L, Str::cmp_average), &app.compare.average);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(L, Str::cmp_average_tip));
  }
  if (app_computing(app)) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr(L, Str::computing));
  }
  if (!modes) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped(tr(L, explain_str(app.compare.mode)));
  ImGui::PopStyleColor();
}

void sentence_b_row(AppState& app) {
  const Lang L = app.lang;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::cmp_sentence_b));
  ImGui::SameLine();
  const char* swap = tr(L, Str::cmp_swap);
  const float swap_w = ImGui::CalcTextSize(swap).x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - swap_w - ImGui::GetStyle().ItemSpacing.x, ImGui::GetFontSize() * 8));
  if (app.focus_field == "compare_sentence") {
    ImGui::SetKeyboardFocusHere();
    app.focus_field.clear();
  }
  if (hangul_input_text("##sentence_b", app.compare.sentence, &app.hangul)) app.dirty = true;
  ImGui::SameLine();
  const std::string swapped = text_swap_words(app.sentence, "tired", "wide");
  ImGui::BeginDisabled(swapped == app.sentence);
  if (ImGui::Button(swap)) {
    app.compare.sentence = swapped;
    app.dirty = true;
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", tr(L, Str::cmp_swap_tip));
}

// "A: ... B: ..." in the colours of their columns' titles.
void sides_line(const AppState& app, const Trace& A, const Trace& B) {
  ImGui::TextUnformatted("A:");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", side_desc(app, A, true).c_str());
  ImGui::SameLine(0, ImGui::GetFontSize() * 2);
  ImGui::TextUnformatted("B:");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", side_desc(app, B, false).c_str());
  // Both models' answers, when they give one: what one head against N heads changes in the result.
  // A side without one says why when the other has one (a demo under a mask it was not trained with).
  const bool a_says = app.answer || app.answer_error, b_says = app.answer_b || app.answer_b_error;
  if ((app.answer || app.answer_b) && a_says && b_says) {
    const std::string a = "A: " + answer_line_text(app.answer ? &*app.answer : nullptr,
                                                   app.answer_error ? &*app.answer_error : nullptr, A, app.lang);
    const std::string b = "B: " + answer_line_text(app.answer_b ? &*app.answer_b : nullptr,
                                                   app.answer_b_error ? &*app.answer_b_error : nullptr, B, app.lang);
    ImGui::TextColored(ImVec4(0.6f, 0.9f, 0.6f, 1), "%s", a.c_str());
    same_line_if_fits(ImGui::CalcTextSize(b.c_str()).x, ImGui::GetFontSize() * 2);
    ImGui::TextColored(ImVec4(0.6f, 0.9f, 0.6f, 1), "%s", b.c_str());
  }
  // Random weights show the mechanics of splitting into heads, not what heads learn: say so.
  if (app.compare.mode == CompareMode::single_vs_multi && app.source == ModelSource::sandbox) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.7f, 0.35f, 1));
    text_wrapped(tr(app.lang, Str::cmp_random_note));
    ImGui::PopStyleColor();
  }
}

// Small thumbnails above the big maps. In single_vs_multi: A's heads that make up the average;
// otherwise every head's difference map with its largest change, clickable to choose the head.
void overview_strip(AppState& app, const GuiResources& gui, const Trace& A, const std::vector<Row>& rows, int layer) {
  const Lang L = app.lang;
  const bool heads_of_a = app.compare.mode == CompareMode::single_vs_multi;
  const int n = heads_of_a ? A.config.n_heads : static_cast<int>(rows.size());
  if (n <= 1) return;
  // The header follows the "A: … B: …" line when it fits there.
  const std::string header = !heads_of_a            ? std::string(tr(L, Str::cmp_overview))
                             : app.compare.average ? tr_format(L, Str::cmp_heads_strip, n)
                                                   : tr_format(L, Str::cmp_heads_strip_each, n);
  same_line_if_fits(ImGui::CalcTextSize(header.c_str()).x, ImGui::GetFontSize() * 2);
  ImGui::TextDisabled("%s", header.c_str());
  // Thumbnails stay small next to the big maps: at most 4 lines of text and a tenth of the height.
  const float gap = ImGui::GetFontSize() * 0.5f;
  const float avail = ImGui::GetContentRegionAvail().x;
  const float largest = std::max(ImGui::GetFontSize() * 1.5f, std::min(ImGui::GetFontSize() * 4.0f, ImGui::GetContentRegionAvail().y * 0.1f));
  const float side = std::floor(std::clamp((avail - gap * static_cast<float>(n - 1)) / static_cast<float>(n), ImGui::GetFontSize() * 1.5f, largest));
  const float label_h = heads_of_a ? 0.0f : ImGui::GetTextLineHeight();
  const ImVec2 start = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float thick = ui_scale() * 2.0f;
  const ImU32 accent = IM_COL32(255, 160, 30, 255);
  // Each slot is as wide as its label ("8 · .99") when that is wider than the thumbnail.
  const float slot = std::max(side, heads_of_a ? 0.0f : ImGui::CalcTextSize("88 · .99").x) + gap;
  int per_line = std::max(1, static_cast<int>((avail + gap) / slot));
  int lines = (n + per_line - 1) / per_line;
  for (int i = 0; i < n; ++i) {
    const int h = heads_of_a ? i : rows[static_cast<size_t>(i)].head;
    const ImVec2 p(start.x + static_cast<float>(i % per_line) * slot + (slot - gap - side) * 0.5f,
                   start.y + static_cast<float>(i / per_line) * (side + label_h + gap));
    const unsigned tex = heads_of_a ? gui_head_texture(app, gui, layer, h) : rows[static_cast<size_t>(i)].tex_diff;
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex)), p, ImVec2(p.x + side, p.y + side));
    dl->AddRect(ImVec2(p.x - 1, p.y - 1), ImVec2(p.x + side + 1, p.y + side + 1),
                !heads_of_a && h == app.head ? accent : ImGui::GetColorU32(ImGuiCol_Border), 0, 0, !heads_of_a && h == app.head ? thick : 1.0f);
    char label[48];
    if (heads_of_a) std::snprintf(label, sizeof label, "%d", h + 1);
    else std::snprintf(label, sizeof label, "%d · %s", h + 1, heatmap_value_text(max_abs(rows[static_cast<size_t>(i)].diff), true).c_str());
    if (!heads_of_a) {
      const float tw = ImGui::CalcTextSize(label).x;
      dl->AddText(ImVec2(p.x + (side - tw) * 0.5f, p.y + side + 1), h == app.head ? accent : ImGui::GetColorU32(ImGuiCol_Text), label);
    } else {
      dl->AddText(ImVec2(p.x + 3, p.y + 1), IM_COL32(255, 255, 255, 230), label);
    }
    ImGui::SetCursorScreenPos(p);
    ImGui::PushID(i);
    if (ImGui::InvisibleButton("thumb", ImVec2(side, side + label_h))) app.head = h;
    if (ImGui::IsItemHovered()) {
      if (heads_of_a) ImGui::SetTooltip("%s %d", tr(L, Str::head), h + 1);
      else ImGui::SetTooltip("%s %d · %s %.4f", tr(L, Str::head), h + 1, tr(L, Str::cmp_max_abs), static_cast<double>(max_abs(rows[static_cast<size_t>(i)].diff)));
    }
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(avail, static_cast<float>(lines) * (side + label_h + gap) - gap * 0.5f));
}

void compare_grid(AppState& app, GuiResources& gui, const Trace& A, const Trace& B, const std::vector<Row>& shown, int layer) {
  const Lang L = app.lang;
  const bool has_diff = shown[0].diff != nullptr, has_b = shown[0].b != nullptr;
  ImGui::BeginChild("compare_grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const Layout g = layout_compare(A, B, has_diff, static_cast<int>(shown.size()), ImGui::GetContentRegionAvail(),
                                  has_diff ? diff_legend_room() + 4 : 0, app.presentation, has_b);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 grid0(start.x, start.y + g.col_h);
  const bool single = app.compare.mode == CompareMode::single_vs_multi;
  Hover hover;
  for (size_t i = 0; i < shown.size(); ++i) {
    const Row& r = shown[i];
    ImGui::PushID(static_cast<int>(i));
    const float y = grid0.y + g.row_h * static_cast<float>(i);
    std::string head_part = r.head >= 0 ? " · " + std::string(tr(L, Str::head)) + " " + std::to_string(r.head + 1) : "";
    const std::string ta = single && r.head < 0 ? "A · " + side_desc(app, A, true) : "A" + head_part;
    const std::string tb = single ? "B · " + side_desc(app, B, false) : "B" + head_part;
    const std::string td_short = "A – B" + head_part;
    const std::string td = td_short + "  (" + tr(L, Str::cmp_max_abs) + " " + heatmap_value_text(max_abs(r.diff), true) + ")";
    const bool top = i == 0;
    HeatmapHit ha = draw_map(app, g, "a", ta, "A" + head_part, ImVec2(start.x + g.x_a, y), r.a, r.tex_a, A, true, g.label_a, top, &A.mask, false);
    HeatmapHit hb = draw_map(app, g, "b", tb, "B" + head_part, ImVec2(start.x + g.x_b, y), r.b, r.tex_b, B, g.label_b > 0, g.label_b, top, &B.mask, false);
    HeatmapHit hd = draw_map(app, g, "d", td, td_short, ImVec2(start.x + g.x_d, y), r.diff, r.tex_diff, A, false, 0, top, &A.mask, true);
    for (const auto& [h, values] : {std::pair{&ha, r.a}, std::pair{&hb, r.b}, std::pair{&hd, r.diff}})
      if (values)  // for --layout-report
        gui.drawn.push_back(DrawnHeatmap{layer, r.head, h->cells_origin.x, h->cells_origin.y, g.cell, static_cast<int>(values->rows()),
                                         static_cast<int>(values->cols()), "compare", h->rows_labelled, h->cols_labelled,
                                         h->label_px, h->numbers, ImGui::GetWindowDrawList()->GetClipRectMin(),
                                         ImGui::GetWindowDrawList()->GetClipRectMax()});
    for (const HeatmapHit* h : {&ha, &hb, &hd})
      if (h->hovered) {
        hover = Hover{static_cast<int>(i), h->row, h->col};
        if (h->clicked) {
          app.query = h->row;
          if (r.head >= 0) app.head = r.head;
        }
      }
    ImGui::PopID();
  }
  // The hovered cell is outlined in all three maps of its row, and explained in one tooltip.
  if (hover.row >= 0) {
    const Row& r = shown[static_cast<size_t>(hover.row)];
    const float y = grid0.y + g.row_h * static_cast<float>(hover.row) + g.title_h;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float thick = ui_scale() * 1.5f;
    for (const auto& [m, x] : {std::pair{r.a, g.x_a}, std::pair{r.b, g.x_b}, std::pair{r.diff, g.x_d}}) {
      if (!m || hover.q >= m->rows() || hover.k >= m->cols()) continue;
      const ImVec2 c0(start.x + x + g.cell * static_cast<float>(hover.k), y + g.cell * static_cast<float>(hover.q));
      dl->AddRect(ImVec2(c0.x - 1, c0.y - 1), ImVec2(c0.x + g.cell + 1, c0.y + g.cell + 1), IM_COL32(255, 160, 30, 255), 0, 0, thick);
    }
    cell_tooltip(app, A, B, r, layer, hover.q, hover.k);
  }
  float bottom = grid0.y + g.row_h * static_cast<float>(shown.size());
  if (has_diff) {
    const float diff_w = g.cell * static_cast<float>(g.tk_a);
    const float w = std::max(diff_w, diverging_legend_min_width(L));
    const float right = std::max(start.x + g.x_d + diff_w, start.x + ImGui::GetContentRegionAvail().x);
    const float x = std::min(start.x + g.x_d, right - w);
    diverging_legend_at(L, ImVec2(x, bottom - g.gap * 0.5f), w);
    bottom += diff_legend_room();
  }
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(g.x_d + (has_diff ? g.cell * static_cast<float>(g.tk_a) : 0.0f), bottom - start.y));
  ImGui::EndChild();
}

}  // namespace

void compare_view_draw(AppState& app, GuiResources& gui) {
  if (!view_begin(app, View::compare)) return;
  const Lang L = app.lang;
  const Trace& A = *app.trace;
  // app.compare was built for this layer before the panels drew; edits below apply next frame.
  const int layer = app.layer;
  const std::vector<Row> rows = build_rows(app, gui, layer);
  // All heads when they fit at a readable size, else the chosen head (with a head selector and
  // the per-head overview to pick it).
  bool show_all = rows.size() <= 1;
  if (!show_all && app.trace_b) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float reserve = ImGui::GetFrameHeightWithSpacing() * 3 + ImGui::GetTextLineHeightWithSpacing() * 3;
    const Layout g = layout_compare(A, *app.trace_b, rows[0].diff != nullptr, static_cast<int>(rows.size()),
                                    ImVec2(avail.x, avail.y - reserve), rows[0].diff ? diff_legend_room() : 0, app.presentation);
    show_all = g.cell >= ImGui::GetTextLineHeight() * 0.8f;
  }
  if (app.source == ModelSource::attention && !app.trace_b) {  // one attention file: A alone, and how to add B
    compare_toolbar(app, A, true);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr(L, Str::attn_compare_hint));
    ImGui::PopTextWrapPos();
    const int h = std::clamp(app.head, 0, A.config.n_heads - 1);
    Row r;
    r.head = h;
    r.a = &A.head(layer, h).weights_kept;  // an attention file keeps its maps
    r.tex_a = gui_head_texture(app, gui, layer, h);
    compare_grid(app, gui, A, A, {r}, layer);
    ImGui::End();
    return;
  }
  compare_toolbar(app, A, !show_all);
  if (app.compare.mode == CompareMode::sentence_b && app.source != ModelSource::attention) sentence_b_row(app);
  if (!app.error_b.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1));
    text_wrapped(std::string(tr(L, Str::cmp_error_b)) + " " + app.error_b);
    ImGui::PopStyleColor();
  }
  if (!app.trace_b || rows.empty()) {
    if (app.error_b.empty()) ImGui::TextDisabled("%s", tr(L, Str::computing));
    ImGui::End();
    return;
  }
  const Trace& B = *app.trace_b;
  sides_line(app, A, B);
  if (!app.compare.maps.note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.35f, 1));
    if (A.n_queries() != B.n_queries() || A.n_keys() != B.n_keys()) {
      text_wrapped(tr_format(L, Str::cmp_note_tokens, A.n_queries(), B.n_queries()));
    } else {
      text_wrapped(app.compare.maps.note);
    }
    ImGui::PopStyleColor();
  }
  std::vector<Row> shown;
  if (show_all) shown = rows;
  else
    for (const Row& r : rows)
      if (r.head == app.head) shown.push_back(r);
  if (shown.empty()) shown.push_back(rows[0]);
  if (app.compare.mode == CompareMode::single_vs_multi) compare_query_rows(app, gui, A, B, layer);
  if (!show_all || app.compare.mode == CompareMode::single_vs_multi)
    if (rows[0].diff || app.compare.mode == CompareMode::single_vs_multi) overview_strip(app, gui, A, rows, layer);
  ImGui::Spacing();
  compare_grid(app, gui, A, B, shown, layer);
  // Two sentences of the same model: what of A's answer each head or position carries into B.
  if (app.compare.mode == CompareMode::sentence_b) patching_panel(app);
  ImGui::End();
}

}  // namespace attnviz
