// The Heads view: the chosen layer's heads as small multiples with shared axes (query labels left
// of the first column, key labels above the first row), values printed in cells that are large
// enough, an exact tooltip on hover, a highlighted query row shared by all heads, Ctrl+click to
// hide or show a key (custom mask), and a click on a title (or a double-click) to zoom one head.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <imgui.h>

#include "model/head_map.h"
#include "model/mask.h"
#include "shell/fonts.h"
#include "shell/panels.h"
#include "shell/view_registry.h"
#include "widgets/draw.h"
#include "widgets/heatmap_widget.h"
#include "widgets/qk_plot.h"
#include "widgets/measure_controls.h"

namespace attnviz {

namespace {

constexpr float kGap = 14.0f;  // between head panels

struct GridLayout {
  int columns = 1;
  float cell = 8;
  float row_label_w = 0, col_label_h = 0, title_h = 0;
  ImVec2 panel;  // one head's block without the shared labels: title + cells + gap
};

// The heads side by side in as many columns as gives the largest cells that fit the view. In
// presentation mode cells are never smaller than `min_cell` (legible from the back of a room, with
// their numbers): when the whole grid cannot fit at that size, the fewest rows of panels whose width
// holds it, and the grid scrolls down (a long input, one map of which is wider than the view at that
// size, fits the view as outside presentation mode).
GridLayout layout_grid(const Trace& t, int n_panels, ImVec2 avail, float min_cell) {
  GridLayout g;
  g.row_label_w = heatmap_label_extent(t.queries);
  g.col_label_h = heatmap_label_extent(t.keys);
  g.title_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const float Tq = static_cast<float>(t.n_queries()), Tk = static_cast<float>(t.n_keys());
  g.cell = 0;
  const auto by_w = [&](int c) { return ((avail.x - g.row_label_w) / c - kGap) / Tk; };
  for (int c = 1; c <= n_panels; ++c) {
    const int rows = (n_panels + c - 1) / c;
    const float by_h = ((avail.y - g.col_label_h) / rows - kGap - g.title_h) / Tq;
    const float fit = std::min(by_w(c), by_h);
    const float cell = fit >= 1.0f ? std::floor(fit) : fit;  // long inputs: below a pixel per cell
    if (cell > g.cell) {
      g.cell = cell;
      g.columns = c;
    }
  }
  if (g.cell < min_cell && by_w(1) >= min_cell) {  // a long input, whose one map is wider than the view, fits as before
    int best_rows = n_panels + 1;
    for (int c = 1; c <= n_panels; ++c) {
      const int rows = (n_panels + c - 1) / c;
      if (by_w(c) >= min_cell && rows < best_rows) {
        best_rows = rows;
        g.columns = c;
      }
    }
    g.cell = std::floor(std::max(min_cell, std::min(g.cell, by_w(g.columns))));
  }
  // Up to 512 tokens a head scrolls rather than shrink below 2 px a cell; longer inputs fit the view
  // (their textures are max-pooled to the drawn size, so no peak disappears).
  g.cell = std::clamp(g.cell, std::max(Tq, Tk) > 512 ? 0.02f : 2.0f, 64.0f);
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
  // The rollout's one map is the layer's, not head h's: no head, weight or scores of its own.
  const bool per_layer = app_map_per_layer(app);
  ImGui::BeginTooltip();
  if (per_layer) {
    ImGui::TextUnformatted(tr_format(L, Str::rollout_panel, app.layer + 1).c_str());
  } else {
    ImGui::Text("%s %d · %s %d", tr(L, Str::layer), app.layer + 1, tr(L, Str::head), h + 1);
    if (head.ablated) {
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "· %s", tr(L, Str::head_off_short));
    }
  }
  ImGui::Text("%s: %s (#%d)", tr(L, Str::query), t.queries[static_cast<size_t>(q)].text.c_str(), q);
  ImGui::Text("%s: %s (#%d)", tr(L, Str::key), t.keys[static_cast<size_t>(k)].text.c_str(), k);
  ImGui::Separator();
  if (!per_layer) ImGui::Text("%s: %.6f", tr(L, Str::weight), head_map_at(t, app.layer, h, q, k));
  if (app_measure_drawn(app) != AttentionMeasure::weights)
    ImGui::Text("%s: %.6f", measure_label(L, app.measure), (*app_head_map(app, app.layer, h))(q, k));
  // An attention file holds no scores (nor the Q and K to recompute them); words have none of their own.
  if (!per_layer && !t.weights_only && !app_words_shown(app)) {
    const HeadScoreCell cell = head_score_at(head, app.trace->config, q, k);
    ImGui::Text("%s: %.6f", tr(L, Str::raw_score), cell.raw);
    ImGui::Text("%s: %.6f", tr(L, Str::scaled_score), cell.scaled);
  }
  if (!std::isfinite(trace_layer_mask(t, app.layer)(q, k))) ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1), "%s", tr(L, Str::hidden_cell));
  ImGui::EndTooltip();
}

