// Layout and figure for heatmap_grid_render / heatmap_grid_figure. One layout function computes
// every position (in 64-bit, so the size limits are checked before anything is allocated); the
// figure and heatmap_grid_cell both use it, so a test that samples a cell sees exactly what was drawn.
#include "render/heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

constexpr Rgba kBackground{255, 255, 255, 255};
constexpr Rgba kInk{24, 24, 24, 255};        // caption, titles
constexpr Rgba kLabelInk{52, 52, 52, 255};   // token labels, ticks
constexpr Rgba kFrame{150, 150, 150, 255};
constexpr Rgba kWhite{255, 255, 255, 255};
constexpr Rgba kBlack{0, 0, 0, 255};
constexpr Rgba kHighlight{255, 160, 30, 255};  // the chosen query's row
constexpr float kMinLegiblePx = 6.0f;        // below this, labels are noise: leave them out
constexpr float kMinAnnotationPx = 8.0f;    // smaller digits blur into the cell colour

// Every size in the figure at scale 1, in pixels.
struct Metrics {
  float margin = 16, caption_px = 17, caption_gap = 12, title_px = 14, title_gap = 5, label_px = 13,
        label_pad = 5, label_max = 120, gap_x = 20, gap_y = 16, tick_px = 12, legend_gap = 22,
        legend_w = 14, tick_len = 4, annotation_px = 11;
};

// One painter per text size, so each glyph is rasterised once per figure, not once per cell.
struct Painters {
  TextPainter caption, title, label, tick, annotation;
};

struct Layout {
  int64_t cell = 0, rows = 0, cols = 0;
  int64_t grid_cols = 1, grid_rows = 1;
  int64_t margin = 0, origin_x = 0, origin_y = 0;  // top-left of the first panel's slot
  int64_t row_label_w = 0, col_label_h = 0, title_h = 0, label_pad = 0;
  int64_t panel_w = 0, panel_h = 0, gap_x = 0, gap_y = 0, slot_w = 0, slot_h = 0;
  bool labels = false, legend = false;
  int64_t legend_x = 0, legend_y = 0, legend_w = 0, legend_h = 0, tick_len = 0;
  int ticks = 0;
  int64_t width = 0, height = 0;
  std::string caption;
  std::vector<std::string> row_text, col_text;  // labels after truncation
  std::vector<bool> col_stacked;                // key label written upright top-to-bottom (CJK)
  float label_px = 0, annotation_px = 0;

  int64_t grid_x(int64_t p) const { return origin_x + (p % grid_cols) * slot_w; }
  int64_t grid_y(int64_t p) const { return origin_y + (p / grid_cols) * slot_h + title_h + col_label_h; }
};

int px_of(float v) { return static_cast<int>(std::lround(v)); }

std::string describe_panel(size_t i, const HeatmapPanel& p) {
  return "panel " + std::to_string(i + 1) + (p.title.empty() ? std::string() : " ('" + p.title + "')");
}

Status spec_validate(const HeatmapGridSpec& spec) {
  if (spec.panels.empty()) return make_error("nothing to draw: the heatmap grid has no panels");
  if (spec.row_labels.empty() || spec.col_labels.empty())
    return make_error("nothing to draw: the heatmap grid has " + std::to_string(spec.row_labels.size()) +
                      " query labels and " + std::to_string(spec.col_labels.size()) + " key labels");
  for (size_t i = 0; i < spec.panels.size(); ++i) {
    const HeatmapPanel& p = spec.panels[i];
    if (!p.weights) return make_error(describe_panel(i, p) + " has no matrix");
    if (static_cast<size_t>(p.weights->rows()) != spec.row_labels.size() ||
        static_cast<size_t>(p.weights->cols()) != spec.col_labels.size())
      return make_error(describe_panel(i, p) + " is " + std::to_string(p.weights->rows()) + "x" +
                        std::to_string(p.weights->cols()) + " but there are " + std::to_string(spec.row_labels.size()) +
                        " query labels and " + std::to_string(spec.col_labels.size()) + " key labels");
  }
  if (spec.cell_px < 1 || spec.cell_px > 512)
    return make_error("cell size must be between 1 and 512 px (got " + std::to_string(spec.cell_px) + ")");
  if (!std::isfinite(spec.scale) || spec.scale <= 0.0f || spec.scale > 32.0f)
    return make_error("scale must be a number in (0, 32] (got " + std::to_string(spec.scale) + ")");
  if (spec.columns < 0) return make_error("panels per row cannot be negative (got " + std::to_string(spec.columns) + ")");
  if (!std::isfinite(spec.vmin) || !std::isfinite(spec.vmax) || !(spec.vmax > spec.vmin))
    return make_error("the colour range needs finite vmin < vmax (got " + std::to_string(spec.vmin) + " .. " +
                      std::to_string(spec.vmax) + ")");
  return Ok{};
}

