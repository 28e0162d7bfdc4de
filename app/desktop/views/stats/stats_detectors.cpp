// Cells are drawn as rectangles rather than textures: five grids of at most a few hundred cells
// cost nothing, and drawing them directly lets undefined cells be hatched. The reports themselves
// are built once per trace (core/detector_report) and only read here.
#include "shell/fonts.h"
#include "views/stats/stats_detectors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string>

#include <imgui.h>

#include "render/heatmap.h"
#include "shell/shell.h"
#include "widgets/draw.h"

namespace attnviz {

namespace {

constexpr int kDetectors = static_cast<int>(std::size(kAllDetectors));

Str name_str(Detector d) {
  switch (d) {
    case Detector::previous_token: return Str::dt_name_previous;
    case Detector::first_token: return Str::dt_name_first;
    case Detector::duplicate_token: return Str::dt_name_duplicate;
    case Detector::induction: return Str::dt_name_induction;
    case Detector::coreference: return Str::dt_name_coref;
  }
  return Str::dt_name_previous;
}

Str definition_str(Detector d) {
  switch (d) {
    case Detector::previous_token: return Str::dt_def_previous;
    case Detector::first_token: return Str::dt_def_first;
    case Detector::duplicate_token: return Str::dt_def_duplicate;
    case Detector::induction: return Str::dt_def_induction;
    case Detector::coreference: return Str::dt_def_coref;
  }
  return Str::dt_def_previous;
}

Str gap_str(DetectorGap g) {
  switch (g) {
    case DetectorGap::cross_attention: return Str::dt_why_cross;
    case DetectorGap::too_short: return Str::dt_why_short;
    case DetectorGap::no_repeat: return Str::dt_why_no_repeat;
    case DetectorGap::no_spaced_repeat: return Str::dt_why_no_spaced_repeat;
    case DetectorGap::no_referent: return Str::dt_why_coref;
    case DetectorGap::masked:
    case DetectorGap::none: break;
  }
  return Str::dt_why_masked;
}


std::string token_text(const Trace& t, int i) {
  return i >= 0 && i < t.n_queries() ? t.queries[static_cast<size_t>(i)].text : std::string("?");
}

// The line under a grid's title: the strongest head, the coreference target, or "not defined".
std::string caption_of(const AppState& app, const Trace& t, Detector d, const DetectorReport& r) {
  const Lang L = app.lang;
  if (r.best_layer < 0) return tr(L, Str::dt_not_defined);
  const CorefTarget& c = app.stats.cache.detectors.coref;
  if (d == Detector::coreference)
    return tr_format(L, Str::dt_coref_short, token_text(t, c.pronoun).c_str(), token_text(t, c.referent).c_str());
  return tr_format(L, Str::dt_best, static_cast<double>(r.best_score), r.best_layer + 1, r.best_head + 1);
}

// What a grid is averaged over, or why it is empty (for the tooltips).
void tooltip_context(const AppState& app, const Trace& t, Detector d, const DetectorReport& r) {
  const Lang L = app.lang;
  if (r.gap != DetectorGap::none) {
    ImGui::TextColored(ImVec4(1.0f, 0.65f, 0.3f, 1.0f), "%s", tr(L, gap_str(r.gap)));
    return;
  }
  const CorefTarget& c = app.stats.cache.detectors.coref;
  const std::string text =
      d == Detector::coreference
          ? tr_format(L, Str::dt_coref_target, token_text(t, c.pronoun).c_str(), c.pronoun,
                      token_text(t, c.referent).c_str(), c.referent, token_text(t, c.property).c_str())
          : tr_format(L, Str::dt_mean_over, r.queries);
  ImGui::TextUnformatted(text.c_str());
}

void definition_block(const AppState& app, Detector d) {
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
  ImGui::TextUnformatted(tr(app.lang, definition_str(d)));
  ImGui::PopTextWrapPos();
}

void title_tooltip(const AppState& app, const Trace& t, Detector d, const DetectorReport& r) {
  ImGui::BeginTooltip();
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", tr(app.lang, name_str(d)));
  definition_block(app, d);
  ImGui::Separator();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
  tooltip_context(app, t, d, r);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void cell_tooltip(const AppState& app, const Trace& t, Detector d, const DetectorReport& r, int layer, int head) {
  const Lang L = app.lang;
  const DetectorScore& s = r.grid.by_layer_head[static_cast<size_t>(layer)][static_cast<size_t>(head)];
  ImGui::BeginTooltip();
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", tr(L, name_str(d)));
  ImGui::Text("%s %d · %s %d", tr(L, Str::layer), layer + 1, tr(L, Str::head), head + 1);
  if (s.defined) {
    ImGui::Text("%s: %.4f", tr(L, Str::dt_score), static_cast<double>(s.score));
  } else {
    ImGui::Text("%s: %s", tr(L, Str::dt_score), tr(L, Str::dt_not_defined));
  }
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
  tooltip_context(app, t, d, r);
  ImGui::Separator();
  ImGui::TextUnformatted(tr(L, definition_str(d)));
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  ImGui::TextDisabled("%s", tr(L, Str::dt_click_hint));
  if (!app.trace || !app.trace->weights_only)  // an attention file's heads cannot be switched off
    ImGui::TextDisabled("%s", tr(L, app.ablation.has(layer, head) ? Str::mv_right_click_on : Str::mv_right_click_off));
  ImGui::EndTooltip();
}

// Diagonal stripes clipped to [a, b]: "nothing to measure here", distinct from a score of 0.
void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b, float spacing, ImU32 color, float thickness) {
  dl->PushClipRect(a, b, true);
  const float h = b.y - a.y;
  const float start = a.x - h - std::fmod(a.x + a.y, spacing);  // stripes line up across cells
  for (float x = start; x < b.x; x += spacing) dl->AddLine(ImVec2(x, b.y), ImVec2(x + h, a.y), color, thickness);
  dl->PopClipRect();
}

ImU32 undefined_fill() { return ImGui::GetColorU32(ImGuiCol_FrameBg); }
ImU32 undefined_stripe() { return ImGui::GetColorU32(ImGuiCol_TextDisabled, 0.55f); }

// --- layout --------------------------------------------------------------------------------

struct Layout {
  int layers = 0, heads = 0;
  float cell = 8;
  float row_label_w = 0, col_label_h = 0, title_h = 0, header_h = 0;
  float gap_x = 0, gap_y = 0;
  int per_row = kDetectors, rows = 1;
  std::array<float, kDetectors> text_w{};  // the widest of a grid's title and caption
  float content_w = 0, content_h = 0;

