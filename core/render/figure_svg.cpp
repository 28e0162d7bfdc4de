// Figure -> SVG text. Coordinates stay in pixels (the viewBox is the figure's size); text is
// written as <text> in the Nanum fonts, placed on the baseline the raster would use, so both
// outputs share one layout. Every string goes through xml_escape; nothing is read back here.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <cstdio>

#include "base/file_io.h"
#include "render/figure.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

constexpr const char* kFontFamily = "NanumGothic, 'Nanum Gothic', sans-serif";

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

// Cell values round-trip exactly: nine significant digits name a float.
std::string exact(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

std::string colour(Rgba c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

std::string opacity_attr(const char* name, float a) {
  return a >= 1.0f ? std::string() : std::string(" ") + name + "=\"" + num(a) + "\"";
}

float alpha_of(Rgba c) { return static_cast<float>(c.a) / 255.0f; }

void rect_svg(std::string& out, const FigureRect& r) {
  if (r.fill) {
    out += r.cell ? "<rect class=\"cell\"" : "<rect";
    out += " x=\"" + num(r.x) + "\" y=\"" + num(r.y) + "\" width=\"" + num(r.w) + "\" height=\"" + num(r.h) + "\" fill=\"" +
           colour(*r.fill) + "\"" + opacity_attr("fill-opacity", alpha_of(*r.fill));
    if (r.cell)
      out += " data-panel=\"" + xml_escape(r.cell->panel) + "\" data-row=\"" + std::to_string(r.cell->row) + "\" data-col=\"" +
             std::to_string(r.cell->col) + "\" data-value=\"" + exact(r.cell->value) + "\"";
    out += "/>\n";
  }
  if (r.stroke) {
    // The raster draws the stroke inside the edge; SVG centres it on the outline, so move in by half.
    const float h = r.stroke_width * 0.5f;
    out += "<rect x=\"" + num(r.x + h) + "\" y=\"" + num(r.y + h) + "\" width=\"" + num(std::max(0.0f, r.w - r.stroke_width)) +
           "\" height=\"" + num(std::max(0.0f, r.h - r.stroke_width)) + "\" fill=\"none\" stroke=\"" + colour(*r.stroke) +
           "\" stroke-width=\"" + num(r.stroke_width) + "\"" + opacity_attr("stroke-opacity", alpha_of(*r.stroke)) + "/>\n";
  }
}

void color_bar_svg(std::string& out, const FigureColorBar& b, int id) {
  const std::string gid = "bar" + std::to_string(id);
  out += "<defs><linearGradient id=\"" + gid + "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  constexpr int kStops = 16;
  for (int i = 0; i <= kStops; ++i) {
    const float t = static_cast<float>(i) / kStops;
    out += "<stop offset=\"" + num(t) + "\" stop-color=\"" + colour(colormap_sample(b.cmap, t)) + "\"/>";
  }
  out += "</linearGradient></defs>\n";
  out += "<rect x=\"" + num(b.x) + "\" y=\"" + num(b.y) + "\" width=\"" + num(b.w) + "\" height=\"" + num(b.h) +
         "\" fill=\"url(#" + gid + ")\"/>\n";
}

void line_svg(std::string& out, const FigureLine& l) {
  if (l.points.size() < 2) return;
  out += l.tag ? "<polyline class=\"link\"" : "<polyline";
  if (l.tag)
    out += " data-panel=\"" + xml_escape(l.tag->panel) + "\" data-row=\"" + std::to_string(l.tag->row) + "\" data-col=\"" +
           std::to_string(l.tag->col) + "\" data-value=\"" + exact(l.tag->value) + "\"";
  out += " fill=\"none\" stroke=\"" + colour(l.color) + "\" stroke-width=\"" + num(l.width) +
         "\" stroke-linejoin=\"round\" stroke-linecap=\"round\"" + opacity_attr("stroke-opacity", l.opacity * alpha_of(l.color)) +
         " points=\"";
  for (size_t i = 0; i < l.points.size(); ++i) out += (i ? " " : "") + num(l.points[i].x) + "," + num(l.points[i].y);
  out += "\"/>\n";
}

void circle_svg(std::string& out, const FigureCircle& c) {
  out += "<circle cx=\"" + num(c.cx) + "\" cy=\"" + num(c.cy) + "\" r=\"" + num(c.r) + "\" fill=\"" + colour(c.fill) + "\"" +
         opacity_attr("fill-opacity", alpha_of(c.fill)) + "/>\n";
}

const char* anchor_name(TextAnchor a) {
  return a == TextAnchor::start ? "start" : a == TextAnchor::middle ? "middle" : "end";
}

void text_svg(std::string& out, const FigureText& t, const FigureFontMetrics& m) {
  if (t.text.empty()) return;
  const std::string style = " font-size=\"" + num(t.px * m.em) + "\" fill=\"" + colour(t.color) + "\"" +
                            opacity_attr("fill-opacity", alpha_of(t.color)) + (t.bold ? " font-weight=\"bold\"" : "");
  const float ascent = t.px * m.ascent;
  switch (t.orient) {
    case TextOrient::horizontal:
      out += "<text x=\"" + num(t.x) + "\" y=\"" + num(t.y + ascent) + "\" text-anchor=\"" + anchor_name(t.anchor) + "\"" +
             style + ">" + xml_escape(t.text) + "</text>\n";
      break;
    case TextOrient::rotated: {
      // Rotating about the anchor turns "along x" into "up the page"; the baseline sits `ascent`
      // right of the column's left edge.
      const float bx = t.x + ascent, by = t.y;
      out += "<text x=\"" + num(bx) + "\" y=\"" + num(by) + "\" transform=\"rotate(-90 " + num(bx) + " " + num(by) +
             ")\" text-anchor=\"" + anchor_name(t.anchor) + "\"" + style + ">" + xml_escape(t.text) + "</text>\n";
      break;
    }
    case TextOrient::stacked: {
      // One <text> whose characters are <tspan>s, one per line, centred in the column.
      std::vector<std::string> chars;
      const std::string valid = utf8_sanitize(t.text);
      for (size_t pos = 0; pos < valid.size();) {
        const size_t start = pos;
        utf8_next(valid, pos);
        chars.push_back(valid.substr(start, pos - start));
      }
      const float n = static_cast<float>(chars.size());
      const float top = t.anchor == TextAnchor::start ? t.y - n * t.px
                        : t.anchor == TextAnchor::middle ? t.y - n * t.px * 0.5f
                                                          : t.y;
      out += "<text text-anchor=\"middle\"" + style + ">";
      for (size_t i = 0; i < chars.size(); ++i)
        out += "<tspan x=\"" + num(t.x + t.px * 0.5f) + "\" y=\"" + num(top + static_cast<float>(i) * t.px + ascent) + "\">" +
               xml_escape(chars[i]) + "</tspan>";
      out += "</text>\n";
      break;
    }
  }
}

}  // namespace

std::string xml_escape(std::string_view text) {
  const std::string valid = utf8_sanitize(text);
  std::string out;
  out.reserve(valid.size());
  for (char ch : valid) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && ch != '\t' && ch != '\n') break;  // not allowed in XML 1.0
        out += ch;
    }
  }
  return out;
}