Painters painters_make(const HeatmapGridSpec& spec, const FontRaster* font, const Metrics& m, float label_px,
                       float annotation_px) {
  const float s = spec.scale;
  return Painters{TextPainter(font, m.caption_px * s), TextPainter(font, m.title_px * s), TextPainter(font, label_px),
                  TextPainter(font, m.tick_px * s), TextPainter(font, annotation_px)};
}

// Hangul, kana and CJK ideographs: full-width characters that read well stacked upright and
// badly rotated. Latin and everything else is rotated instead.
bool char_is_wide(char32_t c) {
  return unicode_is_hangul(c) || (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFF01 && c <= 0xFF60);
}

bool label_is_cjk(std::string_view label) {
  const std::string valid = utf8_sanitize(label);
  if (valid.empty()) return false;
  for (size_t pos = 0; pos < valid.size();)
    if (!char_is_wide(utf8_next(valid, pos))) return false;
  return true;
}

// Tick values are printed with as many decimals as the range needs.
std::string tick_text(float v, float range) {
  const int decimals = range < 0.1f ? 3 : range < 10.0f ? 2 : range < 100.0f ? 1 : 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, static_cast<double>(v));
  std::string out = buf;
  if (out == "-0.00" || out == "-0.0" || out == "-0" || out == "-0.000") out.erase(0, 1);
  return out;
}

// The legend's label at position f of the bar: the value there on the spec's scale (a log scale's
// ticks are decades apart, so they keep their significant digits).
std::string scale_tick_text(const HeatmapGridSpec& spec, float f) {
  const float v = color_scale_value(spec.color_scale, f, spec.vmin, spec.vmax);
  if (spec.color_scale.kind != ColorScale::log) return tick_text(v, spec.vmax - spec.vmin);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2g", static_cast<double>(v));
  return buf;
}

