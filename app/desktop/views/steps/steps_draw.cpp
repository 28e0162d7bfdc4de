// Matrices without a texture (scores, (T, C) activations) are drawn as rectangles; when a cell is
// narrower than a pixel, each pixel shows the largest-magnitude value it covers, so the rectangle
// count stays near the map's pixel count however wide C is.
#include "views/steps/steps_draw.h"

#include <algorithm>
#include <cmath>

#include "views/steps/steps_format.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"

namespace attnviz {

namespace {

constexpr ImU32 kHiddenCell = IM_COL32(60, 60, 66, 255);
constexpr size_t kLabelChars = 14;

ImU32 to_u32(Rgba c) { return IM_COL32(c.r, c.g, c.b, 255); }

// The value of a pooled cell: the largest |v| among rows [r0, r1) x cols [c0, c1); -inf when every
// covered cell is hidden.
float pooled(const Mat& m, int r0, int r1, int c0, int c1) {
  float best = -INFINITY;
  bool any = false;
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const float v = m(r, c);
      if (!std::isfinite(v)) continue;
      if (!any || std::fabs(v) > std::fabs(best)) best = v;
      any = true;
    }
  return best;
}

// Row labels are centred on their rows, so with rows thinner than a line the first and last labels
// reach past the cells by half the difference: that overhang is room too.
float label_overhang(const MatrixMap& m) {
  return m.rows ? std::max(0.0f, (ImGui::GetTextLineHeight() - m.cell_h) * 0.5f) : 0.0f;
}

}  // namespace

ImFont* steps_large_font() {
  ImFont* best = ImGui::GetFont();
  for (ImFont* f : ImGui::GetIO().Fonts->Fonts)
    if (f->FontSize > best->FontSize) best = f;
  return best;
}

ImU32 steps_head_color(int head, int n_heads, bool chosen) {
  const float hue = n_heads > 0 ? static_cast<float>(head) / static_cast<float>(n_heads) : 0.0f;
  const ImVec4 c = ImColor::HSV(hue, chosen ? 0.75f : 0.45f, chosen ? 0.95f : 0.55f);
  return ImGui::ColorConvertFloat4ToU32(c);
}

void steps_flow(float next_width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float after = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
  if (after + next_width <= right) ImGui::SameLine();
}

float steps_number_width(int decimals) {
  const std::string widest = "-0." + std::string(static_cast<size_t>(decimals), '0');
  return ImGui::CalcTextSize(widest.c_str()).x;
}

int steps_dims_fit(float avail, float label_w, int groups, int decimals, int max_dims) {
  const ImGuiStyle& s = ImGui::GetStyle();
  const float col = steps_number_width(decimals) + s.CellPadding.x * 2 + 1;
  const float ellipsis = ImGui::CalcTextSize("…").x + s.CellPadding.x * 2 + 1;
  const float per_group = (avail - label_w - s.CellPadding.x * 2) / static_cast<float>(std::max(groups, 1)) - ellipsis;
  return std::clamp(static_cast<int>(per_group / col), 1, std::max(max_dims, 1));
}

void steps_cell_right(const std::string& text, ImU32 color) {
  const float w = ImGui::CalcTextSize(text.c_str()).x;
  const float room = ImGui::GetContentRegionAvail().x;
  if (room > w) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + room - w);
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextUnformatted(text.c_str());
  if (color) ImGui::PopStyleColor();
}