  // Grids in a row share their rows (layers), so only the first of each row is labelled.
  static bool labelled(int i, int per_row) { return i % per_row == 0; }
  float grid_w(bool labels) const { return (labels ? row_label_w : 0.0f) + cell * static_cast<float>(heads); }
  float block_w(int i, int per) const { return std::max(grid_w(labelled(i, per)), text_w[static_cast<size_t>(i)]); }
  float block_h() const { return header_h + cell * static_cast<float>(layers); }
};

// Widest row of blocks for per_row blocks per row.
float rows_width(const Layout& g, int per_row) {
  float widest = 0;
  for (int first = 0; first < kDetectors; first += per_row) {
    float w = 0;
    for (int i = first; i < std::min(kDetectors, first + per_row); ++i) w += g.block_w(i, per_row) + (i > first ? g.gap_x : 0.0f);
    widest = std::max(widest, w);
  }
  return widest;
}

void layout_fix(Layout& g, int per_row) {
  g.per_row = per_row;
  g.rows = (kDetectors + per_row - 1) / per_row;
  g.content_w = rows_width(g, per_row);
  g.content_h = static_cast<float>(g.rows) * g.block_h() + static_cast<float>(g.rows - 1) * g.gap_y;
}

// As many grids per row as fit avail_w at g.cell, the rows balanced (3 + 2, not 4 + 1); 0: none fit.
int per_row_fitting(const Layout& g, float avail_w) {
  for (int rows = 1; rows <= kDetectors; ++rows) {
    const int per_row = (kDetectors + rows - 1) / rows;
    if (rows_width(g, per_row) <= avail_w) return per_row;
  }
  return 0;
}

// The largest cell (and fewest rows of grids for it) that fits avail_w x max_h.
Layout layout_solve(const AppState& app, const Trace& t, float avail_w, float max_h) {
  const StatsCache& c = app.stats.cache;
  Layout g;
  const float font = ImGui::GetFontSize();
  g.layers = std::max(1, static_cast<int>(t.layers.size()));
  g.heads = std::max(1, t.config.n_heads);
  g.row_label_w = ImGui::CalcTextSize(("L" + std::to_string(g.layers)).c_str()).x + font * 0.4f;
  g.col_label_h = ImGui::GetTextLineHeight() + 2;
  g.title_h = ImGui::GetTextLineHeightWithSpacing();
  g.header_h = 2 * g.title_h + g.col_label_h;
  g.gap_x = font * 1.6f;
  g.gap_y = font * 0.9f;
  for (int i = 0; i < kDetectors; ++i) {
    const Detector d = kAllDetectors[i];
    const DetectorReport& r = c.detectors.reports[static_cast<size_t>(i)];
    g.text_w[static_cast<size_t>(i)] = std::max(ImGui::CalcTextSize(tr(app.lang, name_str(d))).x,
                                                ImGui::CalcTextSize(caption_of(app, t, d, r).c_str()).x);
  }
  const float max_cell = std::floor(font * 3.0f);
  const float min_cell = std::max(5.0f, std::floor(font * 0.4f));
  for (float cell = max_cell; cell >= min_cell; cell -= 1.0f) {
    g.cell = cell;
    const int per_row = per_row_fitting(g, avail_w);
    if (per_row == 0) continue;
    layout_fix(g, per_row);
    if (g.content_h > max_h) continue;
    // A slightly smaller cell that saves a row of grids leaves the table more room: take it.
    Layout fewer = g;
    for (float smaller = cell - 1.0f; smaller >= std::max(min_cell, cell * 0.85f); smaller -= 1.0f) {
      fewer.cell = smaller;
      const int more_per_row = per_row_fitting(fewer, avail_w);
      if (more_per_row > 0 && (kDetectors + more_per_row - 1) / more_per_row < g.rows) {
        layout_fix(fewer, more_per_row);
        return fewer;
      }
    }
    return g;
  }
  // Nothing fits: each row of grids as tall as the band allows (cells no smaller than the
  // minimum), and the band scrolls from one row of grids to the next.
  g.cell = std::clamp(std::floor((max_h - g.header_h) / static_cast<float>(g.layers)), min_cell, max_cell);
  while (g.cell > min_cell && per_row_fitting(g, avail_w) == 0) g.cell -= 1.0f;
  layout_fix(g, std::max(1, per_row_fitting(g, avail_w)));
  return g;
}

// --- drawing -------------------------------------------------------------------------------

void legend_inline(const AppState& app) {
  const Lang L = app.lang;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const float bar_w = ImGui::GetFontSize() * 6, bar_h = line * 0.6f, swatch = line * 0.9f;
  const float gap = ImGui::GetStyle().ItemInnerSpacing.x;
  const float total = ImGui::CalcTextSize("0").x + gap + bar_w + gap + ImGui::CalcTextSize("1").x + gap * 4 + swatch + gap +
                      ImGui::CalcTextSize(tr(L, Str::dt_not_defined)).x;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - total));
  ImGui::TextDisabled("0");
  ImGui::SameLine(0, gap);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float y0 = p.y + (line - bar_h) * 0.5f;
  constexpr int kSteps = 32;  // enough quads that the ramp looks continuous
  for (int i = 0; i < kSteps; ++i) {
    const Rgba a = colormap_sample(app.cmap, static_cast<float>(i) / kSteps);
    const Rgba b = colormap_sample(app.cmap, static_cast<float>(i + 1) / kSteps);
    const float x0 = p.x + bar_w * i / kSteps, x1 = p.x + bar_w * (i + 1) / kSteps;
    dl->AddRectFilledMultiColor(ImVec2(x0, y0), ImVec2(x1, y0 + bar_h), IM_COL32(a.r, a.g, a.b, 255), IM_COL32(b.r, b.g, b.b, 255),
                                IM_COL32(b.r, b.g, b.b, 255), IM_COL32(a.r, a.g, a.b, 255));
  }
  dl->AddRect(ImVec2(p.x, y0), ImVec2(p.x + bar_w, y0 + bar_h), ImGui::GetColorU32(ImGuiCol_Border));
  ImGui::Dummy(ImVec2(bar_w, line));
  ImGui::SameLine(0, gap);
  ImGui::TextDisabled("1");
  ImGui::SameLine(0, gap * 4);
  const ImVec2 s = ImGui::GetCursorScreenPos();
  const ImVec2 s0(s.x, s.y + (line - swatch) * 0.5f), s1(s0.x + swatch, s0.y + swatch);
  dl->AddRectFilled(s0, s1, undefined_fill());
  hatch(dl, s0, s1, std::max(4.0f, swatch / 3), undefined_stripe(), ui_scale());
  ImGui::Dummy(ImVec2(swatch, line));
  ImGui::SameLine(0, gap);
  ImGui::TextDisabled("%s", tr(L, Str::dt_not_defined));
}