// The part of a head drawn: the whole map, or the zoomed window of a long input, with its texture.
struct HeadWindow {
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
  unsigned texture = 0;
};

// The head's on/off toggle, a small box before its title: ticked while the head is on.
void head_switch(AppState& app, int h, float size) {
  const bool off = app.ablation.has(app.layer, h);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  if (ImGui::InvisibleButton("onoff", ImVec2(size, size))) app_toggle_head(app, app.layer, h);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 frame = ImGui::GetColorU32(ImGui::IsItemHovered() ? ImGuiCol_FrameBgHovered : ImGuiCol_FrameBg);
  dl->AddRectFilled(p, ImVec2(p.x + size, p.y + size), frame, 2.0f);
  if (off) {  // a cross: this head passes nothing (or its mean) on
    const float m = size * 0.25f;
    dl->AddLine(ImVec2(p.x + m, p.y + m), ImVec2(p.x + size - m, p.y + size - m), IM_COL32(255, 120, 80, 255), 2.0f);
    dl->AddLine(ImVec2(p.x + size - m, p.y + m), ImVec2(p.x + m, p.y + size - m), IM_COL32(255, 120, 80, 255), 2.0f);
  } else {  // a tick: on
    dl->AddPolyline(std::array<ImVec2, 3>{ImVec2(p.x + size * 0.22f, p.y + size * 0.52f), ImVec2(p.x + size * 0.42f, p.y + size * 0.72f),
                                          ImVec2(p.x + size * 0.78f, p.y + size * 0.28f)}.data(),
                    3, IM_COL32(140, 220, 140, 255), 0, 2.0f);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(app.lang, off ? Str::head_on_tip : Str::head_off_tip));
  ImGui::SameLine(0, 4);
}

