#include "widgets/value_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "state/grid_fit.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {
// Room around a cell's value or its column's label: the low values are near-black cells on the dark
// background, so with less the numbers of neighbouring cells read as one ("8.579*0.000").
constexpr float kCellPadding = 14;
}  // namespace

std::string grid_value_text(float value, int decimals) {
  char buf[32];
  const double v = std::round(static_cast<double>(value) * std::pow(10.0, decimals)) == 0 ? 0.0 : static_cast<double>(value);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

ValueGridHit value_grid(Lang L, const ValueGrid& g) {
  ValueGridHit hit;
  const int NL = static_cast<int>(g.values.size()), NC = NL > 0 ? static_cast<int>(g.values[0].size()) : 0;
  const bool named = !g.column_labels.empty();
  float top = 0;
  for (const auto& row : g.values)
    for (float d : row) top = std::max(top, g.diverging ? std::abs(d) : d);
  const auto column_label = [&](int c, bool short_label) {
    if (named) return g.column_labels[static_cast<size_t>(c)];
    return short_label ? std::to_string(c + 1) : std::string(tr(L, Str::head)) + " " + std::to_string(c + 1);
  };
  GridFitInput fit_in;
  fit_in.columns = NC;
  fit_in.avail = ImGui::GetContentRegionAvail().x;
  fit_in.label_w = std::max(ImGui::CalcTextSize((std::string(tr(L, Str::layer)) + " 00").c_str()).x,
                            ImGui::CalcTextSize((std::string(tr(L, Str::head)) + " →").c_str()).x) +
                   8;
  for (const std::string& t : g.texts) fit_in.value_w = std::max(fit_in.value_w, ImGui::CalcTextSize(t.c_str()).x + kCellPadding);
  for (int c = 0; c < NC; ++c)
    fit_in.column_label_w = std::max(fit_in.column_label_w, ImGui::CalcTextSize(column_label(c, false).c_str()).x + kCellPadding);
  const GridFit lay = grid_fit(fit_in);
  const float cell_w = lay.cell_w, label_w = fit_in.label_w, cell_h = ImGui::GetFrameHeight();
  const float height = ImGui::GetTextLineHeightWithSpacing() + NL * (cell_h + 2);
  if (lay.scrolls)
    ImGui::BeginChild(g.id, ImVec2(0, height + ImGui::GetStyle().ScrollbarSize + 4), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushID(g.id);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  if (lay.short_labels && !named) dl->AddText(origin, dim, (std::string(tr(L, Str::head)) + " →").c_str());
  for (int c = 0; c < NC; ++c) {
    const std::string label = column_label(c, lay.short_labels);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    // Narrow numbered columns: every other number. Named columns (tokens) are each drawn, clipped to their cell.
    if (named) {
      const ImVec2 p0(origin.x + label_w + c * cell_w, origin.y);
      dl->PushClipRect(p0, ImVec2(p0.x + cell_w - 2, p0.y + ImGui::GetTextLineHeightWithSpacing()), true);
      dl->AddText(ImVec2(p0.x + std::max(0.0f, (cell_w - tw) * 0.5f), p0.y), dim, label.c_str());
      dl->PopClipRect();
    } else if (tw <= cell_w || !lay.short_labels || c % 2 == 0) {
      dl->AddText(ImVec2(origin.x + label_w + c * cell_w + (cell_w - tw) * 0.5f, origin.y), dim, label.c_str());
    }
  }
  const float y0 = origin.y + ImGui::GetTextLineHeightWithSpacing();
  for (int l = 0; l < NL; ++l) {
    const float y = y0 + l * (cell_h + 2);
    dl->AddText(ImVec2(origin.x, y + (cell_h - ImGui::GetTextLineHeight()) * 0.5f), dim,
                (std::string(tr(L, Str::layer)) + " " + std::to_string(l + 1)).c_str());
    for (int c = 0; c < NC; ++c) {
      const float d = g.values[static_cast<size_t>(l)][static_cast<size_t>(c)];
      const ImVec2 p0(origin.x + label_w + c * cell_w, y), p1(p0.x + cell_w - 2, y + cell_h);
      const float t = g.diverging ? std::clamp(0.5f + 0.5f * d, 0.0f, 1.0f) : (top > 0 ? std::clamp(d / top, 0.0f, 1.0f) : 0.0f);
      const Rgba rgb = colormap_sample(g.diverging ? Colormap::diverging : Colormap::magma, t);
      const ImU32 bg = IM_COL32(rgb.r, rgb.g, rgb.b, 255);
      dl->AddRectFilled(p0, p1, bg);
      const bool off = g.hatched && g.hatched->has(l, c);
      if (off) draw_hatch(dl, p0, p1, 8.0f);
      if (l == g.best_row && c == g.best_column) dl->AddRect(p0, p1, IM_COL32(255, 200, 60, 255), 0, 0, 2.0f);
      if (l == g.selected_row && c == g.selected_column) dl->AddRect(p0, p1, IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
      const size_t k = static_cast<size_t>(l * NC + c);
      const char* text = lay.values ? g.texts[k].c_str() : g.marks[k].c_str();
      const ImVec2 sz = ImGui::CalcTextSize(text);
      const ImVec2 at(p0.x + (cell_w - 2 - sz.x) * 0.5f, y + (cell_h - sz.y) * 0.5f);
      if (*text) draw_cell_text(dl, at, bg, off, text);
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(l * NC + c);
      if (ImGui::InvisibleButton("cell", ImVec2(cell_w - 2, cell_h))) {
        hit.clicked = true;
        hit.row = l;
        hit.column = c;
      }
      if (ImGui::IsItemHovered()) {
        hit.row = l;
        hit.column = c;
      }
      ImGui::PopID();
    }
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(lay.width, height));
  ImGui::PopID();
  if (lay.scrolls) ImGui::EndChild();
  return hit;
}

}  // namespace attnviz
