// The vector figure: its SVG is well-formed XML whatever the text (escaping of <&"'> and Hangul,
// checked by reading it back with the tests' strict XML reader), heatmap cells carry their exact
// values and colours, the heads grid's PNG is the figure rasterised, and the reader itself refuses
// malformed documents.
#include <doctest/doctest.h>

#include <string>

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
