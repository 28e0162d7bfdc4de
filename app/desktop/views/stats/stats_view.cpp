// The Statistics view: the head detectors (app/stats_detectors) as five layer x head grids on top,
// then one table row per layer x head with head_stats' numbers (entropy, max weight, mean distance,
// first-token and punctuation share) and the strongest keys, sortable by any numeric column. Rows
// and detector reports are built once per trace (and query) into app.stats.cache, not every frame.
// A click chooses the head; a double-click opens it in the Heads view.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "shell/panels.h"
#include "shell/view_registry.h"
#include "widgets/importance_panel.h"
#include "widgets/flow_panel.h"
#include "widgets/lens_panel.h"
#include "views/stats/stats_detectors.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

enum Column { col_layer, col_head, col_score, col_entropy, col_max, col_distance, col_first, col_punct, col_keys, col_count };


// Short names: the table has no room for "dot-product (no scaling)".
Str score_str(ScoreKind k) {
  switch (k) {
    case ScoreKind::scaled_dot: return Str::st_score_scaled;
    case ScoreKind::dot: return Str::st_score_dot;
    case ScoreKind::general: return Str::st_score_general;
    case ScoreKind::additive: return Str::st_score_additive;
  }
  return Str::st_score_scaled;
}

float sort_value(const StatsRow& r, int column) {
  switch (column) {
    case col_layer: return static_cast<float>(r.layer);
    case col_head: return static_cast<float>(r.head);
    case col_score: return static_cast<float>(r.score);
    case col_entropy: return r.stats.entropy;
    case col_max: return r.stats.max_weight;
    case col_distance: return r.stats.mean_distance;
    case col_first: return r.stats.first_token_share;
    case col_punct: return r.stats.punct_share;
    default: return 0;
  }
}

// Row order for the app's sort column; ties (and the layer column itself) fall back to layer, head.
std::vector<int> sorted_rows(const AppState& app) {
  const auto& rows = app.stats.cache.rows;
  std::vector<int> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  const int col = app.stats.sort_column;
  const bool desc = app.stats.sort_descending;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const StatsRow& ra = rows[static_cast<size_t>(a)];
    const StatsRow& rb = rows[static_cast<size_t>(b)];
    float va = sort_value(ra, col), vb = sort_value(rb, col);
    if (col == col_layer) {  // layer, then head, both in the chosen direction
      va = va * 4096 + static_cast<float>(ra.head);
      vb = vb * 4096 + static_cast<float>(rb.head);
    }
    if (va != vb) return desc ? va > vb : va < vb;
    return a < b;
  });
  return order;
}

// A number with a thin bar under it: the bar's share of the cell = how large the value is.
void value_cell(float value, float fraction, const char* format) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = ImGui::GetTextLineHeight();
  const float thick = std::max(2.0f, h * 0.14f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec4 bar = ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram);
  const float f = std::clamp(std::isfinite(fraction) ? fraction : 0.0f, 0.0f, 1.0f);
  // At the bottom edge of the row, clear of the digits.
  const ImVec2 b0(p.x, p.y + h + ImGui::GetStyle().CellPadding.y - thick);
  bar.w = 0.18f;
  dl->AddRectFilled(b0, ImVec2(p.x + w, b0.y + thick), ImGui::GetColorU32(bar));
  bar.w = 0.85f;
  if (f > 0) dl->AddRectFilled(b0, ImVec2(p.x + w * f, b0.y + thick), ImGui::GetColorU32(bar));
  ImGui::Text(format, static_cast<double>(value));
}