// origin: top-left of the head's title; its cells start one title line below.
HeatmapHit draw_head(AppState& app, GuiResources& gui, const Trace& t, int h, const GridLayout& g, ImVec2 origin, bool row_labels,
                     bool col_labels, const HeadWindow& win) {
  const HeadTrace& head = t.head(app.layer, h);
  // The rollout: the layer's one map, which every head feeds; it has no head to switch off.
  const bool per_layer = app_map_per_layer(app);
  ImGui::PushID(h);
  ImGui::SetCursorScreenPos(origin);
  // Weights from an attention file: no model to run with a head off, so no switch.
  const bool has_switch = !t.weights_only && !per_layer;
  const float box = ImGui::GetFontSize();
  const float before_title = has_switch ? box + 4 : 0.0f;
  if (has_switch) head_switch(app, h, box);
  const std::string name = per_layer ? tr_format(app.lang, Str::rollout_panel, app.layer + 1)
                                     : std::string(tr(app.lang, Str::head)) + " " + std::to_string(h + 1);
  const std::string off = head.ablated && !per_layer ? " · " + std::string(tr(app.lang, Str::head_off_short)) : "";
  std::string details;
  if (t.config.kv_heads() != t.config.n_heads && !per_layer)  // grouped-query attention: the K/V head it reads
    details += " · " + tr_format(app.lang, Str::kv_head_short, t.config.kv_group(h) + 1);
  if (head.score != ScoreKind::scaled_dot && !t.weights_only && !per_layer)
    details += " · " + std::string(name_of(head.score));
  // A narrow map (many heads, a short sentence) keeps its title to what fits: the head and whether it
  // is off; the title's tooltip has the rest.
  const float title_w = std::max(1.0f, g.cell * win.cols - before_title);
  const std::string full = name + details + off;
  const std::string title = ImGui::CalcTextSize(full.c_str()).x <= title_w ? full : name + off;
  if (ImGui::Selectable(title.c_str(), !per_layer && (app.heads.zoom_head == h || app.head == h), 0,
                        ImVec2(title_w, 0))) {
    if (!per_layer) app.head = h;
    app.heads.zoom_head = app.heads.zoom_head == h ? -1 : h;
  }
  if (title != full && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", full.c_str());
  HeatmapWidget w;
  w.texture = win.texture;
  w.row0 = win.row0;
  w.col0 = win.col0;
  w.nrows = win.rows;
  w.ncols = win.cols;
  const std::shared_ptr<const Mat> values = app_head_map(app, app.layer, h);  // alive while the widget draws
  w.values = values.get();
  w.rows = &t.queries;
  w.cols = &t.keys;
  w.mask = &trace_layer_mask(t, app.layer);
  w.origin = ImVec2(origin.x, origin.y + g.title_h);
  w.cell = g.cell;
  w.row_labels = row_labels;
  w.col_labels = col_labels;
  w.row_label_w = g.row_label_w;
  w.col_label_h = g.col_label_h;
  w.col_label_gap = g.title_h;
  w.annotate = app.annotate;
  w.cmap = app.cmap;
  w.vmax = app.maps.vmax;
  w.color_scale = app.color_scale;
  w.first_column_apart = app_first_aside(app);
  w.highlight_row = app_shown_query(app);
  // The coreference roles keep their labels when cells are too small for every one: "it", the two
  // candidates and the property word ("tired"), the tokens the lesson is about.
  heatmap_keep_coref_labels(app, w);
  w.hatched = head.ablated && !per_layer;
  w.row_title = tr(app.lang, Str::axis_query);
  w.col_title = tr(app.lang, Str::axis_key);
  const HeatmapHit hit = heatmap_widget(w);
  if (win.rows == t.n_queries() && win.cols == t.n_keys())  // the layout report covers whole maps only
    gui.drawn.push_back(DrawnHeatmap{app.layer, h, w.origin.x, w.origin.y, w.cell, t.n_queries(), t.n_keys(), "heads",
                                     hit.rows_labelled, hit.cols_labelled, hit.label_px, hit.numbers,
                                     ImGui::GetWindowDrawList()->GetClipRectMin(), ImGui::GetWindowDrawList()->GetClipRectMax()});
  if (hit.label_row_clicked >= 0) app_set_shown_query(app, app_shown_query(app) == hit.label_row_clicked ? -1 : hit.label_row_clicked);
  if (hit.hovered) {
    head_tooltip(app, t, h, hit.row, hit.col);
    if (hit.ctrl_clicked && !app_words_shown(app)) toggle_hidden_cell(app, hit.row, hit.col);  // the mask is per piece
    else if (hit.clicked) {
      app_set_shown_query(app, hit.row);
      if (!per_layer) app.head = h;
    }
    if (hit.double_clicked) app.heads.zoom_head = app.heads.zoom_head == h ? -1 : h;
  }
  ImGui::PopID();
  return hit;
}

// A zoomed head of a long input (more queries or keys than kZoomableTokens): the mouse wheel zooms
// around the cell under the pointer, a right- or middle-drag pans, down to one cell per token.
constexpr int kZoomableTokens = 64;

bool zoomable(const Trace& t) { return std::max(t.n_queries(), t.n_keys()) > kZoomableTokens; }

// Clamps the viewport and returns the window it shows (texture not set).
HeadWindow viewport_window(AppState& app, const Trace& t) {
  auto& vp = app.heads.viewport;
  const int Tq = t.n_queries(), Tk = t.n_keys();
  vp.zoom = std::clamp(vp.zoom, 1.0f, std::max(1.0f, std::min(Tq, Tk) / 8.0f));
  HeadWindow win;
  win.rows = std::clamp(static_cast<int>(std::ceil(Tq / vp.zoom)), 1, Tq);
  win.cols = std::clamp(static_cast<int>(std::ceil(Tk / vp.zoom)), 1, Tk);
  vp.row0 = std::clamp(vp.row0, 0.0f, static_cast<float>(Tq - win.rows));
  vp.col0 = std::clamp(vp.col0, 0.0f, static_cast<float>(Tk - win.cols));
  win.row0 = static_cast<int>(vp.row0);
  win.col0 = static_cast<int>(vp.col0);
  return win;
}

// The window's texture: the head's own (pooled) texture for the whole map, else the window cut out
// of the weights and pooled to the drawn size, rebuilt only when the window moves.
unsigned window_texture(AppState& app, GuiResources& gui, const Trace& t, int h, const HeadWindow& win, float drawn_px) {
  const int side = texture_side_for(drawn_px);
  if (win.rows == t.n_queries() && win.cols == t.n_keys()) {
    gui.texture_side = side;
    return gui_shown_texture(app, gui, app.layer, h);
  }
  uint64_t key = app.shown_version;
  for (const int part : {app.layer, h, win.row0, win.col0, win.rows, win.cols}) key = key * 1000003u + static_cast<uint64_t>(part);
  key = key * 1000003u + app.maps.version;
  const bool apart = app_first_aside(app) && win.col0 == 0;
  if (!gui.zoom_window.holds(key, app.cmap, side, app.color_scale, apart)) {
    const Mat block = app_head_map(app, app.layer, h)->block(win.row0, win.col0, win.rows, win.cols);
    gui.zoom_window.update(key, {&block}, app.cmap, 0.0f, app.maps.vmax, side, app.color_scale, apart);
  }
  return gui.zoom_window.texture(0);
}

void viewport_input(AppState& app, const HeatmapHit& hit, const HeadWindow& win, float cell, const Trace& t) {
  auto& vp = app.heads.viewport;
  const ImGuiIO& io = ImGui::GetIO();
  if (!hit.hovered) return;
  if (io.MouseWheel != 0.0f) {  // keep the cell under the pointer where it is
    const float fr = static_cast<float>(hit.row - win.row0) / win.rows, fc = static_cast<float>(hit.col - win.col0) / win.cols;
    vp.zoom *= std::pow(1.25f, io.MouseWheel);
    const HeadWindow next = viewport_window(app, t);
    vp.row0 = hit.row - fr * next.rows;
    vp.col0 = hit.col - fc * next.cols;
  }
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Right) || ImGui::IsMouseDragging(ImGuiMouseButton_Middle)) {
    vp.row0 -= io.MouseDelta.y / cell;
    vp.col0 -= io.MouseDelta.x / cell;
  }
}

