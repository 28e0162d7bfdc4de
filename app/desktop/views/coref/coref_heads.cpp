// The middle of the Coreference view: for every layer × head, a box with the pronoun's attention
// to each candidate (and the property word) as bars, the heads that resolve "it" outlined, and a
// legend. Clicking a box picks the head the minimal pair shows; double-clicking opens it in Heads.
// Reads the CorefSide cache only.
#include <algorithm>
#include <cstdio>
#include <string>

#include <imgui.h>

#include "shell/fonts.h"
#include "views/coref/coref_parts.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

// A colour swatch and its meaning, on the current line.
void swatch(ImU32 color, const char* text, bool thin = false, bool outline = false) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float sh = thin ? h * 0.25f : h * 0.6f, y = p.y + (h - sh) * 0.5f;
  if (outline) {
    dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h, p.y + h * 0.85f), kCorefColResolvesBg);
    dl->AddRect(ImVec2(p.x, p.y + h * 0.15f), ImVec2(p.x + h, p.y + h * 0.85f), color, 0, 0, 2.0f);
  } else {
    dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + h, y + sh), color);
  }
  ImGui::Dummy(ImVec2(h, h));
  ImGui::SameLine(0, h * 0.3f);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
}

void head_tooltip(const AppState& app, const CorefSide& a, const CorefHeadScore& s, bool shown) {
  const CorefExample& e = a.example;
  const char* it = coref_token_text(e, e.pronoun);
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(coref_head_name(app, s.layer, s.head).c_str());
  if (shown) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", tr(app.lang, Str::co_shown));
  }
  ImGui::Separator();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kCorefColA), "%s → %s: %.4f", it, coref_token_text(e, e.candidate_a),
                     static_cast<double>(s.to_a));
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kCorefColB), "%s → %s: %.4f", it, coref_token_text(e, e.candidate_b),
                     static_cast<double>(s.to_b));
  if (e.property >= 0)
    ImGui::Text("%s → %s: %.4f", it, coref_token_text(e, e.property), static_cast<double>(s.to_property));
  const float rest = std::max(0.0f, 1.0f - s.to_a - s.to_b - s.to_property);
  ImGui::TextDisabled("%s: %.4f", tr(app.lang, Str::co_rest), static_cast<double>(rest));
  if (s.resolves) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kCorefColResolves), "%s", tr(app.lang, Str::co_legend_resolves));
  ImGui::TextDisabled("%s", tr(app.lang, Str::co_heads_hint));
  ImGui::TextDisabled("%s", tr(app.lang, app.ablation.has(s.layer, s.head) ? Str::mv_right_click_on : Str::mv_right_click_off));
  ImGui::EndTooltip();
}

struct BoxLayout {
  int per_row = 1;         // boxes per row within one layer
  int layers_per_row = 1;  // whole layers side by side (small models)
  int rows_per_layer = 1;
  float label_w = 0, box_w = 0, box_h = 0, value_w = 0, pad = 0, gap = 0, vgap = 0;
  float group_w = 0, group_h = 0, group_gap = 0;  // one layer's block
  bool compact = false;                           // narrow boxes titled by the head number only
};