Result<Layout> layout_compute(const HeatmapGridSpec& spec, Painters& pt, const Metrics& m, float label_px,
                              float annotation_px) {
  const float s = spec.scale;
  Layout L;
  L.cell = std::max(1, px_of(static_cast<float>(spec.cell_px) * s));
  L.rows = static_cast<int64_t>(spec.row_labels.size());
  L.cols = static_cast<int64_t>(spec.col_labels.size());
  const auto n = static_cast<int64_t>(spec.panels.size());
  L.grid_cols = spec.columns > 0 ? std::min<int64_t>(spec.columns, n)
                                 : static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  L.grid_rows = (n + L.grid_cols - 1) / L.grid_cols;
  L.margin = px_of(m.margin * s);
  L.panel_w = L.cell * L.cols;
  L.panel_h = L.cell * L.rows;
  L.gap_x = px_of(m.gap_x * s);
  L.gap_y = px_of(m.gap_y * s);
  L.label_pad = px_of(m.label_pad * s);
  L.label_px = label_px;
  L.annotation_px = annotation_px;

  // Cheap size check first: even without labels, is the grid itself too large?
  auto too_big = [](int64_t w, int64_t h) {
    return w > kHeatmapMaxSide || h > kHeatmapMaxSide || w * h * 4 > kHeatmapMaxBytes;
  };
  auto size_error = [](int64_t w, int64_t h) {
    return make_error("the heatmap image would be " + std::to_string(w) + "x" + std::to_string(h) +
                      " px; the limit is " + std::to_string(kHeatmapMaxSide) + " px per side and " +
                      std::to_string(kHeatmapMaxBytes >> 20) + " MB: lower the scale or the cell size, or draw fewer heads");
  };
  const int64_t bare_w = L.grid_cols * (L.panel_w + L.gap_x), bare_h = L.grid_rows * (L.panel_h + L.gap_y);
  if (too_big(bare_w, bare_h)) return size_error(bare_w, bare_h);

  // Token labels: truncated to a fixed budget so one long token cannot stretch the figure.
  L.labels = label_px >= kMinLegiblePx;
  if (L.labels) {
    const int budget = px_of(m.label_max * s);
    for (const auto& t : spec.row_labels) {
      L.row_text.push_back(pt.label.fit(t, budget));
      L.row_label_w = std::max<int64_t>(L.row_label_w, pt.label.width(L.row_text.back()));
    }
    for (const auto& t : spec.col_labels) {
      const bool stacked = label_is_cjk(t);
      L.col_stacked.push_back(stacked);
      L.col_text.push_back(stacked ? pt.label.fit_stacked(t, budget) : pt.label.fit(t, budget));
      L.col_label_h = std::max<int64_t>(L.col_label_h, stacked ? pt.label.stacked_height(L.col_text.back())
                                                               : pt.label.width(L.col_text.back()));
    }
    L.row_label_w += L.label_pad;
    L.col_label_h += L.label_pad;
  }
  const bool any_title = std::any_of(spec.panels.begin(), spec.panels.end(), [](const HeatmapPanel& p) { return !p.title.empty(); });
  L.title_h = any_title ? pt.title.line_height() + px_of(m.title_gap * s) : 0;

  L.slot_w = L.panel_w + L.gap_x;
  L.slot_h = L.title_h + L.col_label_h + L.panel_h + L.gap_y;
  const int64_t caption_h = spec.caption.empty() ? 0 : pt.caption.line_height() + px_of(m.caption_gap * s);
  L.origin_x = L.margin + L.row_label_w;
  L.origin_y = L.margin + caption_h;
  const int64_t grids_right = L.origin_x + L.grid_cols * L.slot_w - L.gap_x;
  const int64_t grids_bottom = L.origin_y + L.grid_rows * L.slot_h - L.gap_y;

  int64_t right = grids_right, bottom = grids_bottom;
  L.legend = spec.legend;
  if (L.legend) {
    L.legend_x = grids_right + px_of(m.legend_gap * s);
    L.legend_y = L.grid_y(0);
    L.legend_w = std::max(4, px_of(m.legend_w * s));
    L.tick_len = std::max(2, px_of(m.tick_len * s));
    // At least room for a low, a middle and a high tick label without overlap.
    const int64_t tick_line = pt.tick.line_height();
    L.legend_h = std::max<int64_t>(grids_bottom - L.legend_y, 4 * tick_line);
    L.ticks = L.legend_h >= 8 * tick_line ? 5 : 3;
    int64_t tick_w = 0;
    for (int k = 0; k < L.ticks; ++k)
      tick_w = std::max<int64_t>(tick_w, pt.tick.width(scale_tick_text(spec, static_cast<float>(k) / static_cast<float>(L.ticks - 1))));
    right = L.legend_x + L.legend_w + L.tick_len + L.label_pad + tick_w;
    bottom = std::max(bottom, L.legend_y + L.legend_h + tick_line / 2);
  }
  L.width = right + L.margin;
  if (!spec.caption.empty()) {
    // The caption may widen a small figure but is cut (with an ellipsis) rather than make it huge.
    const int budget = static_cast<int>(std::max<int64_t>(L.width - 2 * L.margin, px_of(900.0f * s)));
    L.caption = pt.caption.fit(spec.caption, budget);
    L.width = std::max<int64_t>(L.width, 2 * L.margin + pt.caption.width(L.caption));
  }
  L.height = bottom + L.margin;
  if (too_big(L.width, L.height)) return size_error(L.width, L.height);
  return L;
}

// Label and annotation sizes follow the cell so they never overflow it.
struct TextSizes {
  float label_px, annotation_px;
};
TextSizes text_sizes(const HeatmapGridSpec& spec, const Metrics& m) {
  const float cell = std::max(1.0f, std::round(static_cast<float>(spec.cell_px) * spec.scale));
  return TextSizes{std::min(m.label_px * spec.scale, cell * 0.8f), std::min(m.annotation_px * spec.scale, cell * 0.5f)};
}

FigureRect rect_at(int x, int y, int w, int h, Rgba fill) {
  FigureRect r;
  r.x = static_cast<float>(x);
  r.y = static_cast<float>(y);
  r.w = static_cast<float>(w);
  r.h = static_cast<float>(h);
  r.fill = fill;
  return r;
}

// A hairline frame just outside [x, x + w) x [y, y + h), so pale panels do not dissolve into the page.
void add_frame(Figure& fig, int x, int y, int w, int h) {
  fig.items.push_back(rect_at(x - 1, y - 1, w + 2, 1, kFrame));
  fig.items.push_back(rect_at(x - 1, y + h, w + 2, 1, kFrame));
  fig.items.push_back(rect_at(x - 1, y, 1, h, kFrame));
  fig.items.push_back(rect_at(x + w, y, 1, h, kFrame));
}

