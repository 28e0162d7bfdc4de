// The Lines view (bertviz's "head view"): queries in a left column, keys in a right column, and a
// line from every query to every key whose opacity is the attention weight, one colour per head,
// for one layer. Heads switch on and off at their colour swatch; hovering a token keeps only its
// lines, clicking a query keeps it chosen (app.query). Draws only; computes no attention.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <imgui.h>

#include "shell/fonts.h"
#include "shell/panels.h"
#include "shell/shell.h"
#include "shell/view_registry.h"
#include "views/lines/lines_palette.h"
#include "widgets/draw.h"
#include "widgets/measure_controls.h"

namespace attnviz {

namespace {

ImU32 with_alpha(Rgba c, float alpha) {
  return IM_COL32(c.r, c.g, c.b, static_cast<int>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f + 0.5f));
}

// A head's legend colour, and a drawn line's (its head's, or the rollout's).
ImU32 head_color(int h, float alpha) { return with_alpha(lines_head_color(h), alpha); }
ImU32 line_color(const AppState& app, int h, float alpha) { return with_alpha(lines_color(app, h), alpha); }

bool head_shown(const AppState& app, int h) { return lines_head_shown(app.lines, h); }

// Where everything sits, in screen pixels, for one frame.
struct LinesLayout {
  float row_h = 20;
  float q_w = 0, k_w = 0, lines_w = 0;  // query labels | lines | key labels
  float side_w = 0;                     // the focus panel on the right (0: not enough room)
  float x0 = 0;                         // left edge of the query column
  float q_top = 0, k_top = 0;           // y of each column's first row (the shorter one is centred)
  float q_right() const { return x0 + q_w; }
  float k_left() const { return x0 + q_w + lines_w; }
};

float label_width(const std::vector<TraceToken>& tokens, float cap) {
  float w = 0;
  for (const TraceToken& t : tokens) w = std::max(w, ImGui::CalcTextSize(t.text.c_str()).x);
  return std::min(w, cap);
}

// One head's swatch: filled with its colour when shown, an outline when hidden.
void head_swatch(AppState& app, int h, int n_heads) {
  const Lang L = app.lang;
  const float side = ImGui::GetFrameHeight();
  const bool shown = head_shown(app, h);
  ImGui::PushID(h);
  const ImVec2 p0 = ImGui::GetCursorScreenPos(), p1(p0.x + side * 1.25f, p0.y + side);
  ImGui::InvisibleButton("swatch", ImVec2(p1.x - p0.x, side));
  const bool hovered = ImGui::IsItemHovered();
  if (ImGui::IsItemClicked() && h < static_cast<int>(app.lines.hidden.size()))
    app.lines.hidden[static_cast<size_t>(h)] = shown ? 1 : 0;
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    // Double-click: only this head, or (when it already is) every head again.
    bool solo = true;
    for (int o = 0; o < n_heads; ++o) solo = solo && (o == h) != !head_shown(app, o);
    for (int o = 0; o < n_heads && o < static_cast<int>(app.lines.hidden.size()); ++o)
      app.lines.hidden[static_cast<size_t>(o)] = solo ? 0 : (o == h ? 0 : 1);
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float rounding = side * 0.2f;
  const std::string num = std::to_string(h + 1);
  const ImVec2 ts = ImGui::CalcTextSize(num.c_str());
  const ImVec2 at(p0.x + (p1.x - p0.x - ts.x) * 0.5f, p0.y + (side - ts.y) * 0.5f);
  if (shown) {
    dl->AddRectFilled(p0, p1, head_color(h, 1.0f), rounding);
    dl->AddText(at, IM_COL32(0, 0, 0, 255), num.c_str());
  } else {
    dl->AddRect(p0, p1, head_color(h, 0.8f), rounding, 0, 1.5f);
    dl->AddText(at, ImGui::GetColorU32(ImGuiCol_TextDisabled), num.c_str());
  }
  if (hovered) {
    dl->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p1.x + 2, p1.y + 2), IM_COL32(255, 255, 255, 200), rounding, 0, 1.5f);
    ImGui::BeginTooltip();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(head_color(h, 1.0f)), "%s %d", tr(L, Str::head), h + 1);
    ImGui::SameLine();
    ImGui::TextUnformatted(shown ? tr(L, Str::ln_on) : tr(L, Str::ln_off));
    ImGui::TextDisabled("%s", tr(L, Str::ln_legend_hint));
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