void steps_number_table(const NumberTable& t) {
  const float num_w = steps_number_width(t.decimals);
  const float label_w = t.labels ? std::min(heatmap_label_extent(*t.labels), ImGui::GetFontSize() * 7) : 0.0f;
  struct Col {
    const TableGroup* g = nullptr;
    int col = -1;  // -1: the "…" column
    std::string name;
  };
  std::vector<Col> cols;
  for (const TableGroup& g : t.groups) {
    if (!g.m) continue;
    const int end = g.col_end < 0 ? static_cast<int>(g.m->cols()) : g.col_end;
    const int last = std::min(g.col0 + g.dims, end);
    for (int c = g.col0; c < last; ++c) cols.push_back({&g, c, g.prefix + std::to_string(c)});
    if (last < end) cols.push_back({&g, -1, "…"});
  }
  const int n = 1 + static_cast<int>(cols.size());
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_BordersOuterH | ImGuiTableFlags_NoHostExtendX;
  if (!ImGui::BeginTable(t.id, n, flags)) return;
  ImGui::TableSetupColumn(t.label_header, ImGuiTableColumnFlags_WidthFixed, label_w);
  for (const Col& c : cols)
    ImGui::TableSetupColumn(c.name.c_str(), ImGuiTableColumnFlags_WidthFixed, c.col < 0 ? ImGui::CalcTextSize("…").x : num_w);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  ImGui::TableSetColumnIndex(0);
  ImGui::TextDisabled("%s", t.label_header);
  for (size_t i = 0; i < cols.size(); ++i) {
    ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
    if (cols[i].g->highlight) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, IM_COL32(255, 160, 30, 60));
    steps_cell_right(cols[i].name, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  }
  const int rows = t.groups.empty() || !t.groups[0].m ? 0 : static_cast<int>(t.groups[0].m->rows());
  ImGuiListClipper clipper;
  clipper.Begin(rows);
  while (clipper.Step())
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      ImGui::TableNextRow();
      const bool hi = r == t.highlight_row;
      if (hi) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(255, 160, 30, 70));
      ImGui::TableSetColumnIndex(0);
      if (t.labels && r < static_cast<int>(t.labels->size())) {
        const std::string label = steps_clip((*t.labels)[static_cast<size_t>(r)].text, kLabelChars);
        if (hi) ImGui::TextColored(ImColor(kStepsAccent), "%s", label.c_str());
        else ImGui::TextUnformatted(label.c_str());
      }
      for (size_t i = 0; i < cols.size(); ++i) {
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        const Col& c = cols[i];
        if (c.g->highlight) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, IM_COL32(255, 160, 30, 28));
        if (r >= c.g->m->rows()) continue;
        if (c.col < 0) ImGui::TextDisabled("…");
        else steps_cell_right(steps_number((*c.g->m)(r, c.col), t.decimals));
      }
    }
  ImGui::EndTable();
}

void steps_bar(float v, float max_abs, bool signed_axis, float width, ImU32 color) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float pad = h * 0.18f;
  dl->AddRectFilled(ImVec2(p.x, p.y + pad), ImVec2(p.x + width, p.y + h - pad), IM_COL32(255, 255, 255, 18));
  if (!std::isfinite(v) || max_abs <= 0) return;
  const float f = std::clamp(v / max_abs, -1.0f, 1.0f);
  if (signed_axis) {
    const float mid = p.x + width * 0.5f;
    const float end = mid + f * width * 0.5f;
    dl->AddRectFilled(ImVec2(std::min(mid, end), p.y + pad), ImVec2(std::max(mid, end), p.y + h - pad), color);
    dl->AddLine(ImVec2(mid, p.y), ImVec2(mid, p.y + h), IM_COL32(200, 200, 200, 120));
  } else {
    dl->AddRectFilled(ImVec2(p.x, p.y + pad), ImVec2(p.x + std::max(f, 0.0f) * width, p.y + h - pad), color);
  }
}

ImVec2 steps_matrix_label_room(const MatrixMap& m) {
  return ImVec2(m.rows ? std::min(heatmap_label_extent(*m.rows), ImGui::GetFontSize() * 7) : 0.0f,
                std::max(m.cols ? std::min(heatmap_label_extent(*m.cols), ImGui::GetFontSize() * 6) : 0.0f, label_overhang(m)));
}

