// Tick values are "round" (1, 2 or 5 times a power of ten) so the axes read like a paper's figure,
// and the x axis grows in whole ticks so it does not jitter at every report.
#include "widgets/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnviz {

namespace {

float nice_step(float range, int ticks) {
  if (!(range > 0)) return 1.0f;
  const float raw = range / static_cast<float>(ticks);
  const float mag = std::pow(10.0f, std::floor(std::log10(raw)));
  const float n = raw / mag;
  return (n <= 1.0f ? 1.0f : n <= 2.0f ? 2.0f : n <= 5.0f ? 5.0f : 10.0f) * mag;
}

void format_value(char* buf, size_t n, float v, bool percent, bool precise) {
  if (percent) std::snprintf(buf, n, precise ? "%.1f%%" : "%.0f%%", static_cast<double>(v) * 100.0);
  else std::snprintf(buf, n, precise ? "%.4f" : "%.3g", static_cast<double>(v));
}

void format_step(char* buf, size_t n, float v) {
  if (v >= 10000.0f) std::snprintf(buf, n, "%.0fk", static_cast<double>(v) / 1000.0);
  else std::snprintf(buf, n, "%.0f", static_cast<double>(v));
}

void dashed_line(ImDrawList* dl, ImVec2 a, float x1, ImU32 col, float thickness, float dash) {
  for (float x = a.x; x < x1; x += 2 * dash) dl->AddLine(ImVec2(x, a.y), ImVec2(std::min(x + dash, x1), a.y), col, thickness);
}

constexpr ImU32 kTargetColor = IM_COL32(255, 190, 90, 230);

// The legend's entries, right to left from `right`: the target line's (if any), then the series'.
// Returns the x where the legend starts; draws only when `draw`.
float legend(ImDrawList* dl, const PlotSpec& s, bool show_target, float right, float y, bool draw) {
  const float fs = ImGui::GetFontSize(), line_h = ImGui::GetTextLineHeight();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  float x = right;
  if (show_target) {
    x -= ImGui::CalcTextSize(s.target_label.c_str()).x;
    if (draw) dl->AddText(ImVec2(x, y), kTargetColor, s.target_label.c_str());
    x -= fs * 1.6f;
    if (draw) dashed_line(dl, ImVec2(x, y + line_h * 0.5f), x + fs * 1.2f, kTargetColor, s.thickness, fs * 0.25f);
    x -= fs * 0.6f;
  }
  if (s.series.size() > 1 && s.series_legend)
    for (auto it = s.series.rbegin(); it != s.series.rend(); ++it) {
      x -= ImGui::CalcTextSize(it->label.c_str()).x;
      if (draw) dl->AddText(ImVec2(x, y), text_col, it->label.c_str());
      x -= fs * 1.1f;
      if (draw) dl->AddRectFilled(ImVec2(x, y + line_h * 0.3f), ImVec2(x + fs * 0.7f, y + line_h * 0.7f), it->color);
      x -= fs * 0.8f;
    }
  return x;
}

}  // namespace