// Boxes as wide as the row allows; whole layers side by side when they fit, and compact boxes when
// a layer's heads would otherwise wrap onto a second row.
BoxLayout box_layout(const AppState& app, int n_heads, int n_layers, bool compact = false) {
  BoxLayout b;
  const float font = ImGui::GetFontSize();
  b.compact = compact;
  b.pad = font * (compact ? 0.2f : 0.3f);
  b.gap = ImGui::GetStyle().ItemSpacing.x * (compact ? 0.5f : 1.0f);
  b.vgap = ImGui::GetStyle().ItemSpacing.y + 2 * ui_scale();
  b.group_gap = font * 1.5f;
  b.value_w = ImGui::CalcTextSize("0.00").x;
  b.label_w = ImGui::CalcTextSize((std::string(tr(app.lang, Str::layer)) + " " + std::to_string(n_layers)).c_str()).x + b.gap;
  const float avail = ImGui::GetContentRegionAvail().x - 4;  // room for the selected box's outline
  const float min_w = b.value_w + font * (compact ? 1.2f : 2.0f) + b.pad * 2;
  const float layer_min = b.label_w + static_cast<float>(n_heads) * (min_w + b.gap) - b.gap;
  b.layers_per_row = std::clamp(static_cast<int>((avail + b.group_gap) / (layer_min + b.group_gap)), 1, n_layers);
  const float inner = (avail + b.group_gap) / static_cast<float>(b.layers_per_row) - b.group_gap - b.label_w;
  b.per_row = std::clamp(static_cast<int>((inner + b.gap) / (min_w + b.gap)), 1, n_heads);
  b.box_w = std::min((inner + b.gap) / static_cast<float>(b.per_row) - b.gap, font * 16.0f);
  b.box_h = ImGui::GetTextLineHeight() * 3.4f + b.pad * 2;
  b.rows_per_layer = (n_heads + b.per_row - 1) / b.per_row;
  b.group_w = b.label_w + static_cast<float>(b.per_row) * (b.box_w + b.gap) - b.gap;
  b.group_h = static_cast<float>(b.rows_per_layer) * (b.box_h + b.vgap) - b.vgap;
  if (!compact && b.per_row < n_heads) return box_layout(app, n_heads, n_layers, true);
  return b;
}

// One head's box: title, a bar per candidate with its value, a thin bar for the property word.
void head_box(AppState& app, const CorefSide& a, const CorefHeadScore& s, const BoxLayout& b, ImVec2 p, bool selected) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight(), thick = ui_scale();
  const ImVec2 p1(p.x + b.box_w, p.y + b.box_h);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 bg = s.resolves ? kCorefColResolvesBg : ImGui::GetColorU32(ImGuiCol_FrameBg);
  dl->AddRectFilled(p, p1, bg, 3.0f);
  // Switched off: the box is hatched under what it shows, so that its title and values stay legible
  // (its bars, what the head reads, are drawn over the hatching; what it passes on is gone).
  const bool off = app.ablation.has(s.layer, s.head);
  if (off) draw_hatch(dl, p, p1, line * 0.8f);
  const auto label = [&](ImVec2 at, ImU32 colour, const char* str) {
    if (off)
      draw_text_haloed(dl, at, colour, hatch_shade(bg), str);
    else
      dl->AddText(at, colour, str);
  };
  if (s.resolves) dl->AddRect(p, p1, kCorefColResolves, 3.0f, 0, 2.0f * thick);
  else if (s.reads_property) dl->AddRect(p, p1, kCorefColProperty, 3.0f, 0, 2.0f * thick);
  if (selected) dl->AddRect(ImVec2(p.x - 2, p.y - 2), ImVec2(p1.x + 2, p1.y + 2), text, 4.0f, 0, 2.0f * thick);
  const std::string title =
      b.compact ? std::to_string(s.head + 1) : std::string(tr(app.lang, Str::head)) + " " + std::to_string(s.head + 1);
  label(ImVec2(p.x + b.pad, p.y + b.pad), s.resolves ? kCorefColResolves : text, title.c_str());
  if (s.resolves)
    coref_draw_check(dl, ImVec2(p.x + b.pad * 2 + ImGui::CalcTextSize(title.c_str()).x, p.y + b.pad), line, kCorefColResolves,
                     2.0f * thick);
  const float bar_x = p.x + b.pad, bar_max = std::max(1.0f, b.box_w - b.pad * 3 - b.value_w);
  auto bar = [&](float y, float h, float value, ImU32 color, bool print) {
    dl->AddRectFilled(ImVec2(bar_x, y), ImVec2(bar_x + bar_max, y + h), ImGui::GetColorU32(ImGuiCol_WindowBg));
    dl->AddRectFilled(ImVec2(bar_x, y), ImVec2(bar_x + bar_max * std::clamp(value, 0.0f, 1.0f), y + h), color);
    if (!print) return;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(value));
    label(ImVec2(bar_x + bar_max + b.pad, y + (h - line) * 0.5f), text, buf);
  };
  const float y0 = p.y + b.pad + line * 1.15f;
  bar(y0 + line * 0.1f, line * 0.8f, s.to_a, kCorefColA, true);
  bar(y0 + line * 1.1f, line * 0.8f, s.to_b, kCorefColB, true);
  if (a.example.property >= 0) bar(y0 + line * 2.0f, line * 0.22f, s.to_property, kCorefColProperty, false);

  ImGui::SetCursorScreenPos(p);
  ImGui::PushID(s.layer * 4096 + s.head);
  ImGui::InvisibleButton("head", ImVec2(b.box_w, b.box_h));
  ImGui::PopID();
  if (ImGui::IsItemHovered()) {
    head_tooltip(app, a, s, selected);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) app_toggle_head(app, s.layer, s.head);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      app.layer = s.layer;
      app.head = s.head;
      app.coref.pair_layer = s.layer;
      app.coref.pair_head = s.head;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
      app.heads.zoom_head = s.head;
      app.view = View::heads;
    }
  }
}