MatrixHit steps_matrix_map(const MatrixMap& m) {
  MatrixHit hit;
  if (!m.values || m.values->size() == 0) return hit;
  const Mat& v = *m.values;
  const int R = static_cast<int>(v.rows()), C = static_cast<int>(v.cols());
  const ImVec2 room = steps_matrix_label_room(m);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 p0(start.x + room.x, start.y + room.y);
  const ImVec2 size(m.cell_w * C, m.cell_h * R);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);

  // Labels: every k-th one when cells are thinner than a line of text.
  if (m.cols) {
    const int step = m.cell_w >= line * 0.85f ? 1 : static_cast<int>(std::ceil(line * 0.85f / m.cell_w));
    for (int c = 0; c < C && c < static_cast<int>(m.cols->size()); c += step) {
      const TraceToken& tok = (*m.cols)[static_cast<size_t>(c)];
      draw_text_vertical(dl, ImVec2(p0.x + m.cell_w * (c + 0.5f) - line * 0.5f, p0.y - 4), tok.pad ? dim : text,
                         tok.text.c_str(), room.y - 4);
    }
  }
  if (m.rows) {
    const int step = m.cell_h >= line * 0.85f ? 1 : static_cast<int>(std::ceil(line * 0.85f / m.cell_h));
    // Every step-th label, but the highlighted row always shows its own and crowds out its neighbours.
    for (int r = 0; r < R && r < static_cast<int>(m.rows->size()); ++r) {
      const bool near_highlight = m.highlight_row >= 0 && r != m.highlight_row && std::abs(r - m.highlight_row) < step;
      if (r != m.highlight_row && (r % step != 0 || near_highlight)) continue;
      const std::string label = steps_clip((*m.rows)[static_cast<size_t>(r)].text, kLabelChars);
      const float w = ImGui::CalcTextSize(label.c_str()).x;
      const ImVec2 at(p0.x - 4 - w, p0.y + m.cell_h * (r + 0.5f) - line * 0.5f);
      dl->PushClipRect(ImVec2(start.x, at.y), ImVec2(p0.x - 2, at.y + line), true);
      dl->AddText(at, r == m.highlight_row ? kStepsAccent : text, label.c_str());
      dl->PopClipRect();
    }
  }

  // Cells, pooled to at most one rectangle per pixel in each direction.
  int nx = std::clamp(static_cast<int>(size.x), 1, C), ny = std::clamp(static_cast<int>(size.y), 1, R);
  if (m.max_rects > 0 && nx * ny > m.max_rects) {  // coarser pooling keeps big (T, C) maps cheap per frame
    const float f = std::sqrt(static_cast<float>(nx) * static_cast<float>(ny) / static_cast<float>(m.max_rects));
    nx = std::max(1, static_cast<int>(static_cast<float>(nx) / f));
    ny = std::max(1, static_cast<int>(static_cast<float>(ny) / f));
  }
  const float span = m.vmax > m.vmin ? m.vmax - m.vmin : 1.0f;
  for (int by = 0; by < ny; ++by) {
    const int r0 = by * R / ny, r1 = std::max((by + 1) * R / ny, r0 + 1);
    for (int bx = 0; bx < nx; ++bx) {
      const int c0 = bx * C / nx, c1 = std::max((bx + 1) * C / nx, c0 + 1);
      bool hidden = false;
      if (m.mask && r1 - r0 == 1 && c1 - c0 == 1 && r0 < m.mask->rows() && c0 < m.mask->cols())
        hidden = !std::isfinite((*m.mask)(r0, c0));
      const float val = pooled(v, r0, r1, c0, c1);
      const ImVec2 a(p0.x + m.cell_w * c0, p0.y + m.cell_h * r0), b(p0.x + m.cell_w * c1, p0.y + m.cell_h * r1);
      if (hidden || !std::isfinite(val)) {
        dl->AddRectFilled(a, b, kHiddenCell);
        if (m.cell_w >= 6 && m.cell_h >= 6) dl->AddLine(a, b, IM_COL32(150, 150, 150, 170));
      } else {
        dl->AddRectFilled(a, b, to_u32(colormap_sample(m.cmap, (val - m.vmin) / span)));
      }
    }
  }
  if (m.block > 0 && m.block < C)
    for (int c = m.block; c < C; c += m.block)
      dl->AddLine(ImVec2(p0.x + m.cell_w * c, p0.y), ImVec2(p0.x + m.cell_w * c, p0.y + size.y), IM_COL32(20, 20, 24, 255),
                  std::max(1.0f, ImGui::GetFontSize() / 12));
  const float thick = std::max(2.0f, ImGui::GetFontSize() / 9);
  if (m.frame_first >= 0 && m.frame_last >= m.frame_first)
    dl->AddRect(ImVec2(p0.x + m.cell_w * m.frame_first - 1, p0.y - 1),
                ImVec2(p0.x + m.cell_w * (m.frame_last + 1) + 1, p0.y + size.y + 1), kStepsAccent, 0, 0, thick);
  if (m.highlight_row >= 0 && m.highlight_row < R)
    dl->AddRect(ImVec2(p0.x - 1, p0.y + m.cell_h * m.highlight_row - 1),
                ImVec2(p0.x + size.x + 1, p0.y + m.cell_h * (m.highlight_row + 1) + 1), kStepsAccent, 0, 0, thick);

  ImGui::SetCursorScreenPos(p0);
  ImGui::PushID(m.id);
  ImGui::InvisibleButton("cells", ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
  ImGui::PopID();
  const bool hovered = ImGui::IsItemHovered();
  if (label_overhang(m) > 0) ImGui::Dummy(ImVec2(1, label_overhang(m)));
  if (m.legend) {  // the colour bar under the cells, as wide as they are (at least a few numbers wide)
    ImGui::SetCursorScreenPos(ImVec2(p0.x, ImGui::GetCursorScreenPos().y + 2));
    colormap_legend(m.cmap, m.vmin, m.vmax, std::max(size.x, ImGui::GetFontSize() * 8));
  }
  if (hovered) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    hit.hovered = true;
    hit.row = std::clamp(static_cast<int>((mouse.y - p0.y) / m.cell_h), 0, R - 1);
    hit.col = std::clamp(static_cast<int>((mouse.x - p0.x) / m.cell_w), 0, C - 1);
    if (m.cell_w >= 3 && m.cell_h >= 3)
      dl->AddRect(ImVec2(p0.x + m.cell_w * hit.col, p0.y + m.cell_h * hit.row),
                  ImVec2(p0.x + m.cell_w * (hit.col + 1), p0.y + m.cell_h * (hit.row + 1)), IM_COL32(255, 255, 255, 220));
  }
  return hit;
}

