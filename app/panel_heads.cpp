// The Heads panel: the chosen layer's heads as a grid of heatmaps (rows = queries, columns = keys)
// with token labels, values printed in cells that are large enough, an exact tooltip on hover, a
// highlighted query row shared by all heads, Ctrl+click to hide or show a key (custom mask), and
// double-click (or the title) to zoom one head to full size. Pixels come from HeatmapTextures.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/panels.h"
#include "app/widgets.h"
#include "core/heatmap_render.h"

namespace attnviz {

namespace {

constexpr float kLabelMax = 110.0f;  // longest label drawn, in pixels; longer ones are clipped
constexpr float kGap = 14.0f;        // between head panels

// Small multiples with shared axes: query labels left of the first column, key labels above the
// first row, so the cells get the space. A zoomed head is one panel with both axes.
struct GridLayout {
  int columns = 1;
  float cell = 8;              // pixels per heatmap cell
  float row_label_w = 0, col_label_h = 0, title_h = 0;
  ImVec2 panel;                // one head's block without the shared labels: title + heatmap + gap
};

float widest(const std::vector<TraceToken>& tokens) {
  float w = 0;
  for (const TraceToken& t : tokens) w = std::max(w, ImGui::CalcTextSize(t.text.c_str()).x);
  return std::min(w, kLabelMax) + 6.0f;
}

GridLayout layout_grid(const Trace& t, int n_panels, ImVec2 avail) {
  GridLayout g;
  g.row_label_w = widest(t.queries);
  g.col_label_h = widest(t.keys);
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

// Every k-th label when cells are smaller than a line of text.
int label_step(float cell) {
  const float line = ImGui::GetTextLineHeight();
  return cell >= line * 0.85f ? 1 : static_cast<int>(std::ceil(line * 0.85f / cell));
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
  ImGui::Text("%s: %.6f", tr(L, Str::raw_score), head.scores_raw(q, k));
  ImGui::Text("%s: %.6f", tr(L, Str::scaled_score), head.scores_scaled(q, k));
  if (!std::isfinite(t.mask(q, k))) ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "%s", tr(L, Str::hidden_cell));
  ImGui::EndTooltip();
}

// origin: top-left of the head's title; the heatmap starts one title line below it.
void draw_head(AppState& app, const Trace& t, int h, const GridLayout& g, ImVec2 origin, bool row_labels, bool col_labels) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int Tq = t.n_queries(), Tk = t.n_keys();
  const HeadTrace& head = t.head(app.layer, h);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 accent = IM_COL32(255, 160, 30, 255);

  // Title: clicking it zooms this head (or returns to the grid).
  ImGui::SetCursorScreenPos(origin);
  std::string title = std::string(tr(app.lang, Str::head)) + " " + std::to_string(h + 1);
  if (head.score != ScoreKind::scaled_dot) title += " · " + std::string(name_of(head.score));
  ImGui::PushID(h);
  if (ImGui::Selectable(title.c_str(), app.zoom_head == h, 0, ImVec2(g.cell * Tk, 0)))
    app.zoom_head = app.zoom_head == h ? -1 : h;

  const ImVec2 map0(origin.x, origin.y + g.title_h);
  const ImVec2 map1(map0.x + g.cell * Tk, map0.y + g.cell * Tq);
  const int step = label_step(g.cell);
  const float line = ImGui::GetTextLineHeight();