// Starts the next item on this line if `width` still fits, else on a new line.
void same_line_if_fits(float width) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetItemRectMax().x + spacing + width;
  const float limit = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (right <= limit) ImGui::SameLine();
}

void lines_toolbar(AppState& app, const Trace& t) {
  const Lang L = app.lang;
  const int NH = t.config.n_heads;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  const std::string layer_preview = std::to_string(app.layer + 1) + " / " + std::to_string(t.layers.size());
  if (ImGui::BeginCombo(tr(L, Str::layer), layer_preview.c_str())) {
    for (int l = 0; l < static_cast<int>(t.layers.size()); ++l)
      if (ImGui::Selectable(std::to_string(l + 1).c_str(), l == app.layer)) app.layer = l;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  measure_combo(app);
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.2f);
  ImGui::AlignTextToFramePadding();
  if (app_map_per_layer(app)) {  // no head to show or hide: the rollout mixes them all
    ImGui::TextDisabled("%s", tr(L, Str::rollout_lines_note));
    measure_error(app);
    return;
  }
  ImGui::TextUnformatted(tr(L, Str::panel_heads));
  const float swatch_w = ImGui::GetFrameHeight() * 1.25f;
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x * 0.5f, ImGui::GetStyle().ItemSpacing.y));
  for (int h = 0; h < NH; ++h) {
    same_line_if_fits(swatch_w);
    head_swatch(app, h, NH);
  }
  ImGui::PopStyleVar();
  const float buttons_w = ImGui::CalcTextSize(tr(L, Str::ln_all_on)).x + ImGui::CalcTextSize(tr(L, Str::ln_all_off)).x +
                          ImGui::GetStyle().FramePadding.x * 4 + ImGui::GetStyle().ItemSpacing.x + ImGui::GetFontSize();
  same_line_if_fits(buttons_w);
  if (ImGui::SmallButton(tr(L, Str::ln_all_on))) std::fill(app.lines.hidden.begin(), app.lines.hidden.end(), 0);
  ImGui::SameLine();
  if (ImGui::SmallButton(tr(L, Str::ln_all_off))) std::fill(app.lines.hidden.begin(), app.lines.hidden.end(), 1);
  if (app_first_aside(app)) {  // set in the Heads or Model view: said here too, and drawn so
    same_line_if_fits(ImGui::CalcTextSize(tr(L, Str::first_aside_caption)).x);
    ImGui::TextDisabled("%s", tr(L, Str::first_aside_caption));
  }
  measure_error(app);
}

LinesLayout layout_lines(const Trace& t, ImVec2 avail, float top) {
  const float s = ui_scale();
  const float font = ImGui::GetFontSize(), line = ImGui::GetTextLineHeight();
  LinesLayout lay;
  const float pad = font * 0.5f;
  lay.q_w = label_width(t.queries, font * 9.0f) + 2 * pad;
  lay.k_w = label_width(t.keys, font * 9.0f) + 2 * pad;
  const float want_side = font * 16.0f;
  if (avail.x >= lay.q_w + lay.k_w + font * 16.0f + want_side) lay.side_w = want_side;
  const float room = avail.x - lay.side_w - lay.q_w - lay.k_w - font * 2.0f;
  lay.lines_w = std::clamp(room, 90.0f * s, font * 24.0f);
  const float diagram_w = lay.q_w + lay.lines_w + lay.k_w;
  lay.x0 = ImGui::GetCursorScreenPos().x + std::max(0.0f, (avail.x - lay.side_w - diagram_w) * 0.5f);
  // Rows as tall as a comfortable line; squeezed down to a tight one before the column scrolls.
  const int rows = std::max(t.n_queries(), t.n_keys());
  lay.row_h = std::clamp(avail.y / static_cast<float>(std::max(rows, 1)), line + 2.0f, line * 1.9f);
  lay.q_top = top + static_cast<float>(rows - t.n_queries()) * lay.row_h * 0.5f;
  lay.k_top = top + static_cast<float>(rows - t.n_keys()) * lay.row_h * 0.5f;
  return lay;
}

