// The one place heatmap cells are drawn on screen. Cells come from the GPU texture when there is
// one; a map without a texture (a derived map: an average, a difference) is painted cell by cell
// with the same colour mapping. Labels, marks and annotations (only when cells are large enough to
// hold a number) are drawn per frame either way.
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "render/heatmap.h"
#include "shell/fonts.h"
#include "state/app_state.h"
#include "state/axis_labels.h"
#include "state/shown_words.h"
#include "state/cell_numbers.h"
#include "state/soft_wrap.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

constexpr float kLabelMax = 110.0f;  // longest row label drawn, in pixels at the 17-pixel font; longer ones end in "…"

float label_max() { return kLabelMax * ui_scale(); }  // presentation mode and HiDPI draw larger text

constexpr int kCellNumbersMaxCells = 4096;  // more cells than this are never large enough to hold a value

// The cells' values as written (row-major over the window), and the size to write them at
// (state/cell_numbers.h, from the widest); none when the cells cannot hold a legible one.
struct CellNumbers {
  std::vector<std::string> texts;
  float px = 0;
};

CellNumbers cell_numbers(const HeatmapWidget& w, int R, int C) {
  CellNumbers out;
  if (!w.annotate || R * C > kCellNumbersMaxCells || w.cell < kCellNumberMinPx * ui_content_scale()) return out;
  float widest = 0;
  out.texts.reserve(static_cast<size_t>(R) * static_cast<size_t>(C));
  for (int q = 0; q < R; ++q)
    for (int k = 0; k < C; ++k) {
      out.texts.push_back(heatmap_value_text((*w.values)(w.row0 + q, w.col0 + k), true));
      widest = std::max(widest, ui_text_width(out.texts.back()));
    }
  out.px = cell_number_px(w.cell, widest, ImGui::GetFontSize(), ui_content_scale());
  if (out.px <= 0) out.texts.clear();
  return out;
}

// The axes' titles in the corner left of the key labels and above the query labels: the key's at the
// corner's foot with a mark pointing right (to the keys), the query's above it pointing down (to the
// queries), each right-aligned against the map. A title the corner cannot hold is left out.
void axis_titles(const HeatmapWidget& w, ImDrawList* dl, ImU32 colour) {
  const float line = ImGui::GetTextLineHeight(), mark = line * 0.45f;
  const float right = w.origin.x - 6, bottom = w.origin.y - w.col_label_gap - 4;
  const float room_w = w.row_label_w - 8, room_h = w.col_label_h;
  float y = bottom - line;
  const auto title = [&](const char* text, bool down) {
    const float width = ui_text_width(text) + mark + 4;
    if (width > room_w || bottom - y > room_h) return;
    const ImVec2 at(right - width, y);
    dl->AddText(at, colour, text);
    const float cx = right - mark * 0.5f, cy = y + line * 0.5f;
    if (down) dl->AddTriangleFilled(ImVec2(cx - mark * 0.5f, cy - mark * 0.35f), ImVec2(cx + mark * 0.5f, cy - mark * 0.35f),
                                    ImVec2(cx, cy + mark * 0.5f), colour);
    else dl->AddTriangleFilled(ImVec2(cx - mark * 0.35f, cy - mark * 0.5f), ImVec2(cx - mark * 0.35f, cy + mark * 0.5f),
                               ImVec2(cx + mark * 0.5f, cy), colour);
    y -= line + 2;
  };
  if (w.col_title) title(w.col_title, false);
  if (w.row_title) title(w.row_title, true);
}

}  // namespace

float heatmap_projector_cell(float at_projector) {
  const ImVec2 screen = ImGui::GetIO().DisplaySize;
  return std::floor(at_projector * std::min(screen.x / 1280.0f, screen.y / 800.0f));
}

void heatmap_keep_coref_labels(const AppState& app, HeatmapWidget& w) {
  if (!app.answer || app.answer->kind != AnswerKind::coref || app_words_shown(app)) return;
  const CorefExample& e = app.answer->example;
  w.keep_row_labels = {e.pronoun};
  w.keep_col_labels = {e.candidate_a, e.candidate_b, e.property};
}