void heads_legend(const AppState& app, const CorefSide& a, int resolving, int heads) {
  const Lang L = app.lang;
  const CorefExample& e = a.example;
  swatch(kCorefColA, coref_token_text(e, e.candidate_a));
  ImGui::SameLine(0, ImGui::GetFontSize());
  swatch(kCorefColB, coref_token_text(e, e.candidate_b));
  if (e.property >= 0) {
    ImGui::SameLine(0, ImGui::GetFontSize());
    swatch(kCorefColProperty, tr(L, Str::co_legend_property), true);
  }
  if (e.referent < 0) {
    ImGui::TextDisabled("%s", tr(L, Str::co_legend_unknown));
    return;
  }
  swatch(kCorefColResolves, tr(L, Str::co_legend_resolves), false, true);
  if (e.property >= 0) swatch(kCorefColProperty, tr(L, Str::co_legend_reads_property), false, true);
  const std::string count = tr_format(L, Str::co_resolves_count, resolving, heads);
  ImGui::SameLine(0, ImGui::GetFontSize());
  if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(count.c_str()).x) ImGui::NewLine();
  if (resolving > 0) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kCorefColResolves), "%s", count.c_str());
  else ImGui::TextDisabled("%s", count.c_str());
}

}  // namespace

void coref_heads_grid(AppState& app, const CorefSide& a, int sel_layer, int sel_head) {
  const Lang L = app.lang;
  const Trace& t = *app.trace;
  const std::string title = tr_format(L, Str::co_heads_title, coref_token_text(a.example, a.example.pronoun));
  section_header(title.c_str());
  int resolving = 0;
  for (const CorefHeadScore& s : a.heads) resolving += s.resolves;
  heads_legend(app, a, resolving, static_cast<int>(a.heads.size()));
  ImGui::Spacing();
  const int NH = t.config.n_heads, NL = static_cast<int>(t.layers.size());
  const BoxLayout b = box_layout(app, NH, NL);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  for (int l = 0; l < NL; ++l) {
    const int col = l % b.layers_per_row, row = l / b.layers_per_row;
    const ImVec2 g(origin.x + static_cast<float>(col) * (b.group_w + b.group_gap),
                   origin.y + static_cast<float>(row) * (b.group_h + b.vgap * 2.5f));
    const std::string label = std::string(tr(L, Str::layer)) + " " + std::to_string(l + 1);
    ImGui::GetWindowDrawList()->AddText(ImVec2(g.x, g.y + b.pad), ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
    for (int h = 0; h < NH; ++h) {
      const size_t i = static_cast<size_t>(l * NH + h);
      if (i >= a.heads.size()) break;
      const ImVec2 at(g.x + b.label_w + static_cast<float>(h % b.per_row) * (b.box_w + b.gap),
                      g.y + static_cast<float>(h / b.per_row) * (b.box_h + b.vgap));
      head_box(app, a, a.heads[i], b, at, l == sel_layer && h == sel_head);
    }
  }
  const int rows = (NL + b.layers_per_row - 1) / b.layers_per_row;
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(1, static_cast<float>(rows) * (b.group_h + b.vgap * 2.5f) - b.vgap * 2.5f));
}

}  // namespace attnviz