void header_tooltip(const AppState& app, const Trace& t, int column) {
  const Lang L = app.lang;
  std::string text;
  switch (column) {
    case col_layer: text = tr(L, Str::st_layer_tip); break;
    case col_head: text = tr(L, Str::st_head_tip); break;
    case col_score: text = tr(L, Str::st_scoring_tip); break;
    case col_entropy: text = tr(L, Str::st_entropy_tip); break;
    case col_max: text = tr(L, Str::st_max_weight_tip); break;
    case col_distance: text = tr(L, Str::st_distance_tip); break;
    case col_first: text = tr(L, Str::st_first_tip); break;
    case col_punct: text = tr(L, Str::st_punct_tip); break;
    case col_keys:
      if (const int query = app_shown_query(app); query >= 0) {
        text = tr_format(L, Str::st_top_keys_tip_query, t.queries[static_cast<size_t>(query)].text.c_str());
      } else {
        text = tr(L, Str::st_top_keys_tip_all);
      }
      break;
    default: break;
  }
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void summary_line(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  ImGui::TextUnformatted(tr_format(L, Str::st_summary, static_cast<int>(t.layers.size()), t.config.n_heads, t.n_queries(), t.n_keys()).c_str());
  if (app_computing(app)) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr(L, Str::computing));
  }
  // The view is long: a row of jumps to its sections (the lens and the flow need a model that ran).
  const bool ran = app.trace_model && !t.weights_only && !t.cross;
  const bool lens = ran && model_output_head(*app.trace_model) != OutputHead::none;
  ImGui::SameLine();
  ImGui::TextDisabled("%s", tr(L, Str::st_jump));
  const auto jump = [&](Str label, const char* id) {
    ImGui::SameLine();
    if (ImGui::SmallButton(tr(L, label))) app.scroll_to = id;
  };
  if (lens) jump(Str::lens_title_short, "lens");
  if (ran) jump(Str::flow_title_short, "flow");
  jump(Str::dt_section, "detectors");
  jump(Str::dt_table_section, "table");
}

// The table's own bar: which query the top keys belong to, and how to use the rows.
void table_toolbar(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  section_header(tr(L, Str::dt_table_section));
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(tr(L, Str::st_keys_for));
  ImGui::SameLine();
  const int query = app_shown_query(app);
  const std::string preview = query >= 0 ? std::string(tr(L, Str::query)) + " \"" + t.queries[static_cast<size_t>(query)].text + "\""
                                             : std::string(tr(L, Str::st_all_queries));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 13);
  if (ImGui::BeginCombo("##keys_for", preview.c_str())) {
    if (ImGui::Selectable(tr(L, Str::st_all_queries), query < 0)) app_set_shown_query(app, -1);
    for (int q = 0; q < t.n_queries(); ++q) {
      const std::string item = std::to_string(q) + "  " + t.queries[static_cast<size_t>(q)].text;
      if (ImGui::Selectable(item.c_str(), query == q)) app_set_shown_query(app, q);
    }
    ImGui::EndCombo();
  }
  // The hint follows on the same line when it fits whole, else wraps below.
  const char* hint = tr(L, Str::st_hint);
  ImGui::SameLine(0, ImGui::GetFontSize());
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(hint).x) ImGui::NewLine();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::AlignTextToFramePadding();
  text_wrapped(hint);
  ImGui::PopStyleColor();
}

// As many of the strongest keys as fit whole (at least one); the tooltip lists them all.
void top_keys_cell(const AppState& app, const Trace& t, const StatsRow& r) {
  const float gap = ImGui::GetStyle().ItemInnerSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  float used = 0;
  for (size_t i = 0; i < r.top.size(); ++i) {
    const KeyWeight& kw = r.top[i];
    const char* key = t.keys[static_cast<size_t>(kw.key)].text.c_str();
    char weight[16];
    std::snprintf(weight, sizeof weight, "%.2f", static_cast<double>(kw.weight));
    const float w = ImGui::CalcTextSize(key).x + gap + ImGui::CalcTextSize(weight).x + (i > 0 ? gap * 3 : 0);
    if (i > 0 && used + w > avail) break;
    if (i > 0) ImGui::SameLine(0, gap * 3);
    ImGui::TextUnformatted(key);
    ImGui::SameLine(0, gap);
    ImGui::TextDisabled("%s", weight);
    used += w;
  }
  const bool hovered = ImGui::IsWindowHovered() &&
                       ImGui::IsMouseHoveringRect(p0, ImVec2(p0.x + avail, p0.y + ImGui::GetTextLineHeight()));
  if (!r.top.empty() && hovered) {
    ImGui::BeginTooltip();
    ImGui::Text("%s %d · %s %d", tr(app.lang, Str::layer), r.layer + 1, tr(app.lang, Str::head), r.head + 1);
    ImGui::Separator();
    for (const KeyWeight& kw : r.top) {
      ImGui::Text("%.3f", static_cast<double>(kw.weight));
      ImGui::SameLine();
      ImGui::TextUnformatted(t.keys[static_cast<size_t>(kw.key)].text.c_str());
    }
    ImGui::EndTooltip();
  }
}

