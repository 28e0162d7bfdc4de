// The Model view (bertviz's "model view"): every layer x head of the trace as a thumbnail in one
// grid, rows = layers and columns = heads, with headers that stay put while the grid scrolls. The
// thumbnails are the GPU textures the Heads view uses; hovering one shows a larger preview and that
// head's statistics, a click opens it in the Heads view. Draws only; computes no attention.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "analysis/stats.h"
#include "shell/fonts.h"
#include "shell/panels.h"
#include "shell/shell.h"
#include "shell/view_registry.h"
#include "widgets/draw.h"
#include "widgets/measure_controls.h"

namespace attnviz {

namespace {


struct ModelGrid {
  float px = 1;            // pixels per token (cell side)
  ImVec2 thumb;            // one thumbnail: (Tk, Tq) cells
  float gap = 6;           // between thumbnails
  float row_hdr_w = 0;     // "Layer 12" column
  float col_hdr_h = 0;     // "Head 12" row
  bool short_heads = false;  // column headers show only the number (the corner names the axis)
  ImVec2 pitch() const { return ImVec2(thumb.x + gap, thumb.y + gap); }
};

std::string numbered(Lang L, Str what, int i) { return std::string(tr(L, what)) + " " + std::to_string(i); }

// Columns of the grid: one per head, or one in all for the rollout (a map per layer, every head mixed in).
int grid_columns(const AppState& app, const Trace& t) { return app_map_per_layer(app) ? 1 : t.config.n_heads; }

ModelGrid layout_model_grid(const AppState& app, const Trace& t, ImVec2 avail) {
  const Lang L = app.lang;
  const float s = ui_scale();
  const int NL = static_cast<int>(t.layers.size()), NH = grid_columns(app, t);
  const float Tq = static_cast<float>(std::max(1, t.n_queries())), Tk = static_cast<float>(std::max(1, t.n_keys()));
  ModelGrid g;
  g.gap = std::round(ImGui::GetFontSize() * 0.4f);
  g.row_hdr_w = ImGui::CalcTextSize(numbered(L, Str::layer, NL).c_str()).x + ImGui::GetFontSize() * 0.9f;
  g.col_hdr_h = ImGui::GetTextLineHeight() + g.gap + ImGui::GetFontSize() * 0.2f;
  // Fit the whole grid into the view, then keep thumbnails between a readable minimum (scroll
  // instead) and a maximum (a 1 x 2 model would otherwise fill the screen with two blurry blocks).
  const float by_w = ((avail.x - g.row_hdr_w) / static_cast<float>(NH) - g.gap) / Tk;
  const float by_h = ((avail.y - g.col_hdr_h) / static_cast<float>(NL) - g.gap) / Tq;
  float px = std::min(by_w, by_h);
  const float longest = std::max(Tq, Tk);
  px = std::min(px, 15.0f * ImGui::GetFontSize() / longest);
  if (px >= 6.0f) px = std::floor(px);  // whole pixels per cell where rounding costs little
  px = std::max(px, std::max(40.0f * s / longest, 1.0f));  // at least one pixel per token
  g.px = px;
  g.thumb = ImVec2(px * Tk, px * Tq);
  const float widest_title = app_map_per_layer(app) ? 0.0f : ImGui::CalcTextSize(numbered(L, Str::head, NH).c_str()).x;
  g.short_heads = widest_title > g.thumb.x + g.gap * 0.5f;
  return g;
}

// Statistics, preview and hint for the hovered thumbnail.
void thumbnail_tooltip(const AppState& app, const GuiResources& gui, const Trace& t, int layer, int h) {
  const Lang L = app.lang;
  const HeadTrace& head = t.head(layer, h);
  const bool per_layer = app_map_per_layer(app);
  std::vector<bool> punct;
  punct.reserve(t.keys.size());
  for (const TraceToken& k : t.keys) punct.push_back(k.kind == TokenKind::punct);
  // The rollout's rows are distributions too (products of row-stochastic maps): its statistics are the map's.
  const std::shared_ptr<const Mat> map = per_layer ? app_head_map(app, layer, h) : app_head_weights(app, t, layer, h);
  const HeadStats st = head_stats(*map, punct);
  // A value-norm map is not a distribution: the statistics stay the weights', said so, and the map
  // shown adds its own largest cell.
  const bool value_norm = app_measure_drawn(app) == AttentionMeasure::value_norm;

  ImGui::BeginTooltip();
  if (per_layer)
    ImGui::TextColored(ImVec4(1.0f, 0.63f, 0.12f, 1.0f), "%s", tr_format(L, Str::rollout_panel, layer + 1).c_str());
  else
    ImGui::TextColored(ImVec4(1.0f, 0.63f, 0.12f, 1.0f), "%s %d · %s %d", tr(L, Str::layer), layer + 1,
                       tr(L, Str::head), h + 1);
  if (head.score != ScoreKind::scaled_dot && !per_layer) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", std::string(name_of(head.score)).c_str());
  }
  ImGui::Separator();
  const float side = ImGui::GetFontSize() * 11.0f;
  const float longest = static_cast<float>(std::max(t.n_queries(), t.n_keys()));
  const float px = std::max(1.0f, std::floor(side / longest));
  const ImVec2 size(px * static_cast<float>(t.n_keys()), px * static_cast<float>(t.n_queries()));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(gui_shown_texture(app, gui, layer, h))), size);
  if (const int query = app_shown_query(app); query >= 0 && query < t.n_queries()) {
    const float y = p0.y + px * static_cast<float>(query);
    ImGui::GetWindowDrawList()->AddRect(ImVec2(p0.x - 1, y - 1), ImVec2(p0.x + size.x + 1, y + px + 1), kAccent, 0, 0, 2.0f);
  }
  ImGui::SameLine(0, ImGui::GetFontSize());
  ImGui::BeginGroup();
  const float uniform = std::log(static_cast<float>(std::max(1, t.real_keys > 0 ? t.real_keys : t.n_keys())));
  if (value_norm) ImGui::TextDisabled("%s", tr(L, Str::mv_stats_of_weights));
  if (ImGui::BeginTable("stats", 2, ImGuiTableFlags_SizingFixedFit)) {
    auto row = [](const char* name, const std::string& value) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", name);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
    };
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.3f  (%s %.3f)", st.entropy, tr(L, Str::mv_uniform), uniform);
    row(tr(L, Str::mv_entropy), buf);
    std::snprintf(buf, sizeof buf, "%.3f", st.max_weight);
    row(tr(L, Str::mv_max_weight), buf);
    std::snprintf(buf, sizeof buf, "%.2f %s", st.mean_distance, tr(L, Str::mv_tokens_unit));
    row(tr(L, Str::mv_mean_distance), buf);
    std::snprintf(buf, sizeof buf, "%.1f%%", st.first_token_share * 100.0f);
    row(tr(L, Str::mv_first_token), buf);
    std::snprintf(buf, sizeof buf, "%.1f%%", st.punct_share * 100.0f);
    row(tr(L, Str::mv_punct), buf);
    if (value_norm) {  // where this head moves the most, in the map's own units
      const std::shared_ptr<const Mat> shown = app_head_map(app, layer, h);
      const Mat& map = *shown;
      Eigen::Index qi = 0, ki = 0;
      if (map.rows() == t.n_queries() && map.cols() == t.n_keys() && map.size() > 0) {
        const float largest = map.maxCoeff(&qi, &ki);
        std::snprintf(buf, sizeof buf, "%.3f  (%s → %s)", largest, t.queries[static_cast<size_t>(qi)].text.c_str(),
                      t.keys[static_cast<size_t>(ki)].text.c_str());
        row(tr(L, Str::mv_largest_value_norm), buf);
      }
    }
    ImGui::EndTable();
  }
  if (const int query = app_shown_query(app); query >= 0 && query < t.n_queries()) {
    ImGui::Spacing();
    ImGui::TextColored(ImVec4(1.0f, 0.63f, 0.12f, 1.0f), "%s: %s", tr(L, Str::query),
                       t.queries[static_cast<size_t>(query)].text.c_str());
  }
  ImGui::EndGroup();
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr(L, Str::mv_click_open));
  if (!t.weights_only && !per_layer)  // an attention file's heads cannot be switched off, nor the rollout
    ImGui::TextDisabled("%s", tr(L, t.head(layer, h).ablated ? Str::mv_right_click_on : Str::mv_right_click_off));
  ImGui::EndTooltip();
}