void train_plot(const PlotSpec& s) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 size(std::max(s.size.x, 80.0f), std::max(s.size.y, 60.0f));
  ImGui::InvisibleButton(s.id, size);
  const bool hovered = ImGui::IsItemHovered();
  const float fs = ImGui::GetFontSize(), line_h = ImGui::GetTextLineHeight();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 grid_col = ImGui::GetColorU32(ImGuiCol_Border, 0.45f);

  // Ranges.
  float x_hi = std::max(s.x_max, 1.0f), y_lo = s.y_min, y_hi = s.y_max;
  float data_lo = INFINITY, data_hi = -INFINITY;
  for (const PlotSeries& ser : s.series)
    for (const ImVec2& p : ser.points) {
      x_hi = std::max(x_hi, p.x);
      data_lo = std::min(data_lo, p.y);
      data_hi = std::max(data_hi, p.y);
    }
  if (!(y_hi > y_lo)) {
    y_lo = std::min(0.0f, std::isfinite(data_lo) ? data_lo : 0.0f);
    y_hi = std::isfinite(data_hi) && data_hi > y_lo ? data_hi : y_lo + 1.0f;
  }
  const bool show_target = s.target >= y_lo && s.target <= y_hi;

  // Title and legend share a line when they fit; otherwise the legend gets its own.
  const float right = p0.x + size.x - fs * 0.8f;
  const float legend_w = right - legend(dl, s, show_target, right, p0.y, false);
  // fs * 4: the y tick labels' margin before the title, and a gap before the legend.
  const bool two_lines = legend_w > 0 && ImGui::CalcTextSize(s.title.c_str()).x + legend_w + fs * 4 > size.x;
  const float top = p0.y + line_h * (two_lines ? 2.0f : 1.0f) + fs * 0.4f;
  const float bottom = p0.y + size.y - 2 * line_h - fs * 0.2f;
  // As many ticks as the plot has room for, so labels never crowd (presentation mode, small panes).
  const int y_ticks = std::clamp(static_cast<int>((bottom - top) / (line_h * 1.6f)), 1, 4);
  const float y_step = nice_step(y_hi - y_lo, y_ticks);
  if (!(s.y_max > s.y_min)) y_hi = std::ceil(y_hi / y_step - 1e-4f) * y_step;

  // The left margin from the widest tick label.
  char buf[64];
  float label_w = 0;
  for (float v = y_lo; v <= y_hi + y_step * 0.01f; v += y_step) {
    format_value(buf, sizeof buf, v, s.percent, false);
    label_w = std::max(label_w, ImGui::CalcTextSize(buf).x);
  }
  const ImVec2 a(p0.x + label_w + fs * 0.6f, top);  // plot area, top-left
  const ImVec2 b(right, bottom);
  if (b.x - a.x < 20 || b.y - a.y < 20) return;
  const int x_ticks = std::clamp(static_cast<int>((b.x - a.x) / (fs * 3.5f)), 2, 5);
  const float x_step = nice_step(x_hi, x_ticks);
  x_hi = std::ceil(x_hi / x_step - 1e-4f) * x_step;
  auto to_screen = [&](ImVec2 v) {
    return ImVec2(a.x + (b.x - a.x) * v.x / x_hi, b.y - (b.y - a.y) * (v.y - y_lo) / (y_hi - y_lo));
  };

  dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_FrameBg));
  for (float v = y_lo; v <= y_hi + y_step * 0.01f; v += y_step) {
    const float y = to_screen(ImVec2(0, v)).y;
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid_col);
    format_value(buf, sizeof buf, v, s.percent, false);
    dl->AddText(ImVec2(a.x - fs * 0.3f - ImGui::CalcTextSize(buf).x, y - line_h * 0.5f), dim_col, buf);
  }
  for (float v = 0; v <= x_hi + x_step * 0.01f; v += x_step) {
    const float x = to_screen(ImVec2(v, 0)).x;
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), grid_col);
    format_step(buf, sizeof buf, v);
    const float w = ImGui::CalcTextSize(buf).x;
    dl->AddText(ImVec2(std::min(x - w * 0.5f, p0.x + size.x - w), b.y + 2), dim_col, buf);
  }
  dl->AddRect(a, b, ImGui::GetColorU32(ImGuiCol_Border));
  const ImVec2 xl = ImGui::CalcTextSize(s.x_label.c_str());
  dl->AddText(ImVec2(0.5f * (a.x + b.x) - xl.x * 0.5f, b.y + line_h + 2), dim_col, s.x_label.c_str());
  const float legend_x = legend(dl, s, show_target, right, two_lines ? p0.y + line_h : p0.y, true);
  dl->PushClipRect(p0, ImVec2(two_lines ? right : legend_x, p0.y + line_h), true);
  dl->AddText(ImVec2(a.x, p0.y), text_col, s.title.c_str());
  dl->PopClipRect();

  dl->PushClipRect(a, b, true);
  if (show_target) {
    const float y = to_screen(ImVec2(0, s.target)).y;
    dashed_line(dl, ImVec2(a.x, y), b.x, kTargetColor, s.thickness, fs * 0.4f);
  }
  std::vector<ImVec2> pts;
  for (const PlotSeries& ser : s.series) {
    pts.clear();
    for (const ImVec2& p : ser.points) pts.push_back(to_screen(p));
    if (pts.size() >= 2) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), ser.color, 0, s.thickness);
    if (!pts.empty()) dl->AddCircleFilled(pts.back(), s.thickness * 2.2f, ser.color);
  }
  dl->PopClipRect();
  // The newest value beside each line's end, kept inside the plot and off the labels before it.
  std::vector<float> label_ys;
  for (const PlotSeries& ser : s.series) {
    if (ser.points.empty()) continue;
    const ImVec2 end = to_screen(ser.points.back());
    format_value(buf, sizeof buf, ser.points.back().y, s.percent, true);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    float x = end.x + fs * 0.4f;
    if (x + ts.x > b.x) x = end.x - fs * 0.4f - ts.x;
    float y = end.y - ts.y - 2;
    if (y < a.y + ts.y * 0.5f) y = end.y + 4;  // at the top (accuracy near 100%): below, clear of the target line
    for (float other : label_ys)
      if (std::abs(other - y) < ts.y) y = other + (other + ts.y * 2 < b.y ? ts.y : -ts.y);
    label_ys.push_back(y);
    const ImVec2 at(std::max(x, a.x + 2), y);
    // A backdrop keeps the number readable where it crosses a curve or the target line.
    dl->AddRectFilled(ImVec2(at.x - 2, at.y), ImVec2(at.x + ts.x + 2, at.y + ts.y), IM_COL32(22, 32, 50, 235), 2.0f);
    dl->AddText(at, ser.color, buf);
  }

  // Hover: the values at the nearest reported step of each series.
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (hovered && m.x >= a.x && m.x <= b.x) {
    const float step = (m.x - a.x) / (b.x - a.x) * x_hi;
    dl->AddLine(ImVec2(m.x, a.y), ImVec2(m.x, b.y), dim_col);
    bool any = false;
    for (const PlotSeries& ser : s.series) {
      if (ser.points.empty()) continue;
      const auto it = std::min_element(ser.points.begin(), ser.points.end(), [&](const ImVec2& p, const ImVec2& q) {
        return std::abs(p.x - step) < std::abs(q.x - step);
      });
      if (!any) {
        ImGui::BeginTooltip();
        any = true;
      }
      format_value(buf, sizeof buf, it->y, s.percent, true);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ser.color), "%s", ser.label.c_str());
      ImGui::SameLine();
      ImGui::Text("%s · %s %.0f", buf, s.x_label.c_str(), static_cast<double>(it->x));
    }
    if (any) ImGui::EndTooltip();
  }
}

}  // namespace attnviz
