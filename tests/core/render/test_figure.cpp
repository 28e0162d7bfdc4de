// The vector figure: its SVG is well-formed XML whatever the text (escaping of <&"'> and Hangul,
// checked by reading it back with the tests' strict XML reader), heatmap cells carry their exact
// values and colours, the heads grid's PNG is the figure rasterised, and the reader itself refuses
// malformed documents.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "render/figure.h"
#include "render/heatmap.h"
#include "support/check_util.h"
#include "support/xml_reader.h"

namespace attnviz {
namespace {

using test::has;

std::string hex(Rgba c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

TEST_CASE("figure: hostile text round-trips through the SVG as the same characters") {
  const std::string hostile = "<&\"'> 그 동물은 <길>을 & \"건너지\" 않았다 ]]> &amp;";
  Figure fig;
  fig.width = 300;
  fig.height = 200;
  for (TextOrient o : {TextOrient::horizontal, TextOrient::rotated, TextOrient::stacked}) {
    FigureText t;
    t.x = 20;
    t.y = 150;
    t.text = hostile;
    t.orient = o;
    fig.items.push_back(t);
  }
  FigureRect r;
  r.w = r.h = 10;
  r.fill = Rgba{1, 2, 3, 255};
  r.cell = FigureCellTag{"<p&\"'>", 1, 2, 0.125f};
  fig.items.push_back(r);
  const std::string svg = figure_svg(fig, nullptr);
  auto root = xml_parse(svg);
  REQUIRE_MESSAGE(root.ok(), root.error());
  CHECK(root->name == "svg");
  std::vector<const XmlElement*> texts;
  xml_find_all(*root, "text", texts);
  REQUIRE(texts.size() == 3);
  CHECK(xml_all_text(*texts[0]) == hostile);
  CHECK(xml_all_text(*texts[1]) == hostile);
  // Stacked: one <tspan> per character; the spaces stay, so the text reads back whole.
  CHECK(xml_all_text(*texts[2]) == hostile);
  std::vector<const XmlElement*> rects;
  xml_find_all(*root, "rect", rects);
  const XmlElement* cell = nullptr;
  for (const XmlElement* e : rects)
    if (e->attribute("class") && *e->attribute("class") == "cell") cell = e;
  REQUIRE(cell);
  CHECK(*cell->attribute("data-panel") == "<p&\"'>");
  CHECK(std::stof(*cell->attribute("data-value")) == 0.125f);
  CHECK(*cell->attribute("fill") == "#010203");
  // Invalid UTF-8 and control characters never reach the file.
  CHECK(xml_escape(std::string("a\x01b\xff", 4)).find('\x01') == std::string::npos);
  CHECK(xml_parse("<t>" + xml_escape(std::string("a\x01\xffz", 4)) + "</t>").ok());
}

TEST_CASE("figure: the heads grid's SVG has every cell with its exact value and colour, and its PNG is the figure") {
  Mat a(2, 3), b(2, 3);
  a << 0.1f, 0.2f, 0.7f, 0.3333333f, 0.3333333f, 0.3333334f;
  b << 1.0f, 0.0f, 0.0f, 0.25f, 0.5f, 0.25f;
  HeatmapGridSpec spec;
  spec.row_labels = {"그", "it"};
  spec.col_labels = {"<a>", "동물", "&"};
  spec.panels = {HeatmapPanel{"head 1", &a, "h0"}, HeatmapPanel{"head 2", &b, "h1"}};
  spec.cmap = Colormap::magma;
  auto fig = heatmap_grid_figure(spec, nullptr);
  REQUIRE(fig.ok());
  auto root = xml_parse(figure_svg(*fig, nullptr));
  REQUIRE_MESSAGE(root.ok(), root.error());
  std::vector<const XmlElement*> rects;
  xml_find_all(*root, "rect", rects);
  int cells = 0;
  for (const XmlElement* e : rects) {
    if (!e->attribute("class")) continue;
    ++cells;
    const Mat& m = *e->attribute("data-panel") == "h0" ? a : b;
    const int r = std::stoi(*e->attribute("data-row")), c = std::stoi(*e->attribute("data-col"));
    const float v = std::stof(*e->attribute("data-value"));
    CHECK(v == m(r, c));
    CHECK(*e->attribute("fill") == hex(colormap_sample(Colormap::magma, v)));
  }
  CHECK(cells == 12);
  // The PNG is this figure drawn at scale 1, so a cell's centre has the cell's colour.
  auto img = heatmap_grid_render(spec, nullptr);
  REQUIRE(img.ok());
  CHECK(img->width == static_cast<int>(fig->width));
  const CellRect cr = heatmap_grid_cell(spec, nullptr, 1, 1, 1);
  CHECK(img->at(cr.x + 1, cr.y + 1) == colormap_sample(Colormap::magma, 0.5f));
  // A figure rasterised at 2 is twice the size.
  auto twice = figure_raster(*fig, nullptr, 2.0f);
  REQUIRE(twice.ok());
  CHECK(twice->width == 2 * img->width);
  CHECK(twice->at(2 * cr.x + 2, 2 * cr.y + 2) == colormap_sample(Colormap::magma, 0.5f));
}

// What a line's pixels must be: every pixel of the image tested against the segment (round caps,
// one pixel of anti-aliasing), as the rasteriser did before it visited only the pixels near each line.
Image lines_brute_force(const Figure& fig, float s) {
  Image img(static_cast<int>(std::ceil(fig.width * s)), static_cast<int>(std::ceil(fig.height * s)), fig.background);
  for (const FigureItem& item : fig.items) {
    const auto& l = std::get<FigureLine>(item);
    const float hw = std::max(0.5f, l.width * s * 0.5f), opacity = l.opacity * static_cast<float>(l.color.a) / 255.0f;
    for (size_t i = 1; i < l.points.size(); ++i) {
      const float ax = l.points[i - 1].x * s, ay = l.points[i - 1].y * s;
      const float dx = l.points[i].x * s - ax, dy = l.points[i].y * s - ay, len2 = dx * dx + dy * dy;
      for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
          const float px = static_cast<float>(x) + 0.5f - ax, py = static_cast<float>(y) + 0.5f - ay;
          const float t = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0f, 1.0f) : 0.0f;
          const float ex = px - t * dx, ey = py - t * dy;
          const float cov = std::clamp(hw + 0.5f - std::sqrt(ex * ex + ey * ey), 0.0f, 1.0f);
          if (cov > 0) img.blend(x, y, l.color, cov * opacity);
        }
    }
  }
  return img;
}

TEST_CASE("figure: lines at every angle rasterise to the same pixels as testing every pixel") {
  // Steep, shallow, level, upright, almost level (the row range is widest there), a point, a
  // polyline, wide and hairline, partly outside the image, translucent over each other.
  Figure fig;
  fig.width = 120;
  fig.height = 90;
  const std::vector<std::vector<FigureLine::Point>> paths = {
      {{10, 5}, {110, 85}},           {{5, 80}, {115, 70}},
      {{20, 40}, {100, 40}},          {{60, 3}, {60, 88}},
      {{3, 50}, {117, 50.01f}},       {{40, 20}, {40, 20}},
      {{10, 10}, {30, 60}, {90, 15}}, {{-20, 30}, {140, 95}},
      {{100, -10}, {70, 100}},        {{15.3f, 72.8f}, {16.1f, 12.4f}}};
  for (size_t i = 0; i < paths.size(); ++i) {
    FigureLine l;
    l.points = paths[i];
    l.color = Rgba{static_cast<uint8_t>(40 * i), 120, static_cast<uint8_t>(255 - 20 * i), 255};
    l.width = i % 3 == 0 ? 0.5f : i % 3 == 1 ? 1.5f : 6.0f;
    l.opacity = i % 2 ? 0.6f : 1.0f;
    fig.items.push_back(l);
  }
  for (const float s : {1.0f, 1.5f, 2.0f}) {
    CAPTURE(s);
    auto drawn = figure_raster(fig, nullptr, s);
    REQUIRE(drawn.ok());
    const Image want = lines_brute_force(fig, s);
    REQUIRE(drawn->width == want.width);
    REQUIRE(drawn->height == want.height);
    int differ = 0, touched = 0;
    for (int y = 0; y < want.height; ++y)
      for (int x = 0; x < want.width; ++x) {
        differ += !(drawn->at(x, y) == want.at(x, y));
        touched += !(want.at(x, y) == fig.background);
      }
    CHECK(differ == 0);
    CHECK(touched > want.width * want.height / 10);  // the lines cover a fair share of the image
  }
}

TEST_CASE("figure: the XML reader refuses malformed documents, naming the line") {
  CHECK(xml_parse("<a x=\"1\"><b/>t&amp;&#x41;&#66;</a>").ok());
  CHECK(xml_parse("<?xml version=\"1.0\"?>\n<!-- c --><a/>\n").ok());
  const char* bad[] = {"", "<a>", "<a></b>", "<a x=1/>", "<a x=\"1\" x=\"2\"/>", "<a>&foo;</a>", "<a>& b</a>",
                       "<a x=\"<\"/>", "<a/><b/>", "<!DOCTYPE a><a/>", "<a>]]></a>", "<a><![CDATA[x]]></a>", "text",
                       "<a x=\"1\"y=\"2\"/>", "<a>&#0;</a>", "<a>&#xD800;</a>", "\xff<a/>"};
  for (const char* doc : bad) {
    CAPTURE(doc);
    auto r = xml_parse(doc);
    CHECK_FALSE(r.ok());
    if (!r.ok()) CHECK(has(r.error(), "line "));
  }
}

}  // namespace
}  // namespace attnviz