HeadBarHit steps_head_bar(int n_heads, int chosen, ImVec2 size, const char* id) {
  HeadBarHit hit;
  if (n_heads <= 0) return hit;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::PushID(id);
  const bool clicked = ImGui::InvisibleButton("bar", size);
  ImGui::PopID();
  const float w = size.x / static_cast<float>(n_heads);
  if (ImGui::IsItemHovered()) {
    hit.hovered = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - p.x) / w), 0, n_heads - 1);
    if (clicked) hit.clicked = hit.hovered;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float gap = w > 6 ? 1.0f : 0.0f;
  for (int h = 0; h < n_heads; ++h) {
    const ImVec2 a(p.x + w * h, p.y), b(p.x + w * (h + 1) - gap, p.y + size.y);
    dl->AddRectFilled(a, b, steps_head_color(h, n_heads, h == chosen || h == hit.hovered));
    const std::string label = std::to_string(h + 1);
    const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
    if (ts.x + 4 < w)
      dl->AddText(ImVec2(a.x + (w - ts.x) * 0.5f, a.y + (size.y - ts.y) * 0.5f),
                  h == chosen ? IM_COL32(0, 0, 0, 255) : IM_COL32(20, 20, 20, 200), label.c_str());
  }
  if (chosen >= 0 && chosen < n_heads)
    dl->AddRect(ImVec2(p.x + w * chosen - 2, p.y - 2), ImVec2(p.x + w * (chosen + 1) + 1, p.y + size.y + 2), IM_COL32(255, 255, 255, 255),
                0, 0, std::max(2.0f, ImGui::GetFontSize() / 9));
  return hit;
}

}  // namespace attnviz