void add_panel(Figure& fig, const HeatmapGridSpec& spec, const Layout& L, Painters& pt, size_t p) {
  const HeatmapPanel& panel = spec.panels[p];
  const Mat& w = *panel.weights;
  const int gx = static_cast<int>(L.grid_x(static_cast<int64_t>(p)));
  const int gy = static_cast<int>(L.grid_y(static_cast<int64_t>(p)));
  const int cell = static_cast<int>(L.cell);
  const int pw = static_cast<int>(L.panel_w), ph = static_cast<int>(L.panel_h);
  const float label_px = L.label_px, s = spec.scale;
  const Metrics m;

  if (!panel.title.empty()) {
    const std::string title = pt.title.fit(panel.title, static_cast<int>(L.slot_w - L.gap_x / 3));
    const int tw = pt.title.width(title);
    const int tx = tw <= pw ? gx + (pw - tw) / 2 : gx;
    fig.items.push_back(figure_text(static_cast<float>(tx), static_cast<float>(gy - static_cast<int>(L.col_label_h + L.title_h)), title,
                                m.title_px * s, kInk));
  }
  if (L.labels) {
    const int lh = pt.label.line_height();
    for (size_t c = 0; c < L.col_text.size(); ++c) {
      const int lx = gx + static_cast<int>(c) * cell + (cell - lh) / 2, bottom = gy - static_cast<int>(L.label_pad);
      fig.items.push_back(figure_text(static_cast<float>(lx), static_cast<float>(bottom), L.col_text[c], label_px, kLabelInk,
                                  TextAnchor::start, L.col_stacked[c] ? TextOrient::stacked : TextOrient::rotated));
    }
    if (L.grid_x(static_cast<int64_t>(p)) == L.origin_x)  // query labels once per row of panels
      for (size_t r = 0; r < L.row_text.size(); ++r)
        fig.items.push_back(figure_text(static_cast<float>(gx - static_cast<int>(L.label_pad)),
                                    static_cast<float>(gy + static_cast<int>(r) * cell + (cell - lh) / 2), L.row_text[r], label_px,
                                    kLabelInk, TextAnchor::end));
  }

  const std::string id = panel.id.empty() ? std::to_string(p) : panel.id;
  const bool annotate = spec.annotate && L.annotation_px >= kMinAnnotationPx;
  const int ah = pt.annotation.line_height();
  for (int r = 0; r < w.rows(); ++r)
    for (int c = 0; c < w.cols(); ++c) {
      const float v = w(r, c);
      const bool apart = spec.first_column_apart && c == 0;
      const Rgba colour = colormap_color(apart ? Colormap::high_contrast : spec.cmap, spec.color_scale, v, spec.vmin, spec.vmax);
      const int x = gx + c * cell, y = gy + r * cell;
      FigureRect rect = rect_at(x, y, cell, cell, colour);
      rect.cell = FigureCellTag{id, r, c, v};
      fig.items.push_back(std::move(rect));
      // Exact zeros (masked positions) stay blank, so a mask's shape reads at a glance.
      if (!annotate || !std::isfinite(v) || v == 0.0f) continue;
      // Neighbouring numbers must not run together: the long form needs a fifth of the cell free.
      std::string text = heatmap_value_text(v, false);
      int tw = pt.annotation.width(text);
      if (tw * 5 > cell * 4) {
        text = heatmap_value_text(v, true);
        tw = pt.annotation.width(text);
      }
      if (tw > cell - std::max(2, cell / 8)) continue;
      const Rgba ink = rgba_luminance(colour) < 0.5f ? kWhite : kBlack;
      // Anchored at the middle (the same pixels here; an SVG viewer's own text widths stay centred).
      fig.items.push_back(figure_text(static_cast<float>(x + (cell - tw) / 2) + static_cast<float>(tw) * 0.5f,
                                  static_cast<float>(y + (cell - ah) / 2), text, L.annotation_px, ink, TextAnchor::middle));
    }
  if (spec.first_column_apart && w.cols() > 1)  // the line that sets the first key apart
    fig.items.push_back(rect_at(gx + cell - std::max(1, cell / 10), gy, std::max(2, cell / 5), ph, kWhite));
  add_frame(fig, gx, gy, pw, ph);
  if (spec.highlight_row >= 0 && spec.highlight_row < w.rows()) {
    FigureRect row = rect_at(gx, gy + spec.highlight_row * cell, pw, cell, kWhite);
    row.fill.reset();
    row.stroke = kHighlight;
    row.stroke_width = std::max(1.0f, std::round(2.0f * s));
    fig.items.push_back(std::move(row));
  }
}

