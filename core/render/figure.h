// A vector figure: a page size and a list of drawing items (rectangles, colour bars, polylines,
// circles, text) in pixels at scale 1. The same figure becomes an SVG (figure_svg.cpp: text stays
// text) or an Image at any scale (figure_raster.cpp: text through TextPainter, Hangul via Nanum).
// Heatmap cells carry a tag (panel, row, col, value) so an SVG reader can check them. No I/O here.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/result.h"
#include "render/colormap.h"
#include "render/image.h"
#include "render/text_raster.h"

namespace attnviz {

// What a heatmap cell shows: its panel's id (e.g. "h3", "a.h0"), row = query, col = key, value.
struct FigureCellTag {
  std::string panel;
  int row = 0, col = 0;
  float value = 0.0f;
};

struct FigureRect {
  float x = 0, y = 0, w = 0, h = 0;
  std::optional<Rgba> fill;          // none: outline only
  std::optional<Rgba> stroke;        // drawn inside the rectangle's edge
  float stroke_width = 1.0f;
  std::optional<FigureCellTag> cell;
};

// A vertical colour bar: the map's high end at the top.
struct FigureColorBar {
  float x = 0, y = 0, w = 0, h = 0;
  Colormap cmap = Colormap::viridis;
};

struct FigureLine {
  struct Point {
    float x = 0, y = 0;
  };
  std::vector<Point> points;  // two for a segment, more for a polyline
  Rgba color;
  float width = 1.0f;
  float opacity = 1.0f;
  std::optional<FigureCellTag> tag;  // a line that stands for one weight (query row -> key col)
};

struct FigureCircle {
  float cx = 0, cy = 0, r = 0;
  Rgba fill;
};

enum class TextAnchor { start, middle, end };
enum class TextOrient {
  horizontal,  // (x, y): the line box's top at y; x at the anchor
  rotated,     // 90° counter-clockwise, reading upwards: columns [x, x + px); y is the anchor along the text
  stacked,     // upright characters top to bottom (Hangul, CJK): columns [x, x + px); y as for rotated
};

struct FigureText {
  float x = 0, y = 0;
  std::string text;  // UTF-8
  float px = 12.0f;  // line height, as TextPainter's
  Rgba color;
  TextAnchor anchor = TextAnchor::start;  // rotated / stacked: start = the bottom end
  TextOrient orient = TextOrient::horizontal;
  bool bold = false;
};

using FigureItem = std::variant<FigureRect, FigureColorBar, FigureLine, FigureCircle, FigureText>;

struct Figure {
  float width = 0, height = 0;
  Rgba background{255, 255, 255, 255};
  std::vector<FigureItem> items;  // painted in order
};

inline constexpr int64_t kFigureMaxItems = 1'500'000;  // past this an SVG (~150 bytes an item) is no longer useful

// Every position and size of the figure (text heights, line widths, the page) multiplied by `scale`.
void figure_scale(Figure& figure, float scale);

// A text item with the given fields (the rest as FigureText's defaults).
inline FigureText figure_text(float x, float y, std::string text, float px, Rgba color, TextAnchor anchor = TextAnchor::start,
                              TextOrient orient = TextOrient::horizontal) {
  FigureText t;
  t.x = x;
  t.y = y;
  t.text = std::move(text);
  t.px = px;
  t.color = color;
  t.anchor = anchor;
  t.orient = orient;
  return t;
}

// Copies src's items into dst moved by (dx, dy), prefixing every cell tag's panel id with `panel_prefix`.
void figure_append(Figure& dst, const Figure& src, float dx, float dy, const std::string& panel_prefix = {});

// The figure's text metrics for the SVG writer: where the baseline of a line of height px sits
// below its top, and the font size (em) that makes a line px high. Without a font: estimates.
struct FigureFontMetrics {
  float ascent = 0.8f;  // fractions of px
  float em = 1.0f;
};
FigureFontMetrics figure_font_metrics(const FontRaster* font);

// The SVG text of the figure: well-formed XML (every string escaped), UTF-8, a viewBox in pixels,
// text as <text>, heatmap cells as <rect class="cell" data-panel data-row data-col data-value>.
std::string figure_svg(const Figure& fig, const FontRaster* font);
Status figure_svg_write(const std::string& path, const Figure& fig, const FontRaster* font);

// The figure drawn at `scale` (every size multiplied). Errors: an empty or too large image.
Result<Image> figure_raster(const Figure& fig, const FontRaster* font, float scale);

// XML text and attribute escaping (&, <, >, ", '); invalid UTF-8 is replaced, control characters dropped.
std::string xml_escape(std::string_view text);

}  // namespace attnviz