void draw_zoomed(AppState& app, GuiResources& gui, const Trace& t, int h) {
  const HeadWindow shown = viewport_window(app, t);
  GridLayout g;
  g.row_label_w = heatmap_label_extent(t.queries);
  g.col_label_h = heatmap_label_extent(t.keys);
  g.title_h = ImGui::GetTextLineHeightWithSpacing() + 2;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float fit = std::min((avail.x - g.row_label_w - kGap) / shown.cols, (avail.y - g.col_label_h - g.title_h - kGap) / shown.rows);
  g.cell = std::max(fit >= 1.0f ? std::floor(fit) : fit, 0.02f);
  HeadWindow win = shown;
  win.texture = window_texture(app, gui, t, h, win, g.cell * std::max(win.rows, win.cols));
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const HeatmapHit hit =
      draw_head(app, gui, t, h, g, ImVec2(start.x + g.row_label_w, start.y + g.col_label_h), true, true, win);
  viewport_input(app, hit, win, g.cell, t);
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(g.row_label_w + g.cell * win.cols, g.col_label_h + g.title_h + g.cell * win.rows));
}

void heads_toolbar(AppState& app, const Trace& t) {
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
  // Presentation mode and narrow windows: the controls that do not fit start a second line.
  same_line_or_wrap(measure_combo_width(app));
  measure_combo(app);
  const float legend_w = 120.0f * ui_scale();
  same_line_or_wrap(legend_w);
  colormap_legend(app.cmap, 0.0f, app.maps.vmax, legend_w, app.color_scale);
  map_scale_controls(app);
  same_line_or_wrap(checkbox_width(tr(L, Str::annotate)));
  ImGui::Checkbox(tr(L, Str::annotate), &app.annotate);
  if (app.heads.zoom_head >= 0 && (!app_map_per_layer(app) || zoomable(t))) {  // the rollout's one map has no grid
    same_line_or_wrap(button_width(tr(L, Str::back_to_grid)));
    if (ImGui::Button(tr(L, Str::back_to_grid))) app.heads.zoom_head = -1;
  }
  std::string timing = app_computing(app) ? std::string(tr(L, Str::computing))
                                          : tr_format(L, Str::hv_timing, t.n_queries(), t.n_keys(), app.compute_seconds * 1000.0);
  if (t.weights_only && !app_computing(app))  // read from a file: no compute time to show
    timing = std::to_string(t.n_queries()) + " × " + std::to_string(t.n_keys());
  if (trace_forms_maps(t) && !app_computing(app)) timing += tr(L, Str::hv_maps_formed);  // a long input
  if (layers_differ(t.config) && !app_computing(app))  // Gemma: whether this layer slides
    timing += layer_slides(t.config, app.layer) ? tr_format(L, Str::hv_layer_window, t.config.sliding_window)
                                                : std::string(tr(L, Str::hv_layer_global));
  same_line_or_wrap(ImGui::CalcTextSize(timing.c_str()).x);  // never cut at the edge
  ImGui::TextDisabled("%s", timing.c_str());
  measure_error(app);
  if (const std::vector<int> hidden = mask_fully_hidden_rows(trace_layer_mask(t, app.layer)); !hidden.empty()) {
    std::string which;  // the first few, by text and number
    for (size_t i = 0; i < hidden.size() && i < 4; ++i)
      which += (i ? ", " : "") + t.queries[static_cast<size_t>(hidden[i])].text + " (#" + std::to_string(hidden[i]) + ")";
    if (hidden.size() > 4) which += ", …";
    ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.5f, 1), tr(L, Str::fm_rows), static_cast<int>(hidden.size()), which.c_str());
  }
  if (app.heads.zoom_head >= 0 && zoomable(t)) {  // a long input's window, and how to move it
    const HeadWindow win = viewport_window(app, t);
    if (ImGui::Button(tr(L, Str::lz_fit))) app.heads.viewport = {};
    ImGui::SameLine();
    ImGui::TextDisabled(tr(L, Str::lz_window), app.heads.viewport.zoom, win.row0 + 1, win.row0 + win.rows, win.col0 + 1,
                        win.col0 + win.cols);
    ImGui::SameLine();
    ImGui::TextDisabled("· %s", tr(L, Str::lz_hint_short));
  }
}

}  // namespace