void model_toolbar(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8.0f);
  if (ImGui::BeginCombo(tr(L, Str::colormap), std::string(name_of(app.cmap)).c_str())) {
    for (Colormap c : {Colormap::viridis, Colormap::magma, Colormap::high_contrast})
      if (ImGui::Selectable(std::string(name_of(c)).c_str(), c == app.cmap)) app.cmap = c;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  measure_combo(app);
  map_scale_controls(app);
  if (const int query = app_shown_query(app); query >= 0 && query < t.n_queries()) {
    ImGui::SameLine(0, ImGui::GetFontSize());
    ImGui::TextColored(ImVec4(1.0f, 0.63f, 0.12f, 1.0f), "%s: %s", tr(L, Str::query),
                       t.queries[static_cast<size_t>(query)].text.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton(tr(L, Str::clear_custom))) app_set_shown_query(app, -1);
  }
  const std::string summary = app_computing(app) ? std::string(tr(L, Str::computing))
                                                 : tr_format(L, Str::mv_summary, static_cast<int>(t.layers.size()),
                                                             t.config.n_heads, t.n_queries(), t.n_keys());
  // Keep the summary on the first line when it fits, else start the second line with it.
  same_line_or_wrap(ImGui::CalcTextSize(summary.c_str()).x, ImGui::GetFontSize());
  ImGui::TextDisabled("%s", summary.c_str());
  ImGui::TextDisabled("%s", tr(L, Str::mv_hint));
  measure_error(app);
}

}  // namespace