// A token's label in its column, with a background box whose opacity shows its share of the
// focused token's attention (0 = no box), and an outline when chosen or hovered.
void token_label(ImDrawList* dl, const TraceToken& tok, ImVec2 box0, ImVec2 box1, bool right_align, float share, bool chosen,
                 bool hovered) {
  const float rounding = ImGui::GetFontSize() * 0.25f;
  const float pad = ImGui::GetFontSize() * 0.5f;
  if (share > 0) dl->AddRectFilled(box0, box1, IM_COL32(255, 160, 30, static_cast<int>(std::sqrt(std::min(share, 1.0f)) * 200.0f)), rounding);
  if (chosen) dl->AddRect(box0, box1, kAccent, rounding, 0, 2.0f);
  else if (hovered) dl->AddRect(box0, box1, IM_COL32(255, 255, 255, 200), rounding, 0, 1.5f);
  const float tw = ImGui::CalcTextSize(tok.text.c_str()).x;
  const float line = ImGui::GetTextLineHeight();
  const float y = (box0.y + box1.y - line) * 0.5f;
  const float x = right_align ? std::max(box0.x + pad, box1.x - pad - tw) : box0.x + pad;
  const ImU32 col = tok.pad ? ImGui::GetColorU32(ImGuiCol_TextDisabled)
                            : (chosen ? kAccent : ImGui::GetColorU32(ImGuiCol_Text));
  dl->PushClipRect(ImVec2(box0.x + 1, box0.y), ImVec2(box1.x - 1, box1.y), true);
  dl->AddText(ImVec2(x, y), col, tok.text.c_str());
  dl->PopClipRect();
}

struct Focus {
  int query = -1, key = -1;  // at most one is set: whose lines are drawn (-1, -1: everyone's)
  bool hovered = false;      // from the mouse rather than app.query
};

// One head's cell under the chosen measure, scaled into [0, 1] (value norms by their largest value).
float shown_value(const AppState& app, int layer, int h, int q, int k) {
  return (*app_head_map(app, layer, h))(q, k) / app.maps.vmax;
}

// Mean over the shown heads of the (measured) weight between q and k.
float mean_weight(const AppState& app, int layer, const std::vector<int>& shown, int q, int k) {
  if (shown.empty()) return 0;
  float sum = 0;
  for (int h : shown) sum += shown_value(app, layer, h, q, k);
  return sum / static_cast<float>(shown.size());
}