void stats_table(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  const ImGuiStyle& style = ImGui::GetStyle();
  const char* names[col_count] = {tr(L, Str::layer),      tr(L, Str::head),          tr(L, Str::scoring),
                                  tr(L, Str::st_entropy), tr(L, Str::st_max_weight), tr(L, Str::st_distance),
                                  tr(L, Str::st_first),   tr(L, Str::st_punct),      tr(L, Str::st_top_keys)};
  // Fixed columns as narrow as their header (plus the sort arrow) or their widest value allow; the
  // top keys take the rest, and the table scrolls sideways when even that is too little (large fonts).
  const float arrow = ImGui::GetFontSize() * 1.2f;
  const float number_w = ImGui::CalcTextSize("0.000").x;
  float widths[col_count] = {};
  float fixed_total = 0;
  for (int c = 0; c < col_keys; ++c) {
    float w = ImGui::CalcTextSize(names[c]).x + arrow;
    if (c >= col_entropy && c <= col_punct) w = std::max(w, number_w);
    if (c == col_score)
      for (ScoreKind k : {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive})
        w = std::max(w, ImGui::CalcTextSize(tr(L, score_str(k))).x);
    widths[c] = w;
    fixed_total += w + style.CellPadding.x * 2 + 1;
  }
  // Sideways scrolling only when the columns do not fit beside the vertical scrollbar.
  const float needed = fixed_total + ImGui::GetFontSize() * 10;  // room for two top keys
  const bool scroll_x = needed > ImGui::GetContentRegionAvail().x - style.ScrollbarSize;
  const float inner_w = scroll_x ? needed : 0.0f;
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_NoSavedSettings | (scroll_x ? ImGuiTableFlags_ScrollX : 0);
  // As tall as the rows need (two-line headers), at most the window: no empty grid below 8 rows.
  const float row_h = ImGui::GetTextLineHeight() + style.CellPadding.y * 2;
  const float table_h = row_h * (static_cast<float>(app.stats.cache.rows.size()) + 2) + (scroll_x ? style.ScrollbarSize : 0) + 4;
  // The room left below, but at least most of a window's height: with the lens and the flow graph
  // above, the view scrolls, and the table is not squeezed into what happens to be left of the screen.
  const float room = std::max(ImGui::GetContentRegionAvail().y, ImGui::GetWindowHeight() * 0.7f);
  if (!ImGui::BeginTable("stats", col_count, flags, ImVec2(0, std::min(table_h, room)), inner_w)) return;
  for (int c = 0; c < col_count; ++c) {
    ImGuiTableColumnFlags f = c == col_keys ? ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort
                                            : ImGuiTableColumnFlags_WidthFixed;
    // Statistics are most interesting largest first; positions smallest first.
    if (c >= col_entropy && c <= col_punct) f |= ImGuiTableColumnFlags_PreferSortDescending;
    if (c == app.stats.sort_column)
      f |= ImGuiTableColumnFlags_DefaultSort |
           (app.stats.sort_descending ? ImGuiTableColumnFlags_PreferSortDescending : ImGuiTableColumnFlags_PreferSortAscending);
    ImGui::TableSetupColumn(names[c], f, widths[c], static_cast<ImGuiID>(c));
  }
  ImGui::TableSetupScrollFreeze(2, 1);  // layer and head stay in view when scrolling sideways
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    if (specs->SpecsCount > 0) {
      app.stats.sort_column = specs->Specs[0].ColumnIndex;
      app.stats.sort_descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
    }
    specs->SpecsDirty = false;
  }
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c < col_count; ++c) {
    ImGui::TableSetColumnIndex(c);
    ImGui::TableHeader(names[c]);
    if (ImGui::IsItemHovered()) header_tooltip(app, t, c);
  }

  const std::vector<int> order = sorted_rows(app);
  const auto& rows = app.stats.cache.rows;
  float max_distance = 0;
  for (const StatsRow& r : rows) max_distance = std::max(max_distance, r.stats.mean_distance);
  const float ln_keys = std::log(static_cast<float>(std::max(t.n_keys(), 2)));
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const StatsRow& r = rows[static_cast<size_t>(order[static_cast<size_t>(i)])];
      ImGui::TableNextRow();
      ImGui::PushID(r.layer * 4096 + r.head);
      ImGui::TableSetColumnIndex(col_layer);
      const bool selected = r.layer == app.layer && r.head == app.head;
      if (ImGui::Selectable(std::to_string(r.layer + 1).c_str(), selected,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        app.layer = r.layer;
        app.head = r.head;
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
          app.heads.zoom_head = r.head;
          app.view = View::heads;
        }
      }
      ImGui::TableSetColumnIndex(col_head);
      ImGui::Text("%d", r.head + 1);
      ImGui::TableSetColumnIndex(col_score);
      if (t.weights_only) ImGui::TextDisabled("–");  // an attention file does not say how its scores were formed
      else if (r.score == ScoreKind::scaled_dot) ImGui::TextDisabled("%s", tr(L, score_str(r.score)));
      else ImGui::TextUnformatted(tr(L, score_str(r.score)));
      ImGui::TableSetColumnIndex(col_entropy);
      value_cell(r.stats.entropy, r.stats.entropy / ln_keys, "%.3f");
      ImGui::TableSetColumnIndex(col_max);
      value_cell(r.stats.max_weight, r.stats.max_weight, "%.3f");
      ImGui::TableSetColumnIndex(col_distance);
      value_cell(r.stats.mean_distance, max_distance > 0 ? r.stats.mean_distance / max_distance : 0.0f, "%.2f");
      ImGui::TableSetColumnIndex(col_first);
      value_cell(r.stats.first_token_share, r.stats.first_token_share, "%.3f");
      ImGui::TableSetColumnIndex(col_punct);
      value_cell(r.stats.punct_share, r.stats.punct_share, "%.3f");
      ImGui::TableSetColumnIndex(col_keys);
      top_keys_cell(app, t, r);
      ImGui::PopID();
    }
  ImGui::EndTable();
}

}  // namespace