void select_head(AppState& app, int layer, int head, bool open) {
  app.layer = layer;
  app.head = head;
  if (open) {
    app.heads.zoom_head = head;
    app.view = View::heads;
  }
}

// One detector's block at `o`: title, caption, head numbers, layer numbers (first grid of a row) and cells.
void draw_grid(AppState& app, const Trace& t, int index, const Layout& g, ImVec2 o) {
  const Detector d = kAllDetectors[index];
  const DetectorReport& r = app.stats.cache.detectors.reports[static_cast<size_t>(index)];
  const Lang L = app.lang;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::PushID(index);

  ImGui::SetCursorScreenPos(o);
  ImGui::TextUnformatted(tr(L, name_str(d)));
  if (ImGui::IsItemHovered()) title_tooltip(app, t, d, r);
  ImGui::SetCursorScreenPos(ImVec2(o.x, o.y + g.title_h));
  const std::string caption = caption_of(app, t, d, r);
  ImGui::TextDisabled("%s", caption.c_str());
  if (ImGui::IsItemHovered()) title_tooltip(app, t, d, r);

  const bool row_labels = Layout::labelled(index, g.per_row);
  const ImVec2 p0(o.x + (row_labels ? g.row_label_w : 0.0f), o.y + g.header_h);
  const float cell = g.cell;
  const float line = ImGui::GetTextLineHeight();
  const ImU32 label_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 label_sel = ImGui::GetColorU32(ImGuiCol_Text);

  // Head numbers above the columns ("H3" when it fits, else "3", else every k-th).
  const float h_wide = ImGui::CalcTextSize(("H" + std::to_string(g.heads)).c_str()).x;
  const float n_wide = ImGui::CalcTextSize(std::to_string(g.heads).c_str()).x;
  const bool h_prefix = h_wide + 4 <= cell;
  const int col_step = h_prefix || n_wide + 4 <= cell ? 1 : static_cast<int>(std::ceil((n_wide + 6) / cell));
  for (int h = 0; h < g.heads; h += col_step) {
    const std::string s = (h_prefix ? "H" : "") + std::to_string(h + 1);
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    dl->AddText(ImVec2(p0.x + cell * (h + 0.5f) - w * 0.5f, p0.y - g.col_label_h), h == app.head ? label_sel : label_col, s.c_str());
  }
  // Layer numbers left of the rows.
  const int row_step = cell >= line * 0.85f ? 1 : static_cast<int>(std::ceil(line * 0.85f / cell));
  for (int l = 0; row_labels && l < g.layers; l += row_step) {
    const std::string s = "L" + std::to_string(l + 1);
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    dl->AddText(ImVec2(p0.x - w - ImGui::GetFontSize() * 0.25f, p0.y + cell * (l + 0.5f) - line * 0.5f),
                l == app.layer ? label_sel : label_col, s.c_str());
  }

  // Cells, with a 1 px seam between them once they are large enough to afford it.
  const float seam = cell >= 10 ? 1.0f : 0.0f;
  const float stripe = std::max(4.0f, std::min(cell * 0.45f, line * 0.45f));
  for (int l = 0; l < g.layers && l < static_cast<int>(r.grid.by_layer_head.size()); ++l) {
    const auto& row = r.grid.by_layer_head[static_cast<size_t>(l)];
    for (int h = 0; h < g.heads && h < static_cast<int>(row.size()); ++h) {
      const DetectorScore& s = row[static_cast<size_t>(h)];
      const ImVec2 c0(p0.x + cell * h, p0.y + cell * l), c1(c0.x + cell - seam, c0.y + cell - seam);
      if (!s.defined) {
        dl->AddRectFilled(c0, c1, undefined_fill());
        hatch(dl, c0, c1, stripe, undefined_stripe(), ui_scale());
        continue;
      }
      const Rgba rgb = colormap_sample(app.cmap, s.score);
      const ImU32 bg = IM_COL32(rgb.r, rgb.g, rgb.b, 255);
      dl->AddRectFilled(c0, c1, bg);
      const bool off = app.ablation.has(l, h);
      if (off) draw_hatch(dl, c0, c1, std::max(6.0f, cell / 3));  // switched off
      // Two decimals when they fit, else the short form (".95"), else colour alone.
      std::string text = heatmap_value_text(s.score, false);
      if (ImGui::CalcTextSize(text.c_str()).x + 4 > cell) text = heatmap_value_text(s.score, true);
      const ImVec2 sz = ImGui::CalcTextSize(text.c_str());
      if (app.annotate && sz.x + 4 <= cell && sz.y <= cell) {
        const ImVec2 at(c0.x + (cell - seam - sz.x) * 0.5f, c0.y + (cell - seam - sz.y) * 0.5f);
        draw_cell_text(dl, at, bg, off, text.c_str());
      }
    }
  }
  const ImVec2 p1(p0.x + cell * g.heads, p0.y + cell * g.layers);
  dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x, p1.y), ImGui::GetColorU32(ImGuiCol_Border));

  // The chosen head, in every grid, so the five scores of one head are easy to compare.
  const float thick = 2.0f * ui_scale();
  if (app.layer >= 0 && app.layer < g.layers && app.head >= 0 && app.head < g.heads) {
    const ImVec2 a(p0.x + cell * app.head, p0.y + cell * app.layer);
    dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(a.x + cell, a.y + cell), IM_COL32(255, 160, 30, 255), 0, 0, thick);
  }

  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("cells", ImVec2(std::max(p1.x - p0.x, 1.0f), std::max(p1.y - p0.y, 1.0f)));
  const ImVec2 m = ImGui::GetIO().MousePos;
  const int l = std::clamp(static_cast<int>((m.y - p0.y) / cell), 0, g.layers - 1);
  const int h = std::clamp(static_cast<int>((m.x - p0.x) / cell), 0, g.heads - 1);
  const bool in_grid = l < static_cast<int>(r.grid.by_layer_head.size()) &&
                       h < static_cast<int>(r.grid.by_layer_head[static_cast<size_t>(l)].size());
  if (ImGui::IsItemHovered() && in_grid) {
    dl->AddRect(ImVec2(p0.x + cell * h - 1, p0.y + cell * l - 1), ImVec2(p0.x + cell * (h + 1), p0.y + cell * (l + 1)),
                IM_COL32(255, 255, 255, 230), 0, 0, thick * 0.75f);
    cell_tooltip(app, t, d, r, l, h);
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) select_head(app, l, h, true);
    else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) select_head(app, l, h, false);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) app_toggle_head(app, l, h);  // switch the head off / on
  }
  ImGui::PopID();
}

}  // namespace