// The focus panel: the strongest partners of the focused token, each with a bar made of one
// segment per shown head (segments add up to the mean weight over the shown heads).
void focus_panel(const AppState& app, const Trace& t, const std::vector<int>& shown, const Focus& f) {
  const Lang L = app.lang;
  if (f.query < 0 && f.key < 0) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr(L, Str::ln_hint));
    ImGui::Spacing();
    ImGui::TextDisabled("%s", tr(L, Str::ln_legend_hint));
    ImGui::PopTextWrapPos();
    return;
  }
  const bool by_query = f.query >= 0;
  const std::vector<TraceToken>& own = by_query ? t.queries : t.keys;
  const std::vector<TraceToken>& other = by_query ? t.keys : t.queries;
  const int me = by_query ? f.query : f.key;
  ImGui::TextColored(ImVec4(1.0f, 0.63f, 0.12f, 1.0f), "%s: %s", tr(L, by_query ? Str::query : Str::key),
                     own[static_cast<size_t>(me)].text.c_str());
  ImGui::TextDisabled("%s", by_query ? tr(L, Str::ln_strongest) : tr(L, Str::ln_into_key));
  // The numbers are in the measure's own units, as the Heads view prints them (the lines' opacity is
  // scaled by the largest value; the numbers are not).
  const float unit = app.maps.vmax;
  const AttentionMeasure drawn = app_measure_drawn(app);
  const std::string what = drawn == AttentionMeasure::rollout ? tr_format(L, Str::rollout_panel, app.layer + 1)
                           : drawn == AttentionMeasure::weights
                               ? std::string(tr(L, Str::ln_mean_weight))
                               : tr_format(L, Str::ln_mean_measure, measure_label(L, drawn));
  ImGui::PushTextWrapPos(0.0f);  // "mean value-norm over the shown heads" is wider than a narrow panel
  ImGui::TextDisabled("%s", what.c_str());
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  if (shown.empty()) return;
  std::vector<std::pair<float, int>> order;
  for (int o = 0; o < static_cast<int>(other.size()); ++o) {
    const float w = by_query ? mean_weight(app, app.layer, shown, me, o) : mean_weight(app, app.layer, shown, o, me);
    if (w >= kLinesMinWeight) order.emplace_back(w, o);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const float font = ImGui::GetFontSize();
  const float name_w = font * 5.0f, value_w = ImGui::CalcTextSize("0.000").x;
  const float bar_w = std::max(font * 2.0f, ImGui::GetContentRegionAvail().x - name_w - value_w - font);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int n = std::min(static_cast<int>(order.size()), 12);
  // The strongest partner's bar spans the full width; the others are to the same scale.
  const float full = order.empty() ? 1.0f : order.front().first;
  for (int i = 0; i < n; ++i) {
    const auto [w, o] = order[static_cast<size_t>(i)];
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight();
    dl->PushClipRect(p, ImVec2(p.x + name_w - font * 0.3f, p.y + line), true);
    dl->AddText(p, ImGui::GetColorU32(ImGuiCol_Text), other[static_cast<size_t>(o)].text.c_str());
    dl->PopClipRect();
    float x = p.x + name_w;
    const float y0 = p.y + line * 0.2f, y1 = p.y + line * 0.8f;
    dl->AddRectFilled(ImVec2(x, y0), ImVec2(x + bar_w, y1), ImGui::GetColorU32(ImGuiCol_FrameBg));
    for (int h : shown) {
      const float wh = by_query ? shown_value(app, app.layer, h, me, o) : shown_value(app, app.layer, h, o, me);
      const float seg = bar_w * wh / static_cast<float>(shown.size()) / full;
      if (seg <= 0) continue;
      dl->AddRectFilled(ImVec2(x, y0), ImVec2(x + seg, y1), line_color(app, h, 1.0f));
      x += seg;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.3f", w * unit);
    dl->AddText(ImVec2(p.x + name_w + bar_w + font * 0.5f, p.y), ImGui::GetColorU32(ImGuiCol_Text), buf);
    ImGui::Dummy(ImVec2(name_w + bar_w + font * 0.5f + value_w, line));
  }
}

}  // namespace