void stats_view_draw(AppState& app, GuiResources& /*gui: grids are drawn as rectangles*/) {
  if (!view_begin(app, View::stats)) return;
  const Trace& t = app_shown_trace(app);
  if (!stats_cache_refresh(app)) {  // a long input's maps are being formed, on a thread of their own
    ImGui::TextDisabled("%s", tr_format(app.lang, Str::st_scanning, static_cast<int>(t.layers.size()) * t.config.n_heads,
                                        t.n_queries(), app.stats.scanned->load()).c_str());
    ImGui::End();
    return;
  }
  summary_line(app, t);
  importance_panel(app);
  scroll_anchor(app.scroll_to, "lens");
  lens_panel(app);
  scroll_anchor(app.scroll_to, "flow");
  flow_panel(app);
  // The grids take what they need, up to 60% of the room below (or of most of the window, when the
  // sections above fill it): the table keeps the rest and scrolls.
  scroll_anchor(app.scroll_to, "detectors");
  stats_detectors_section(app, t, std::max(ImGui::GetContentRegionAvail().y, ImGui::GetWindowHeight() * 0.7f) * 0.6f);
  scroll_anchor(app.scroll_to, "table");
  table_toolbar(app, t);
  ImGui::Spacing();
  stats_table(app, t);
  ImGui::End();
}

}  // namespace attnviz