void heads_view_draw(AppState& app, GuiResources& gui) {
  if (!view_begin(app, View::heads)) return;
  const Trace& t = app_shown_trace(app);
  heads_toolbar(app, t);
  const std::vector<int> heads = heads_drawn(app.heads, app_map_per_layer(app), t.config.n_heads);
  if (app.heads.zoom_head >= 0 && zoomable(t)) {
    ImGui::BeginChild("zoomed", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar);
    draw_zoomed(app, gui, t, heads.front());
    ImGui::EndChild();
    ImGui::End();
    return;
  }
  // One zoomed head of a model that ran: its queries and keys in 2-D beside it, when the view is wide.
  const bool beside = app.heads.zoom_head >= 0 && heads.size() == 1 && !t.weights_only && !app_map_per_layer(app) &&
                      ImGui::GetContentRegionAvail().x >= 700.0f * ui_scale();
  const float plot_w = beside ? ImGui::GetContentRegionAvail().x * 0.42f : 0.0f;
  if (beside) {
    ImGui::BeginChild("grid_and_plot", ImVec2(0, 0), false);
    ImGui::BeginChild("grid", ImVec2(ImGui::GetContentRegionAvail().x - plot_w, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  } else {
    ImGui::BeginChild("grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  }
  // A projector's cells: 28 px at 1280 x 800, in proportion on smaller screens (22 px at 1024 x 768).
  const float min_cell = app.presentation ? heatmap_projector_cell(28.0f) : 0.0f;
  const GridLayout g = layout_grid(t, static_cast<int>(heads.size()), ImGui::GetContentRegionAvail(), min_cell);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 grid0(start.x + g.row_label_w, start.y + g.col_label_h);
  for (size_t i = 0; i < heads.size(); ++i) {
    const int col = static_cast<int>(i) % g.columns, row = static_cast<int>(i) / g.columns;
    HeadWindow whole{0, 0, t.n_queries(), t.n_keys(), gui_shown_texture(app, gui, app.layer, heads[i])};
    draw_head(app, gui, t, heads[i], g, ImVec2(grid0.x + col * g.panel.x, grid0.y + row * g.panel.y), col == 0, row == 0,
              whole);
  }
  gui.texture_side = texture_side_for(g.cell * std::max(t.n_queries(), t.n_keys()));
  const int rows = (static_cast<int>(heads.size()) + g.columns - 1) / g.columns;
  ImGui::SetCursorScreenPos(start);
  ImGui::Dummy(ImVec2(g.row_label_w + g.columns * g.panel.x, g.col_label_h + rows * g.panel.y));
  ImGui::EndChild();
  if (beside) {
    ImGui::SameLine();
    qk_plot(app, t, app.layer, heads.front(), ImVec2(0, 0));
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace attnviz
