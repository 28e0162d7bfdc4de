// Figure -> Image at a scale. Rectangles snap to whole pixels (so a figure laid out on integers at
// scale 1 is drawn exactly, as heatmap_grid_render needs); lines and circles are anti-aliased by
// their distance to each pixel's centre; text goes through one TextPainter per size.
#include <algorithm>
#include <cmath>
#include <map>

#include "render/figure.h"
#include "render/heatmap.h"

namespace attnviz {

namespace {

int snap(float v) { return static_cast<int>(std::lround(v)); }

void draw_rect(Image& img, const FigureRect& r, float s) {
  const int x0 = snap(r.x * s), y0 = snap(r.y * s), x1 = snap((r.x + r.w) * s), y1 = snap((r.y + r.h) * s);
  if (r.fill) {
    if (r.fill->a == 255) {
      img.fill_rect(x0, y0, x1 - x0, y1 - y0, *r.fill);
    } else {
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) img.blend(x, y, *r.fill, 1.0f);
    }
  }
  if (r.stroke) {
    const int t = std::max(1, snap(r.stroke_width * s));
    const Rgba c = *r.stroke;
    img.fill_rect(x0, y0, x1 - x0, t, c);
    img.fill_rect(x0, y1 - t, x1 - x0, t, c);
    img.fill_rect(x0, y0 + t, t, y1 - y0 - 2 * t, c);
    img.fill_rect(x1 - t, y0 + t, t, y1 - y0 - 2 * t, c);
  }
}

void draw_color_bar(Image& img, const FigureColorBar& b, float s) {
  const int x0 = snap(b.x * s), y0 = snap(b.y * s), x1 = snap((b.x + b.w) * s), y1 = snap((b.y + b.h) * s);
  const int h = y1 - y0;
  for (int j = 0; j < h; ++j) {
    const float t = h > 1 ? 1.0f - static_cast<float>(j) / static_cast<float>(h - 1) : 1.0f;  // high values on top
    img.fill_rect(x0, y0 + j, x1 - x0, 1, colormap_sample(b.cmap, t));
  }
}

// Coverage of a pixel by a shape at distance d from its edge-defining set, for a half-width hw.
float coverage(float d, float hw) { return std::clamp(hw + 0.5f - d, 0.0f, 1.0f); }

// A segment with round caps, anti-aliased. Each row visits only the pixels whose centres lie within
// hw + 0.5 of the segment's line (wider ones have no coverage), not the whole bounding box: a long
// diagonal, as the Lines view draws by the hundred, covered hundreds of times its own area.
void draw_segment(Image& img, FigureLine::Point a, FigureLine::Point b, float hw, Rgba c, float opacity) {
  const int x0 = static_cast<int>(std::floor(std::min(a.x, b.x) - hw - 1)), x1 = static_cast<int>(std::ceil(std::max(a.x, b.x) + hw + 1));
  const int y0 = static_cast<int>(std::floor(std::min(a.y, b.y) - hw - 1)), y1 = static_cast<int>(std::ceil(std::max(a.y, b.y) + hw + 1));
  const float dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
  // Distance to the line through a and b: |px * dy - py * dx| / len, with p relative to a.
  const double reach = (static_cast<double>(hw) + 0.5) * std::sqrt(static_cast<double>(len2));
  for (int y = std::max(0, y0); y <= std::min(img.height - 1, y1); ++y) {
    const float py = static_cast<float>(y) + 0.5f - a.y;
    int from = std::max(0, x0), to = std::min(img.width - 1, x1);
    if (std::abs(dy) > 1e-6f) {  // else every pixel of the row is as near the line as the row is
      const double mid = static_cast<double>(py) * dx / dy, half = reach / std::abs(static_cast<double>(dy));
      // px = x + 0.5 - a.x; one pixel of slack on each side for rounding.
      const double lo = std::floor(mid - half + a.x - 0.5) - 1, hi = std::ceil(mid + half + a.x - 0.5) + 1;
      if (lo > from) from = lo > to ? to + 1 : static_cast<int>(lo);  // compared as doubles: no int overflow
      if (hi < to) to = hi < from ? from - 1 : static_cast<int>(hi);
    }
    for (int x = from; x <= to; ++x) {
      const float px = static_cast<float>(x) + 0.5f - a.x;
      const float t = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0f, 1.0f) : 0.0f;
      const float ex = px - t * dx, ey = py - t * dy;
      const float cov = coverage(std::sqrt(ex * ex + ey * ey), hw);
      if (cov > 0) img.blend(x, y, c, cov * opacity);
    }
  }
}