void model_view_draw(AppState& app, GuiResources& gui) {
  const Lang L = app.lang;
  if (!view_begin(app, View::model)) return;
  const Trace& t = app_shown_trace(app);
  model_toolbar(app, t);
  const int NL = static_cast<int>(t.layers.size()), NH = grid_columns(app, t);
  const bool per_layer = app_map_per_layer(app);
  if (NL == 0 || NH == 0 || t.n_queries() == 0 || t.n_keys() == 0) {
    ImGui::End();
    return;
  }
  const float s = ui_scale();

  ImGui::BeginChild("model_grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  const ModelGrid g = layout_model_grid(app, t, ImGui::GetContentRegionAvail());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();  // moves with the scroll position
  const ImVec2 grid0(origin.x + g.row_hdr_w, origin.y + g.col_hdr_h);
  const ImVec2 win0 = ImGui::GetWindowPos();
  const ImVec2 win1(win0.x + ImGui::GetWindowSize().x, win0.y + ImGui::GetWindowSize().y);
  // Headers stick to the visible edge while the grid scrolls under them.
  const float hdr_x = std::max(origin.x, win0.x), hdr_y = std::max(origin.y, win0.y);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool over_headers = mouse.x < hdr_x + g.row_hdr_w || mouse.y < hdr_y + g.col_hdr_h;
  const ImU32 border = ImGui::GetColorU32(ImGuiCol_Border);
  const ImU32 hover_col = IM_COL32(255, 255, 255, 230);
  const int query = app_shown_query(app);
  const bool has_query = query >= 0 && query < t.n_queries();

  int hovered_l = -1, hovered_h = -1;
  for (int l = 0; l < NL; ++l) {
    const float y = grid0.y + static_cast<float>(l) * g.pitch().y;
    if (y > win1.y || y + g.thumb.y < win0.y) continue;  // off screen: no item, no draw
    for (int h = 0; h < NH; ++h) {
      const float x = grid0.x + static_cast<float>(h) * g.pitch().x;
      if (x > win1.x || x + g.thumb.x < win0.x) continue;
      const ImVec2 p0(x, y), p1(x + g.thumb.x, y + g.thumb.y);
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(l * NH + h);
      const bool clicked = ImGui::InvisibleButton("thumb", g.thumb) && !over_headers;
      const bool hovered = ImGui::IsItemHovered() && !over_headers;
      ImGui::PopID();
      dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(gui_shown_texture(app, gui, l, h))), p0, p1);
      if (t.head(l, h).ablated && !per_layer) draw_hatch(dl, p0, p1, std::max(6.0f, g.thumb.x / 5.0f));
      // A right-click (or X on the chosen head) switches the head off or on.
      if (hovered && !per_layer && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) app_toggle_head(app, l, h);
      if (has_query) {
        // Ticks in the gaps beside the row keep the row itself visible in small thumbnails; an
        // outline is added once rows are tall enough not to be hidden by it.
        const float qy = y + g.px * static_cast<float>(query), mid = qy + g.px * 0.5f;
        const float tick = std::max(2.0f, g.gap * 0.6f), thick = std::max(1.5f, std::min(g.px, 3.0f * s));
        dl->AddLine(ImVec2(x - tick - 1, mid), ImVec2(x - 1, mid), kAccent, thick);
        dl->AddLine(ImVec2(p1.x + 1, mid), ImVec2(p1.x + tick + 1, mid), kAccent, thick);
        if (g.px >= 6.0f) dl->AddRect(ImVec2(x, qy), ImVec2(p1.x, qy + g.px), IM_COL32(255, 160, 30, 170), 0, 0, 1.0f);
      }
      const bool current = l == app.layer && (per_layer || h == app.head);
      if (current) dl->AddRect(ImVec2(x - 2 * s, y - 2 * s), ImVec2(p1.x + 2 * s, p1.y + 2 * s), kAccent, 0, 0, 2.0f * s);
      else dl->AddRect(ImVec2(x - 1, y - 1), ImVec2(p1.x + 1, p1.y + 1), border);
      if (hovered) {
        hovered_l = l;
        hovered_h = h;
        dl->AddRect(ImVec2(x - 1, y - 1), ImVec2(p1.x + 1, p1.y + 1), hover_col, 0, 0, 1.5f * s);
      }
      if (clicked) {  // the head in the Heads view; the rollout's layer there
        app.layer = l;
        if (!per_layer) app.head = h;
        app.heads.zoom_head = per_layer ? -1 : h;
        app.view = View::heads;
      }
    }
  }

  // Sticky headers, drawn over any thumbnail that scrolled beneath them.
  const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float line = ImGui::GetTextLineHeight();
  // The backgrounds stop a gap short of the grid so the chosen head's frame and the query ticks show.
  dl->AddRectFilled(ImVec2(win0.x, hdr_y), ImVec2(win1.x, hdr_y + g.col_hdr_h - g.gap), bg);
  for (int h = 0; h < NH; ++h) {
    const float x = grid0.x + static_cast<float>(h) * g.pitch().x;
    if (x > win1.x || x + g.thumb.x < hdr_x + g.row_hdr_w - g.gap) continue;
    const std::string label = per_layer       ? std::string(tr(L, Str::rollout_column))
                              : g.short_heads ? std::to_string(h + 1)
                                              : numbered(L, Str::head, h + 1);
    const float tw = ImGui::CalcTextSize(label.c_str()).x;
    const bool chosen = per_layer || h == app.head, on = chosen || h == hovered_h;
    dl->AddText(ImVec2(x + std::max(0.0f, g.thumb.x - tw) * 0.5f, hdr_y + (g.col_hdr_h - g.gap - line) * 0.5f),
                chosen ? kAccent : (on ? text : dim), label.c_str());
  }
  dl->AddRectFilled(ImVec2(hdr_x, hdr_y + g.col_hdr_h - g.gap), ImVec2(hdr_x + g.row_hdr_w - g.gap, win1.y), bg);
  for (int l = 0; l < NL; ++l) {
    const float y = grid0.y + static_cast<float>(l) * g.pitch().y;
    if (y > win1.y || y + g.thumb.y < hdr_y + g.col_hdr_h - g.gap) continue;
    const std::string label = numbered(L, Str::layer, l + 1);
    const bool on = l == app.layer || l == hovered_l;
    dl->AddText(ImVec2(hdr_x, y + std::max(0.0f, g.thumb.y - line) * 0.5f), l == app.layer ? kAccent : (on ? text : dim),
                label.c_str());
  }
  // The corner names the column axis when the column headers are bare numbers.
  dl->AddRectFilled(ImVec2(hdr_x, hdr_y), ImVec2(hdr_x + g.row_hdr_w - g.gap, hdr_y + g.col_hdr_h - g.gap), bg);
  if (g.short_heads)
    dl->AddText(ImVec2(hdr_x, hdr_y + (g.col_hdr_h - g.gap - line) * 0.5f), dim, (std::string(tr(L, Str::head)) + " →").c_str());

  if (hovered_l >= 0) thumbnail_tooltip(app, gui, t, hovered_l, hovered_h);

  // The content size, so the child scrolls when the thumbnails reached their minimum size.
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(g.row_hdr_w + static_cast<float>(NH) * g.pitch().x, g.col_hdr_h + static_cast<float>(NL) * g.pitch().y));
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace attnviz