void stats_detectors_section(AppState& app, const Trace& t, float max_height) {
  const Lang L = app.lang;
  const StatsCache& c = app.stats.cache;
  if (static_cast<int>(c.detectors.reports.size()) != kDetectors) return;
  const bool sandbox = app.source == ModelSource::sandbox;

  // Title line: the section's name and a (?) that explain the grids; on the right the colour
  // legend and the "not defined" mark.
  const float top = ImGui::GetCursorPosY();
  ImGui::Spacing();
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", tr(L, Str::dt_section));
  bool help = ImGui::IsItemHovered();
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  help = help || ImGui::IsItemHovered();
  if (help) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ImGui::TextUnformatted(tr(L, Str::dt_hint));
    if (sandbox) ImGui::TextUnformatted(tr(L, Str::dt_random_note));
    ImGui::PopTextWrapPos();
    ImGui::TextDisabled("%.1f ms", c.detectors_ms);
    ImGui::EndTooltip();
  }
  legend_inline(app);
  ImGui::Separator();

  // The hint stays on screen while the grids fit beside it at full size; otherwise the grids get
  // its room and the hint lives only in the (?) tooltip (presentation mode, short windows).
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const float wrap = std::max(avail_w, 1.0f);
  float hint_h = ImGui::CalcTextSize(tr(L, Str::dt_hint), nullptr, false, wrap).y + spacing;
  if (sandbox) hint_h += ImGui::CalcTextSize(tr(L, Str::dt_random_note), nullptr, false, wrap).y + spacing;
  const float used = ImGui::GetCursorPosY() - top + spacing;
  const float band_with_hint = max_height - used - hint_h;
  Layout g = layout_solve(app, t, avail_w, band_with_hint);
  const bool show_hint = g.content_h <= band_with_hint;
  const float band_max = std::max(show_hint ? band_with_hint : max_height - used, ImGui::GetFontSize() * 6);
  if (show_hint) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped(tr(L, Str::dt_hint));
    if (sandbox) text_wrapped(tr(L, Str::dt_random_note));
    ImGui::PopStyleColor();
  } else {
    g = layout_solve(app, t, avail_w, band_max);
  }
  const bool scroll = g.content_h > band_max;
  if (scroll) g = layout_solve(app, t, avail_w - ImGui::GetStyle().ScrollbarSize, band_max);
  const float band_h = std::min(g.content_h, band_max);
  ImGui::BeginChild("##detectors", ImVec2(0, band_h), false, scroll ? 0 : ImGuiWindowFlags_NoScrollbar);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  for (int i = 0; i < kDetectors; ++i) {
    const int row = i / g.per_row;
    float x = origin.x;
    for (int j = row * g.per_row; j < i; ++j) x += g.block_w(j, g.per_row) + g.gap_x;
    draw_grid(app, t, i, g, ImVec2(x, origin.y + static_cast<float>(row) * (g.block_h() + g.gap_y)));
  }
  ImGui::SetCursorScreenPos(origin);
  ImGui::Dummy(ImVec2(g.content_w, g.content_h));
  ImGui::EndChild();
}

}  // namespace attnviz