void draw_line(Image& img, const FigureLine& l, float s) {
  const float hw = std::max(0.5f, l.width * s * 0.5f);
  const float opacity = l.opacity * static_cast<float>(l.color.a) / 255.0f;
  for (size_t i = 1; i < l.points.size(); ++i)
    draw_segment(img, {l.points[i - 1].x * s, l.points[i - 1].y * s}, {l.points[i].x * s, l.points[i].y * s}, hw, l.color, opacity);
}

void draw_circle(Image& img, const FigureCircle& c, float s) {
  const float cx = c.cx * s, cy = c.cy * s, r = c.r * s;
  const float opacity = static_cast<float>(c.fill.a) / 255.0f;
  for (int y = std::max(0, static_cast<int>(cy - r - 1)); y <= std::min(img.height - 1, static_cast<int>(cy + r + 1)); ++y)
    for (int x = std::max(0, static_cast<int>(cx - r - 1)); x <= std::min(img.width - 1, static_cast<int>(cx + r + 1)); ++x) {
      const float dx = static_cast<float>(x) + 0.5f - cx, dy = static_cast<float>(y) + 0.5f - cy;
      const float cov = coverage(std::sqrt(dx * dx + dy * dy), r - 0.5f);
      if (cov > 0) img.blend(x, y, c.fill, cov * opacity);
    }
}

// How far back from the anchor the text starts, given its extent along the reading direction.
float anchor_shift(TextAnchor a, int extent) {
  return a == TextAnchor::start ? 0.0f : a == TextAnchor::middle ? static_cast<float>(extent) * 0.5f : static_cast<float>(extent);
}

void draw_text(Image& img, const FigureText& t, float s, std::map<float, TextPainter>& painters, const FontRaster* font) {
  const float px = t.px * s;
  auto it = painters.find(px);
  if (it == painters.end()) it = painters.emplace(px, TextPainter(font, px)).first;
  TextPainter& p = it->second;
  const int passes = t.bold ? 2 : 1;  // a second pass one pixel right: a cheap bold
  for (int pass = 0; pass < passes; ++pass) {
    switch (t.orient) {
      case TextOrient::horizontal:
        p.draw(img, snap(t.x * s - anchor_shift(t.anchor, p.width(t.text))) + pass, snap(t.y * s), t.text, t.color);
        break;
      case TextOrient::rotated:
        p.draw_vertical(img, snap(t.x * s) + pass, snap(t.y * s + anchor_shift(t.anchor, p.width(t.text))), t.text, t.color);
        break;
      case TextOrient::stacked:
        p.draw_stacked(img, snap(t.x * s) + pass, snap(t.y * s + anchor_shift(t.anchor, p.stacked_height(t.text))), t.text,
                       t.color);
        break;
    }
  }
}

}  // namespace

Result<Image> figure_raster(const Figure& fig, const FontRaster* font, float scale) {
  if (!std::isfinite(scale) || scale <= 0.0f || scale > 32.0f)
    return make_error("scale must be a number in (0, 32] (got " + std::to_string(scale) + ")");
  const auto w = static_cast<int64_t>(std::ceil(fig.width * scale)), h = static_cast<int64_t>(std::ceil(fig.height * scale));
  if (w <= 0 || h <= 0) return make_error("nothing to draw: the figure is empty");
  if (w > kHeatmapMaxSide || h > kHeatmapMaxSide || w * h * 4 > kHeatmapMaxBytes)
    return make_error("the image would be " + std::to_string(w) + "x" + std::to_string(h) + " px; the limit is " +
                      std::to_string(kHeatmapMaxSide) + " px per side and " + std::to_string(kHeatmapMaxBytes >> 20) +
                      " MB: lower the scale");
  Image img(static_cast<int>(w), static_cast<int>(h), fig.background);
  std::map<float, TextPainter> painters;
  for (const FigureItem& item : fig.items) {
    if (const auto* r = std::get_if<FigureRect>(&item)) draw_rect(img, *r, scale);
    else if (const auto* b = std::get_if<FigureColorBar>(&item)) draw_color_bar(img, *b, scale);
    else if (const auto* l = std::get_if<FigureLine>(&item)) draw_line(img, *l, scale);
    else if (const auto* c = std::get_if<FigureCircle>(&item)) draw_circle(img, *c, scale);
    else if (const auto* t = std::get_if<FigureText>(&item)) draw_text(img, *t, scale, painters, font);
  }
  return img;
}

}  // namespace attnviz
