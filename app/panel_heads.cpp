// The Heads view: the chosen layer's heads as small multiples with shared axes (query labels left
// of the first column, key labels above the first row), values printed in cells that are large
// enough, an exact tooltip on hover, a highlighted query row shared by all heads, Ctrl+click to
// hide or show a key (custom mask), and a click on a title (or a double-click) to zoom one head.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/heatmap_widget.h"
#include "app/panels.h"
#include "app/widgets.h"

namespace attnviz {

namespace {

constexpr float kGap = 14.0f;  // between head panels

struct GridLayout {
  int columns = 1;
  float cell = 8;
  float row_label_w = 0, col_label_h = 0, title_h = 0;
  ImVec2 panel;  // one head's block without the shared labels: title + cells + gap
};

GridLayout layout_grid(const Trace& t, int n_panels, ImVec2 avail) {
  GridLayout g;
  g.row_label_w = heatmap_label_extent(t.queries);
  g.col_label_h = heatmap_label_extent(t.keys);
  g.title_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const float Tq = static_cast<float>(t.n_queries()), Tk = static_cast<float>(t.n_keys());
  g.cell = 0;
  for (int c = 1; c <= n_panels; ++c) {
    const int rows = (n_panels + c - 1) / c;
    const float by_w = ((avail.x - g.row_label_w) / c - kGap) / Tk;
    const float by_h = ((avail.y - g.col_label_h) / rows - kGap - g.title_h) / Tq;
    const float cell = std::floor(std::min(by_w, by_h));
    if (cell > g.cell) {
      g.cell = cell;
      g.columns = c;
    }
  }
  g.cell = std::clamp(g.cell, 2.0f, 64.0f);
  g.panel = ImVec2(g.cell * Tk + kGap, g.title_h + g.cell * Tq + kGap);
  return g;
}

void toggle_hidden_cell(AppState& app, int q, int k) {
  auto& cells = app.mask.hidden_cells;
  const auto it = std::find(cells.begin(), cells.end(), std::pair<int, int>{q, k});
  if (it == cells.end()) cells.emplace_back(q, k);
  else cells.erase(it);
  app.dirty = true;
}

void head_tooltip(const AppState& app, const Trace& t, int h, int q, int k) {
  const HeadTrace& head = t.head(app.layer, h);
  const Lang L = app.lang;
  ImGui::BeginTooltip();
  ImGui::Text("%s %d · %s %d", tr(L, Str::layer), app.layer + 1, tr(L, Str::head), h + 1);
  ImGui::Text("%s: %s (#%d)", tr(L, Str::query), t.queries[static_cast<size_t>(q)].text.c_str(), q);
  ImGui::Text("%s: %s (#%d)", tr(L, Str::key), t.keys[static_cast<size_t>(k)].text.c_str(), k);
  ImGui::Separator();
  ImGui::Text("%s: %.6f", tr(L, Str::weight), head.weights(q, k));
  const HeadScoreCell cell = head_score_at(head, app.trace->config, q, k);
  ImGui::Text("%s: %.6f", tr(L, Str::raw_score), cell.raw);
  ImGui::Text("%s: %.6f", tr(L, Str::scaled_score), cell.scaled);
  if (!std::isfinite(t.mask(q, k))) ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "%s", tr(L, Str::hidden_cell));
  ImGui::EndTooltip();
}

// origin: top-left of the head's title; its cells start one title line below.
void draw_head(AppState& app, const Trace& t, int h, const GridLayout& g, ImVec2 origin, bool row_labels, bool col_labels) {
  const HeadTrace& head = t.head(app.layer, h);
  ImGui::PushID(h);
  ImGui::SetCursorScreenPos(origin);
  std::string title = std::string(tr(app.lang, Str::head)) + " " + std::to_string(h + 1);
  if (head.score != ScoreKind::scaled_dot) title += " · " + std::string(name_of(head.score));
  if (ImGui::Selectable(title.c_str(), app.zoom_head == h || app.head == h, 0, ImVec2(g.cell * t.n_keys(), 0))) {
    app.head = h;
    app.zoom_head = app.zoom_head == h ? -1 : h;
  }
  HeatmapWidget w;
  w.texture = app_head_texture(app, app.layer, h);
  w.values = &head.weights;
  w.rows = &t.queries;
  w.cols = &t.keys;
  w.mask = &t.mask;
  w.origin = ImVec2(origin.x, origin.y + g.title_h);
  w.cell = g.cell;
  w.row_labels = row_labels;
  w.col_labels = col_labels;
  w.row_label_w = g.row_label_w;
  w.col_label_h = g.col_label_h;
  w.col_label_gap = g.title_h;
  w.annotate = app.annotate;
  w.cmap = app.cmap;
  w.highlight_row = app.query;
  const HeatmapHit hit = heatmap_widget(w);
  app.drawn.push_back(DrawnHeatmap{app.layer, h, w.origin.x, w.origin.y, w.cell, t.n_queries(), t.n_keys()});
  if (hit.label_row_clicked >= 0) app.query = app.query == hit.label_row_clicked ? -1 : hit.label_row_clicked;
  if (hit.hovered) {
    head_tooltip(app, t, h, hit.row, hit.col);
    if (hit.ctrl_clicked) toggle_hidden_cell(app, hit.row, hit.col);
    else if (hit.clicked) {
      app.query = hit.row;
      app.head = h;
    }
    if (hit.double_clicked) app.zoom_head = app.zoom_head == h ? -1 : h;
  }
  ImGui::PopID();
}

void toolbar(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  ImGui::SetNextItemWidth(120);
  const std::string layer_preview = std::to_string(app.layer + 1) + " / " + std::to_string(t.layers.size());
  if (ImGui::BeginCombo(tr(L, Str::layer), layer_preview.c_str())) {
    for (int l = 0; l < static_cast<int>(t.layers.size()); ++l)
      if (ImGui::Selectable(std::to_string(l + 1).c_str(), l == app.layer)) app.layer = l;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(140);
  if (ImGui::BeginCombo(tr(L, Str::colormap), std::string(name_of(app.cmap)).c_str())) {
    for (Colormap c : {Colormap::viridis, Colormap::magma, Colormap::high_contrast})
      if (ImGui::Selectable(std::string(name_of(c)).c_str(), c == app.cmap)) app.cmap = c;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  colormap_legend(app.cmap, 0.0f, 1.0f, 120.0f * ImGui::GetFontSize() / 17.0f);
  ImGui::SameLine();
  ImGui::Checkbox(tr(L, Str::annotate), &app.annotate);
  if (app.zoom_head >= 0) {
    ImGui::SameLine();
    if (ImGui::Button(tr(L, Str::back_to_grid))) app.zoom_head = -1;
  }
  ImGui::SameLine();
  if (app_computing(app)) ImGui::TextDisabled("%s", tr(L, Str::computing));
  else ImGui::TextDisabled("%d × %d · %.1f ms", t.n_queries(), t.n_keys(), app.compute_seconds * 1000.0);
}

}  // namespace

void panel_heads(AppState& app) {
  if (!view_begin(app, tr(app.lang, Str::panel_heads))) return;
  const Trace& t = *app.trace;
  toolbar(app, t);
  std::vector<int> heads;
  if (app.zoom_head >= 0) heads.push_back(app.zoom_head);
  else
    for (int h = 0; h < t.config.n_heads; ++h) heads.push_back(h);
  ImGui::BeginChild("grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const GridLayout g = layout_grid(t, static_cast<int>(heads.size()), ImGui::GetContentRegionAvail());
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 grid0(start.x + g.row_label_w, start.y + g.col_label_h);
  for (size_t i = 0; i < heads.size(); ++i) {
    const int col = static_cast<int>(i) % g.columns, row = static_cast<int>(i) / g.columns;
    draw_head(app, t, heads[i], g, ImVec2(grid0.x + col * g.panel.x, grid0.y + row * g.panel.y), col == 0, row == 0);
  }
  const int rows = (static_cast<int>(heads.size()) + g.columns - 1) / g.columns;
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(g.row_label_w + g.columns * g.panel.x, g.col_label_h + rows * g.panel.y));
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace attnviz