  // Key labels, rotated, above the columns (above the title line).
  for (int k = 0; col_labels && k < Tk; k += step) {
    const TraceToken& tok = t.keys[static_cast<size_t>(k)];
    const ImVec2 at(map0.x + g.cell * (k + 0.5f) - line * 0.5f, origin.y - 4);
    draw_text_vertical(dl, at, tok.pad ? dim_col : text_col, tok.text.c_str(), g.col_label_h - 4);
  }
  // Query labels, right-aligned, left of the rows; a click selects that query row everywhere.
  for (int q = 0; row_labels && q < Tq; q += step) {
    const TraceToken& tok = t.queries[static_cast<size_t>(q)];
    const float w = std::min(ImGui::CalcTextSize(tok.text.c_str()).x, kLabelMax);
    const ImVec2 at(map0.x - 4 - w, map0.y + g.cell * (q + 0.5f) - line * 0.5f);
    ImGui::PushClipRect(ImVec2(map0.x - g.row_label_w, at.y), ImVec2(map0.x - 2, at.y + line), true);
    dl->AddText(at, q == app.query ? accent : (tok.pad ? dim_col : text_col), tok.text.c_str());
    ImGui::PopClipRect();
  }
  if (row_labels) {
    ImGui::SetCursorScreenPos(ImVec2(map0.x - g.row_label_w, map0.y));
    if (ImGui::InvisibleButton("rows", ImVec2(g.row_label_w, g.cell * Tq))) {
      const int q = static_cast<int>((ImGui::GetIO().MousePos.y - map0.y) / g.cell);
      if (q >= 0 && q < Tq) app.query = app.query == q ? -1 : q;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(app.lang, Str::click_row_hint));
  }

  // The heatmap itself: one texel per cell, drawn by the GPU.
  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(app.textures.texture(h))), map0, map1);
  const bool annotate = app.annotate && g.cell >= 26.0f;
  for (int q = 0; q < Tq; ++q)
    for (int k = 0; k < Tk; ++k) {
      const ImVec2 c0(map0.x + g.cell * k, map0.y + g.cell * q), c1(c0.x + g.cell, c0.y + g.cell);
      if (!std::isfinite(t.mask(q, k)) && g.cell >= 6) dl->AddLine(c0, c1, IM_COL32(120, 120, 120, 160));
      if (annotate) {
        const Rgba bg = colormap_sample(app.cmap, head.weights(q, k));
        const std::string v = heatmap_value_text(head.weights(q, k), true);
        const ImVec2 sz = ImGui::CalcTextSize(v.c_str());
        dl->AddText(ImVec2(c0.x + (g.cell - sz.x) * 0.5f, c0.y + (g.cell - sz.y) * 0.5f),
                    contrast_text_color(IM_COL32(bg.r, bg.g, bg.b, 255)), v.c_str());
      }
    }
  if (app.query >= 0 && app.query < Tq)
    dl->AddRect(ImVec2(map0.x - 1, map0.y + g.cell * app.query - 1), ImVec2(map1.x + 1, map0.y + g.cell * (app.query + 1) + 1),
                accent, 0, 0, 2.0f);

  ImGui::SetCursorScreenPos(map0);
  ImGui::InvisibleButton("map", ImVec2(map1.x - map0.x, map1.y - map0.y));
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int q = std::clamp(static_cast<int>((m.y - map0.y) / g.cell), 0, Tq - 1);
    const int k = std::clamp(static_cast<int>((m.x - map0.x) / g.cell), 0, Tk - 1);
    dl->AddRect(ImVec2(map0.x + g.cell * k, map0.y + g.cell * q), ImVec2(map0.x + g.cell * (k + 1), map0.y + g.cell * (q + 1)),
                IM_COL32(255, 255, 255, 220));
    head_tooltip(app, t, h, q, k);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      if (ImGui::GetIO().KeyCtrl) toggle_hidden_cell(app, q, k);
      else app.query = q;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) app.zoom_head = app.zoom_head == h ? -1 : h;
  }
  ImGui::PopID();
}

void toolbar(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  ImGui::SetNextItemWidth(140);
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
  if (!ImGui::Begin(tr(app.lang, Str::panel_heads))) {
    ImGui::End();
    return;
  }
  if (!app.trace) {
    ImGui::TextDisabled("%s", app.error.empty() ? tr(app.lang, Str::computing) : app.error.c_str());
    ImGui::End();
    return;
  }
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