void add_legend(Figure& fig, const HeatmapGridSpec& spec, const Layout& L, Painters& pt) {
  const int x = static_cast<int>(L.legend_x), y = static_cast<int>(L.legend_y);
  const int w = static_cast<int>(L.legend_w), h = static_cast<int>(L.legend_h);
  fig.items.push_back(FigureColorBar{static_cast<float>(x), static_cast<float>(y), static_cast<float>(w), static_cast<float>(h), spec.cmap});
  add_frame(fig, x, y, w, h);
  const int lh = pt.tick.line_height();
  const Metrics m;
  for (int k = 0; k < L.ticks; ++k) {
    const float f = static_cast<float>(k) / static_cast<float>(L.ticks - 1);
    const int ty = y + (h - 1) - static_cast<int>(std::lround(f * static_cast<float>(h - 1)));
    fig.items.push_back(rect_at(x + w, ty, static_cast<int>(L.tick_len), 1, kFrame));
    fig.items.push_back(figure_text(static_cast<float>(x + w + static_cast<int>(L.tick_len + L.label_pad)), static_cast<float>(ty - lh / 2),
                                scale_tick_text(spec, f), m.tick_px * spec.scale, kLabelInk));
  }
}

}  // namespace

std::string heatmap_value_text(float value, bool short_form) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(value));
  std::string out = buf;
  if (out == "-0.00") out = "0.00";
  if (short_form) {
    if (out.rfind("0.", 0) == 0) {
      out.erase(0, 1);
    } else if (out.rfind("-0.", 0) == 0) {
      out.erase(1, 1);
    } else {  // |v| >= 1 has no zero to drop: one decimal instead ("1.0")
      std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(value));
      out = buf;
    }
  }
  return out;
}

Result<Figure> heatmap_grid_figure(const HeatmapGridSpec& spec, const FontRaster* font) {
  if (Status s = spec_validate(spec); !s) return make_error(s.error());
  const Metrics m;
  const TextSizes ts = text_sizes(spec, m);
  Painters pt = painters_make(spec, font, m, ts.label_px, ts.annotation_px);
  auto layout = layout_compute(spec, pt, m, ts.label_px, ts.annotation_px);
  if (!layout) return make_error(layout.error());
  const Layout& L = *layout;

  Figure fig;
  fig.width = static_cast<float>(L.width);
  fig.height = static_cast<float>(L.height);
  fig.background = kBackground;
  if (!L.caption.empty())
    fig.items.push_back(figure_text(static_cast<float>(L.margin), static_cast<float>(L.margin), L.caption, m.caption_px * spec.scale, kInk));
  for (size_t p = 0; p < spec.panels.size(); ++p) add_panel(fig, spec, L, pt, p);
  if (L.legend) add_legend(fig, spec, L, pt);
  return fig;
}

Result<Image> heatmap_grid_render(const HeatmapGridSpec& spec, const FontRaster* font) {
  auto fig = heatmap_grid_figure(spec, font);
  if (!fig) return make_error(fig.error());
  return figure_raster(*fig, font, 1.0f);
}

CellRect heatmap_grid_cell(const HeatmapGridSpec& spec, const FontRaster* font, int panel, int row, int col) {
  if (!spec_validate(spec)) return CellRect{};
  if (panel < 0 || static_cast<size_t>(panel) >= spec.panels.size() || row < 0 ||
      static_cast<size_t>(row) >= spec.row_labels.size() || col < 0 || static_cast<size_t>(col) >= spec.col_labels.size())
    return CellRect{};
  const Metrics m;
  const TextSizes ts = text_sizes(spec, m);
  Painters pt = painters_make(spec, font, m, ts.label_px, ts.annotation_px);
  auto layout = layout_compute(spec, pt, m, ts.label_px, ts.annotation_px);
  if (!layout) return CellRect{};
  const Layout& L = *layout;
  const auto cell = static_cast<int>(L.cell);
  return CellRect{static_cast<int>(L.grid_x(panel)) + col * cell, static_cast<int>(L.grid_y(panel)) + row * cell, cell, cell};
}

}  // namespace attnviz