FigureFontMetrics figure_font_metrics(const FontRaster* font) {
  if (!font) return FigureFontMetrics{};
  constexpr float kPx = 100.0f;
  const TextPainter p(font, kPx);
  return FigureFontMetrics{p.ascent() / kPx, p.em() / kPx};
}

std::string figure_svg(const Figure& fig, const FontRaster* font) {
  const FigureFontMetrics m = figure_font_metrics(font);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(fig.width) + "\" height=\"" + num(fig.height) +
         "\" viewBox=\"0 0 " + num(fig.width) + " " + num(fig.height) + "\" font-family=\"" + xml_escape(kFontFamily) + "\">\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + num(fig.width) + "\" height=\"" + num(fig.height) + "\" fill=\"" + colour(fig.background) +
         "\"/>\n";
  int bars = 0;
  for (const FigureItem& item : fig.items) {
    if (const auto* r = std::get_if<FigureRect>(&item)) rect_svg(out, *r);
    else if (const auto* b = std::get_if<FigureColorBar>(&item)) color_bar_svg(out, *b, bars++);
    else if (const auto* l = std::get_if<FigureLine>(&item)) line_svg(out, *l);
    else if (const auto* c = std::get_if<FigureCircle>(&item)) circle_svg(out, *c);
    else if (const auto* t = std::get_if<FigureText>(&item)) text_svg(out, *t, m);
  }
  out += "</svg>\n";
  return out;
}

Status figure_svg_write(const std::string& path, const Figure& fig, const FontRaster* font) {
  if (fig.items.size() > static_cast<size_t>(kFigureMaxItems))
    return make_error("the figure has " + std::to_string(fig.items.size()) + " items, more than an SVG can usefully hold (" +
                      std::to_string(kFigureMaxItems) + "): draw fewer heads or a shorter text");
  return file_write_atomic(path, std::string_view(figure_svg(fig, font)));
}

void figure_append(Figure& dst, const Figure& src, float dx, float dy, const std::string& panel_prefix) {
  dst.items.reserve(dst.items.size() + src.items.size());
  for (FigureItem item : src.items) {
    std::visit(
        [&](auto& it) {
          using T = std::decay_t<decltype(it)>;
          if constexpr (std::is_same_v<T, FigureLine>) {
            for (auto& p : it.points) {
              p.x += dx;
              p.y += dy;
            }
            if (it.tag) it.tag->panel = panel_prefix + it.tag->panel;
          } else if constexpr (std::is_same_v<T, FigureCircle>) {
            it.cx += dx;
            it.cy += dy;
          } else {
            it.x += dx;
            it.y += dy;
          }
          if constexpr (std::is_same_v<T, FigureRect>)
            if (it.cell) it.cell->panel = panel_prefix + it.cell->panel;
        },
        item);
    dst.items.push_back(std::move(item));
  }
}

void figure_scale(Figure& fig, float s) {
  fig.width *= s;
  fig.height *= s;
  for (FigureItem& item : fig.items)
    std::visit(
        [s](auto& it) {
          using T = std::decay_t<decltype(it)>;
          if constexpr (std::is_same_v<T, FigureLine>) {
            for (auto& p : it.points) {
              p.x *= s;
              p.y *= s;
            }
            it.width *= s;
          } else if constexpr (std::is_same_v<T, FigureCircle>) {
            it.cx *= s;
            it.cy *= s;
            it.r *= s;
          } else if constexpr (std::is_same_v<T, FigureText>) {
            it.x *= s;
            it.y *= s;
            it.px *= s;
          } else {  // rectangles and colour bars
            it.x *= s;
            it.y *= s;
            it.w *= s;
            it.h *= s;
            if constexpr (std::is_same_v<T, FigureRect>) it.stroke_width *= s;
          }
        },
        item);
}

}  // namespace attnviz
