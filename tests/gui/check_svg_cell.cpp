// GUI test helper: one heatmap cell of an exported SVG, found by its tags, has its fill colour in
// a PNG that rsvg-convert rendered from that SVG (at any scale), sampled in its top middle (clear
// of the printed value). Usage:
//   check_svg_cell SVG PNG PANEL ROW COL
// The SVG is read with the tests' strict XML reader, so a malformed file fails here too.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/xml_reader.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#include <stb/stb_image.h>

int main(int argc, char** argv) {
  using namespace attnviz;
  if (argc != 6) {
    std::fprintf(stderr, "usage: check_svg_cell SVG PNG PANEL ROW COL\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto root = xml_parse(ss.str());
  if (!root) {
    std::fprintf(stderr, "check_svg_cell: %s: %s\n", argv[1], root.error().c_str());
    return 1;
  }
  std::vector<const XmlElement*> rects;
  xml_find_all(*root, "rect", rects);
  const XmlElement* cell = nullptr;
  for (const XmlElement* r : rects) {
    const std::string* p = r->attribute("data-panel");
    if (p && *p == argv[3] && *r->attribute("data-row") == argv[4] && *r->attribute("data-col") == argv[5]) cell = r;
  }
  if (!cell) {
    std::fprintf(stderr, "check_svg_cell: no cell %s (%s, %s) in %s\n", argv[3], argv[4], argv[5], argv[1]);
    return 1;
  }
  const double svg_w = std::atof(root->attribute("width")->c_str());
  const double x = std::atof(cell->attribute("x")->c_str()), y = std::atof(cell->attribute("y")->c_str());
  const double w = std::atof(cell->attribute("width")->c_str()), h = std::atof(cell->attribute("height")->c_str());
  const std::string fill = *cell->attribute("fill");
  unsigned want = 0;
  if (fill.size() != 7 || std::sscanf(fill.c_str() + 1, "%x", &want) != 1) {
    std::fprintf(stderr, "check_svg_cell: fill '%s' is not #rrggbb\n", fill.c_str());
    return 1;
  }
  int pw = 0, ph = 0, n = 0;
  unsigned char* px = stbi_load(argv[2], &pw, &ph, &n, 4);
  if (!px) {
    std::fprintf(stderr, "check_svg_cell: cannot read %s\n", argv[2]);
    return 1;
  }
  const double s = pw / svg_w;
  // Above the printed value, below any outline: the cell's own colour.
  const int cx = static_cast<int>((x + w / 2) * s), cy = static_cast<int>((y + h * 0.18) * s);
  const unsigned char* p = px + (static_cast<size_t>(cy) * static_cast<size_t>(pw) + static_cast<size_t>(cx)) * 4;
  const int got[3] = {p[0], p[1], p[2]};
  const int exp[3] = {static_cast<int>(want >> 16 & 255), static_cast<int>(want >> 8 & 255), static_cast<int>(want & 255)};
  stbi_image_free(px);
  for (int i = 0; i < 3; ++i)
    if (std::abs(got[i] - exp[i]) > 2) {
      std::fprintf(stderr, "check_svg_cell: pixel (%d, %d) is #%02x%02x%02x, the cell's fill is %s\n", cx, cy, got[0], got[1], got[2],
                   fill.c_str());
      return 1;
    }
  std::printf("check_svg_cell: cell %s (%s, %s) is %s at (%d, %d) of the rendered PNG\n", argv[3], argv[4], argv[5], fill.c_str(), cx,
              cy);
  return 0;
}