float heatmap_label_extent(const std::vector<TraceToken>& tokens) {
  float w = 0;
  for (const TraceToken& t : tokens) w = std::max(w, ImGui::CalcTextSize(t.text.c_str()).x);
  return std::min(w, label_max()) + 6.0f;
}

HeatmapHit heatmap_widget(const HeatmapWidget& w) {
  HeatmapHit hit;
  if (!w.values) return hit;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int r0 = w.row0, c0w = w.col0;  // the window's first matrix row and column
  const int R = w.nrows >= 0 ? w.nrows : static_cast<int>(w.values->rows()) - r0;
  const int C = w.ncols >= 0 ? w.ncols : static_cast<int>(w.values->cols()) - c0w;
  const int highlight = w.highlight_row - r0;  // in window rows
  const ImVec2 p0 = w.origin, p1(p0.x + w.cell * C, p0.y + w.cell * R);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 accent = IM_COL32(255, 160, 30, 255);
  const float line = ImGui::GetTextLineHeight();
  std::vector<int> kept_cols;  // in window columns
  for (int k : w.keep_col_labels) kept_cols.push_back(k - c0w);
  std::vector<int> kept_rows{highlight};  // in window rows
  for (int q : w.keep_row_labels) kept_rows.push_back(q - r0);
  ImGui::PushID(w.id);

  // Labels at the UI's size when a cell holds a line of text; in smaller cells they shrink to the
  // cell, so that every one is drawn, and only below kHeatmapMinLabelPx do some give way.
  const float font_px = ImGui::GetFontSize();
  const float label_px =
      w.cell >= line ? font_px : std::min(font_px, std::max(kHeatmapMinLabelPx * ui_content_scale(), w.cell * font_px / line));
  const float label_line = line * label_px / font_px;
  const auto label_width = [&](std::string_view s) { return ui_text_width(s) * label_px / font_px; };
  hit.label_px = label_px;
  hit.cells_origin = p0;
  if (w.row_labels && w.col_labels && (w.row_title || w.col_title)) axis_titles(w, dl, dim_col);
  if (w.col_labels && w.cols)
    for (int k : axis_labels_shown(std::min(C, static_cast<int>(w.cols->size()) - c0w), w.cell, label_line, kept_cols)) {
      const TraceToken& tok = (*w.cols)[static_cast<size_t>(c0w + k)];
      const ImVec2 at(p0.x + w.cell * (k + 0.5f) - label_line * 0.5f, p0.y - 4 - w.col_label_gap);
      draw_text_vertical(dl, at, tok.pad ? dim_col : text_col, tok.text.c_str(), w.col_label_h - 4, label_px);
      hit.cols_labelled.push_back(c0w + k);
    }
  if (w.row_labels && w.rows) {
    for (int q : axis_labels_shown(std::min(R, static_cast<int>(w.rows->size()) - r0), w.cell, label_line, kept_rows)) {
      const TraceToken& tok = (*w.rows)[static_cast<size_t>(r0 + q)];
      // Right-aligned against the map; a label wider than the room ends in "…" rather than being cut.
      const std::string shown = fit_with_ellipsis(tok.text, std::min(w.row_label_w - 6.0f, label_max()), label_width);
      const ImVec2 at(p0.x - 4 - label_width(shown), p0.y + w.cell * (q + 0.5f) - label_line * 0.5f);
      ImGui::PushClipRect(ImVec2(p0.x - w.row_label_w, at.y), ImVec2(p0.x - 2, at.y + label_line), true);
      dl->AddText(ImGui::GetFont(), label_px, at, q == highlight ? accent : (tok.pad ? dim_col : text_col), shown.c_str());
      ImGui::PopClipRect();
      hit.rows_labelled.push_back(r0 + q);
    }
    ImGui::SetCursorScreenPos(ImVec2(p0.x - w.row_label_w, p0.y));
    if (ImGui::InvisibleButton("rows", ImVec2(std::max(w.row_label_w, 1.0f), w.cell * R))) {
      const int q = static_cast<int>((ImGui::GetIO().MousePos.y - p0.y) / w.cell);
      if (q >= 0 && q < R) hit.label_row_clicked = r0 + q;
    }
  }

  const bool painted = w.texture == 0;
  if (!painted) dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(w.texture)), p0, p1);
  const CellNumbers numbers = cell_numbers(w, R, C);
  const bool annotate = numbers.px > 0;
  hit.numbers = annotate;
  const bool mark_masked = w.mask && w.cell >= 6.0f;
  const auto cell_colour = [&](float v, int column) {
    const Rgba c = colormap_color(w.first_column_apart && column == 0 ? Colormap::high_contrast : w.cmap, w.color_scale, v, w.vmin, w.vmax);
    return IM_COL32(c.r, c.g, c.b, 255);
  };
  for (int q = 0; (painted || mark_masked) && q < R; ++q)
    for (int k = 0; k < C; ++k) {
      const ImVec2 c0(p0.x + w.cell * k, p0.y + w.cell * q), c1(c0.x + w.cell, c0.y + w.cell);
      const int mq = r0 + q, mk = c0w + k;  // matrix row and column
      if (painted) dl->AddRectFilled(c0, c1, cell_colour((*w.values)(mq, mk), mk));
      if (mark_masked && mq < w.mask->rows() && mk < w.mask->cols() && !std::isfinite((*w.mask)(mq, mk)))
        dl->AddLine(c0, c1, IM_COL32(150, 150, 150, 170));
    }
  if (w.first_column_apart && c0w == 0 && C > 1) {  // the line that sets the first key apart
    const float x = p0.x + w.cell, half = std::max(1.0f, w.cell * 0.1f);
    dl->AddRectFilled(ImVec2(x - half, p0.y), ImVec2(x + half, p1.y), ImGui::GetColorU32(ImGuiCol_WindowBg));
  }
  if (w.hatched) draw_hatch(dl, p0, p1, std::max(10.0f, w.cell * 1.5f));
  // The values over everything else; over hatching each on a plate of its cell's dimmed colour.
  for (int q = 0; annotate && q < R; ++q)
    for (int k = 0; k < C; ++k) {
      const ImVec2 c0(p0.x + w.cell * k, p0.y + w.cell * q);
      const std::string& text = numbers.texts[static_cast<size_t>(q) * static_cast<size_t>(C) + static_cast<size_t>(k)];
      const ImVec2 sz = ImGui::GetFont()->CalcTextSizeA(numbers.px, FLT_MAX, 0.0f, text.c_str());
      const ImVec2 at(c0.x + (w.cell - sz.x) * 0.5f, c0.y + (w.cell - sz.y) * 0.5f);
      draw_cell_text(dl, at, cell_colour((*w.values)(r0 + q, c0w + k), c0w + k), w.hatched, text.c_str(), numbers.px);
    }
  if (highlight >= 0 && highlight < R)
    dl->AddRect(ImVec2(p0.x - 1, p0.y + w.cell * highlight - 1), ImVec2(p1.x + 1, p0.y + w.cell * (highlight + 1) + 1),
                accent, 0, 0, 2.0f);

  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("cells", ImVec2(std::max(p1.x - p0.x, 1.0f), std::max(p1.y - p0.y, 1.0f)));
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    hit.hovered = true;
    hit.row = std::clamp(static_cast<int>((m.y - p0.y) / w.cell), 0, R - 1);
    hit.col = std::clamp(static_cast<int>((m.x - p0.x) / w.cell), 0, C - 1);
    // Outlined in the colour that stands out on that cell (white vanishes on a light cell).
    const ImU32 outline = contrast_text_color(cell_colour((*w.values)(r0 + hit.row, c0w + hit.col), c0w + hit.col));
    dl->AddRect(ImVec2(p0.x + w.cell * hit.col, p0.y + w.cell * hit.row),
                ImVec2(p0.x + w.cell * (hit.col + 1), p0.y + w.cell * (hit.row + 1)), outline);
    hit.row += r0;  // report matrix coordinates
    hit.col += c0w;
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      hit.clicked = true;
      hit.ctrl_clicked = ImGui::GetIO().KeyCtrl;
    }
    hit.double_clicked = ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
  }
  ImGui::PopID();
  return hit;
}

}  // namespace attnviz