void lines_view_draw(AppState& app, GuiResources& /*gui: lines need no texture*/) {
  const Lang L = app.lang;
  if (!view_begin(app, View::lines)) return;
  const Trace& t = app_shown_trace(app);
  const int NH = t.config.n_heads, Tq = t.n_queries(), Tk = t.n_keys();
  lines_toolbar(app, t);
  if (app.layer < 0 || app.layer >= static_cast<int>(t.layers.size()) || Tq == 0 || Tk == 0) {
    ImGui::End();
    return;
  }
  const std::vector<int> shown = lines_drawn_heads(app, NH);
  const float s = ui_scale();
  const float font = ImGui::GetFontSize();

  // Column titles, outside the scrolling area so they stay in view.
  ImGui::Spacing();
  const float header_h = ImGui::GetTextLineHeightWithSpacing() + font * 0.2f;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  LinesLayout lay = layout_lines(t, ImVec2(avail.x, avail.y - header_h), 0);
  if (lay.side_w <= 0) {
    // No room for the focus panel beside the diagram: its hint goes above instead.
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", tr(L, Str::ln_hint));
    ImGui::PopTextWrapPos();
    avail = ImGui::GetContentRegionAvail();
    lay = layout_lines(t, ImVec2(avail.x, avail.y - header_h), 0);
  }
  {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const char* qt = tr(L, Str::ln_queries);
    dl->AddText(ImVec2(lay.q_right() - font * 0.5f - ImGui::CalcTextSize(qt).x, p.y), dim, qt);
    dl->AddText(ImVec2(lay.k_left() + font * 0.5f, p.y), dim, tr(L, Str::ln_keys));
    if (const int query = app_shown_query(app); query >= 0 && query < Tq) {
      const char* clear = tr(L, Str::ln_clear_query);
      const float bw = ImGui::CalcTextSize(clear).x + ImGui::GetStyle().FramePadding.x * 2;
      ImGui::SetCursorScreenPos(ImVec2(lay.q_right() + (lay.lines_w - bw) * 0.5f, p.y - ImGui::GetStyle().FramePadding.y));
      if (ImGui::SmallButton(clear)) app_set_shown_query(app, -1);
    }
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + header_h));
  }
  const ImVec2 header_pos(lay.q_right(), ImGui::GetCursorScreenPos().y - header_h);

  const float diagram_w = avail.x - lay.side_w - (lay.side_w > 0 ? ImGui::GetStyle().ItemSpacing.x : 0.0f);
  Focus focus;
  int lines_total = 0, lines_drawn = 0;
  ImGui::BeginChild("lines_diagram", ImVec2(diagram_w, 0), false);
  {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();  // moves with the scroll position
    lay.q_top += origin.y;
    lay.k_top += origin.y;
    const float pad_x = font * 0.25f;
    auto q_y = [&](int q) { return lay.q_top + (static_cast<float>(q) + 0.5f) * lay.row_h; };
    auto k_y = [&](int k) { return lay.k_top + (static_cast<float>(k) + 0.5f) * lay.row_h; };

    // Hit-testing: one button per column; the mouse's row picks the token.
    const float mouse_y = ImGui::GetIO().MousePos.y;
    ImGui::SetCursorScreenPos(ImVec2(lay.x0, lay.q_top));
    if (ImGui::InvisibleButton("queries", ImVec2(lay.q_w, lay.row_h * static_cast<float>(Tq)))) {
      const int q = static_cast<int>((mouse_y - lay.q_top) / lay.row_h);
      if (q >= 0 && q < Tq) app_set_shown_query(app, app_shown_query(app) == q ? -1 : q);
    }
    if (ImGui::IsItemHovered()) focus.query = std::clamp(static_cast<int>((mouse_y - lay.q_top) / lay.row_h), 0, Tq - 1);
    ImGui::SetCursorScreenPos(ImVec2(lay.k_left(), lay.k_top));
    ImGui::InvisibleButton("keys", ImVec2(lay.k_w, lay.row_h * static_cast<float>(Tk)));
    if (ImGui::IsItemHovered()) focus.key = std::clamp(static_cast<int>((mouse_y - lay.k_top) / lay.row_h), 0, Tk - 1);
    focus.hovered = focus.query >= 0 || focus.key >= 0;
    if (const int query = app_shown_query(app); !focus.hovered && query >= 0 && query < Tq) focus.query = query;

    // Lines, under the labels. Several heads on one pair are fanned out a little so each colour
    // stays visible; only lines with an end in view are drawn.
    const float view0 = ImGui::GetWindowPos().y, view1 = view0 + ImGui::GetWindowHeight();
    const bool focused = focus.query >= 0 || focus.key >= 0;
    const float thick = (focused ? 2.5f : 2.0f) * s;
    // Opacity is the weight. With one token in focus there are few lines, and a floor keeps the
    // weak ones of a long, evenly spread row traceable (their numbers are in the focus panel).
    const float floor_alpha = focused ? 0.1f : 0.0f;
    const int n_shown = static_cast<int>(shown.size());
    const float fan = n_shown > 1 ? std::min(2.0f * s, lay.row_h * 0.5f / static_cast<float>(n_shown - 1)) : 0.0f;
    const float xa = lay.q_right() + pad_x, xb = lay.k_left() - pad_x;
    const int q_begin = focus.query >= 0 ? focus.query : 0, q_end = focus.query >= 0 ? focus.query + 1 : Tq;
    const int k_begin = focus.key >= 0 ? focus.key : 0, k_end = focus.key >= 0 ? focus.key + 1 : Tk;
    struct Segment {
      float w;
      int q, k, rank;
    };
    std::vector<Segment> segs;
    for (int q = q_begin; q < q_end; ++q) {
      const float ya = q_y(q);
      for (int k = k_begin; k < k_end; ++k) {
        const float yb = k_y(k);
        if ((ya < view0 && yb < view0) || (ya > view1 && yb > view1)) continue;
        for (int r = 0; r < n_shown; ++r) {
          const float w = shown_value(app, app.layer, shown[static_cast<size_t>(r)], q, k);
          if (w >= kLinesMinWeight) segs.push_back({w, q, k, r});
        }
      }
    }
    // Every line of a long text is tens of thousands of nearly transparent strokes: slow to
    // rasterize (seconds per frame on a software renderer) and no more readable. Keep the
    // strongest ones and say so.
    lines_total = static_cast<int>(segs.size());
    if (!focused && lines_total > kLinesBudget) {
      std::nth_element(segs.begin(), segs.begin() + kLinesBudget, segs.end(),
                       [](const Segment& a, const Segment& b) { return a.w > b.w; });
      segs.resize(kLinesBudget);
    }
    lines_drawn = static_cast<int>(segs.size());
    // Weak first, so the strong lines lie on top.
    std::sort(segs.begin(), segs.end(), [](const Segment& a, const Segment& b) { return a.w < b.w; });
    for (const Segment& g : segs) {
      const int h = shown[static_cast<size_t>(g.rank)];
      const float dy = (static_cast<float>(g.rank) - 0.5f * static_cast<float>(n_shown - 1)) * fan;
      // The first token set aside: its lines grey, the rest of each row renormalised (app_head_map).
      const ImU32 col = app_first_aside(app) && g.k == 0 ? with_alpha(kFirstAsideGrey, std::max(g.w, floor_alpha))
                                                         : line_color(app, h, std::max(g.w, floor_alpha));
      dl->AddLine(ImVec2(xa, q_y(g.q) + dy), ImVec2(xb, k_y(g.k) + dy), col, thick);
    }

    // Labels; the focused token's partners get a box as strong as their mean weight.
    const float box_h = std::min(lay.row_h - 2.0f, ImGui::GetTextLineHeight() + font * 0.3f);
    for (int q = 0; q < Tq; ++q) {
      const float y = q_y(q);
      if (y + lay.row_h < view0 || y - lay.row_h > view1) continue;
      const float share = focus.key >= 0 ? mean_weight(app, app.layer, shown, q, focus.key) : 0.0f;
      token_label(dl, t.queries[static_cast<size_t>(q)], ImVec2(lay.x0, y - box_h * 0.5f), ImVec2(lay.q_right(), y + box_h * 0.5f),
                  true, share, q == app_shown_query(app), focus.hovered && q == focus.query);
    }
    for (int k = 0; k < Tk; ++k) {
      const float y = k_y(k);
      if (y + lay.row_h < view0 || y - lay.row_h > view1) continue;
      const float share = focus.query >= 0 ? mean_weight(app, app.layer, shown, focus.query, k) : 0.0f;
      token_label(dl, t.keys[static_cast<size_t>(k)], ImVec2(lay.k_left(), y - box_h * 0.5f),
                  ImVec2(lay.k_left() + lay.k_w, y + box_h * 0.5f), false, share, false, focus.hovered && k == focus.key);
    }
    if (shown.empty()) {
      const char* msg = tr(L, Str::ln_all_hidden);
      const float wrap = std::min(lay.lines_w - font, font * 14.0f);
      const ImVec2 ts = ImGui::CalcTextSize(msg, nullptr, false, wrap);
      const float mid_y = std::max(view0 + ts.y, std::min((lay.q_top + q_y(Tq - 1)) * 0.5f, view1 - ts.y));
      const ImVec2 c(lay.q_right() + lay.lines_w * 0.5f, mid_y);
      ImGui::SetCursorScreenPos(ImVec2(c.x - ts.x * 0.5f, c.y - ts.y * 0.5f));
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
      ImGui::TextDisabled("%s", msg);
      ImGui::PopTextWrapPos();
    }
    ImGui::SetCursorScreenPos(origin);
    const int rows = std::max(Tq, Tk);
    ImGui::Dummy(ImVec2(1, lay.row_h * static_cast<float>(rows) + font * 0.5f));
  }
  ImGui::EndChild();
  if (lines_drawn < lines_total) {
    const std::string note = tr_format(L, Str::ln_budget, lines_drawn, lines_total);
    const float tw = ImGui::CalcTextSize(note.c_str()).x;
    ImGui::GetWindowDrawList()->AddText(ImVec2(header_pos.x + (lay.lines_w - tw) * 0.5f, header_pos.y),
                                        ImGui::GetColorU32(ImGuiCol_TextDisabled), note.c_str());
  }

  if (lay.side_w > 0) {
    ImGui::SameLine();
    ImGui::BeginChild("lines_focus", ImVec2(0, 0), false);
    focus_panel(app, t, shown, focus);
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace attnviz
