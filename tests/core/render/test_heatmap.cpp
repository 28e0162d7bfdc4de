// Heatmap grid figures: cells carry exactly the colour-map colour of their value, annotations and
// labels put ink where expected, and bad specs are clear errors before anything is drawn.
#include <doctest/doctest.h>

#include <stb/stb_image.h>

#include <algorithm>
#include <utility>

#include "font_find.h"
#include "render/heatmap.h"

using namespace attnviz;

namespace {

const FontRaster* nanum() {
  static const std::optional<FontRaster> font = font_find_and_load();
  return font ? &*font : nullptr;
}

Mat known_3x3() {
  Mat m(3, 3);
  m << 0.10f, 0.50f, 0.90f,
       0.00f, 0.25f, 0.75f,
       1.00f, 0.05f, 0.60f;
  return m;
}

HeatmapGridSpec spec_3x3(const Mat* a, const Mat* b) {
  HeatmapGridSpec spec;
  spec.row_labels = {"The", "animal", "tired"};
  spec.col_labels = {"동물", "it", "was"};
  spec.panels = {{.title = "head 1", .weights = a, .id = ""}, {.title = "head 2", .weights = b, .id = ""}};
  spec.caption = "layer 1 — 2 heads — scaled_dot";
  return spec;
}

// Luminance of the lightest and darkest pixel inside r (antialiased glyph strokes are rarely
// fully opaque, so text is detected by contrast, not by exact colour).
std::pair<float, float> luminance_range(const Image& img, const CellRect& r) {
  float lo = 1.0f, hi = 0.0f;
  for (int y = r.y; y < r.y + r.h; ++y)
    for (int x = r.x; x < r.x + r.w; ++x) {
      const float l = rgba_luminance(img.at(x, y));
      lo = std::min(lo, l);
      hi = std::max(hi, l);
    }
  return {lo, hi};
}

}  // namespace

TEST_CASE("heatmap: every cell's corner pixel is exactly the colour of its value") {
  const Mat a = known_3x3();
  const Mat b = Mat(known_3x3().transpose());
  for (const FontRaster* font : {nanum(), static_cast<const FontRaster*>(nullptr)}) {
    for (Colormap cmap : {Colormap::viridis, Colormap::magma, Colormap::high_contrast}) {
      HeatmapGridSpec spec = spec_3x3(&a, &b);
      spec.cmap = cmap;
      auto img = heatmap_grid_render(spec, font);
      REQUIRE(img.ok());
      for (int p = 0; p < 2; ++p)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) {
            const CellRect cell = heatmap_grid_cell(spec, font, p, r, c);
            REQUIRE(cell.w == 22);
            REQUIRE(cell.h == 22);
            const Rgba want = colormap_sample(cmap, (p == 0 ? a : b)(r, c));
            // Corners are clear of the centred annotation.
            CHECK(img->at(cell.x + 1, cell.y + 1) == want);
            CHECK(img->at(cell.x + cell.w - 2, cell.y + cell.h - 2) == want);
          }
    }
  }
}

TEST_CASE("heatmap: vmin/vmax map the range, scale multiplies cell size") {
  Mat m(1, 2);
  m << -1.0f, 3.0f;
  HeatmapGridSpec spec;
  spec.row_labels = {"q"};
  spec.col_labels = {"k1", "k2"};
  spec.panels = {{.title = "", .weights = &m, .id = ""}};
  spec.vmin = -1.0f;
  spec.vmax = 3.0f;
  spec.scale = 2.0f;
  auto img = heatmap_grid_render(spec, nanum());
  REQUIRE(img.ok());
  const CellRect lo = heatmap_grid_cell(spec, nanum(), 0, 0, 0), hi = heatmap_grid_cell(spec, nanum(), 0, 0, 1);
  CHECK(lo.w == 44);
  CHECK(hi.x == lo.x + 44);
  CHECK(img->at(lo.x + 2, lo.y + 2) == colormap_sample(Colormap::viridis, 0.0f));
  CHECK(img->at(hi.x + 2, hi.y + 2) == colormap_sample(Colormap::viridis, 1.0f));
}

TEST_CASE("heatmap: annotations are white on dark cells and black on light cells") {
  const Mat a = known_3x3();
  HeatmapGridSpec spec = spec_3x3(&a, &a);
  spec.cell_px = 30;
  auto img = heatmap_grid_render(spec, nanum());
  REQUIRE(img.ok());
  const CellRect dark = heatmap_grid_cell(spec, nanum(), 0, 0, 0);   // 0.10: dark purple
  const CellRect light = heatmap_grid_cell(spec, nanum(), 0, 0, 2);  // 0.90: yellow-green
  const float dark_fill = rgba_luminance(colormap_sample(Colormap::viridis, 0.10f));   // ~0.17
  const float light_fill = rgba_luminance(colormap_sample(Colormap::viridis, 0.90f));  // ~0.75
  CHECK(luminance_range(*img, dark).second > 0.7f);    // white strokes on the dark cell
  CHECK(luminance_range(*img, dark).first == doctest::Approx(dark_fill));  // never darker than the fill
  CHECK(luminance_range(*img, light).first < 0.3f);    // black strokes on the light cell
  CHECK(luminance_range(*img, light).second == doctest::Approx(light_fill));
  // A masked (exactly zero) cell is left blank.
  const CellRect zero = heatmap_grid_cell(spec, nanum(), 0, 1, 0);
  const auto [zlo, zhi] = luminance_range(*img, zero);
  CHECK(zlo == doctest::Approx(zhi));

  spec.annotate = false;
  auto plain = heatmap_grid_render(spec, nanum());
  REQUIRE(plain.ok());
  const Rgba fill = colormap_sample(Colormap::viridis, 0.10f);
  for (int y = dark.y; y < dark.y + dark.h; ++y)
    for (int x = dark.x; x < dark.x + dark.w; ++x) CHECK(plain->at(x, y) == fill);
}

TEST_CASE("heatmap: annotation text drops the leading zero only in the short form") {
  CHECK(heatmap_value_text(0.37f, false) == "0.37");
  CHECK(heatmap_value_text(0.37f, true) == ".37");
  CHECK(heatmap_value_text(-0.37f, true) == "-.37");
  CHECK(heatmap_value_text(1.0f, false) == "1.00");
  CHECK(heatmap_value_text(1.0f, true) == "1.0");
  CHECK(heatmap_value_text(-0.001f, false) == "0.00");
  CHECK(heatmap_value_text(0.996f, true) == "1.0");
}

TEST_CASE("heatmap: labels, titles, caption and legend put ink outside the cells") {
  const Mat a = known_3x3();
  HeatmapGridSpec spec = spec_3x3(&a, &a);
  auto img = heatmap_grid_render(spec, nanum());
  REQUIRE(img.ok());
  const CellRect first = heatmap_grid_cell(spec, nanum(), 0, 0, 0);
  const CellRect second = heatmap_grid_cell(spec, nanum(), 1, 0, 0);
  CHECK(second.y == first.y);      // two panels side by side
  CHECK(second.x > first.x + 3 * 22);
  auto ink_in = [&](CellRect r) {
    int n = 0;
    for (int y = r.y; y < r.y + r.h; ++y)
      for (int x = r.x; x < r.x + r.w; ++x) n += img->at(x, y) != Rgba{255, 255, 255, 255};
    return n;
  };
  CHECK(ink_in(CellRect{0, first.y, first.x - 2, 3 * 22}) > 50);                  // query labels
  CHECK(ink_in(CellRect{first.x, first.y - 40, 22, 38}) > 20);                    // "동물" above column 0
  CHECK(ink_in(CellRect{0, 0, img->width, 40}) > 50);                             // caption
  const int legend_x0 = second.x + 3 * 22 + 2;
  CHECK(ink_in(CellRect{legend_x0, first.y, img->width - legend_x0, 3 * 22}) > 200);  // colour bar + ticks

  spec.legend = false;
  auto narrow = heatmap_grid_render(spec, nanum());
  REQUIRE(narrow.ok());
  CHECK(narrow->width < img->width);
  spec.caption.clear();
  auto lower = heatmap_grid_render(spec, nanum());
  REQUIRE(lower.ok());
  CHECK(lower->height < narrow->height);
  CHECK(heatmap_grid_cell(spec, nanum(), 0, 0, 0).y < first.y);
}

TEST_CASE("heatmap: columns arranges panels, default is about square") {
  const Mat a = known_3x3();
  HeatmapGridSpec spec = spec_3x3(&a, &a);
  spec.panels.assign(5, HeatmapPanel{.title = "h", .weights = &a, .id = ""});
  // 5 panels, about square: 3 per row -> panel 3 starts the second row.
  CHECK(heatmap_grid_cell(spec, nanum(), 3, 0, 0).x == heatmap_grid_cell(spec, nanum(), 0, 0, 0).x);
  CHECK(heatmap_grid_cell(spec, nanum(), 3, 0, 0).y > heatmap_grid_cell(spec, nanum(), 2, 0, 0).y);
  spec.columns = 1;
  CHECK(heatmap_grid_cell(spec, nanum(), 1, 0, 0).x == heatmap_grid_cell(spec, nanum(), 0, 0, 0).x);
  spec.columns = 10;  // more than panels: one row
  CHECK(heatmap_grid_cell(spec, nanum(), 4, 0, 0).y == heatmap_grid_cell(spec, nanum(), 0, 0, 0).y);
}

TEST_CASE("heatmap: bad specs are clear errors") {
  const Mat a = known_3x3();
  Mat wrong(2, 3);
  wrong.setZero();
  auto error_of = [](const HeatmapGridSpec& s) {
    auto r = heatmap_grid_render(s, nullptr);
    return r.ok() ? std::string() : r.error();
  };
  HeatmapGridSpec spec = spec_3x3(&a, &a);
  CHECK(error_of(spec).empty());

  HeatmapGridSpec s = spec;
  s.panels.clear();
  CHECK(error_of(s).find("no panels") != std::string::npos);
  s = spec;
  s.row_labels.clear();
  CHECK(error_of(s).find("0 query labels") != std::string::npos);
  s = spec;
  s.panels[1].weights = nullptr;
  CHECK(error_of(s).find("panel 2 ('head 2') has no matrix") != std::string::npos);
  s = spec;
  s.panels[0].weights = &wrong;
  CHECK(error_of(s).find("is 2x3 but there are 3 query labels") != std::string::npos);
  s = spec;
  s.vmax = s.vmin;
  CHECK(error_of(s).find("vmin < vmax") != std::string::npos);
  s = spec;
  s.scale = 0.0f;
  CHECK_FALSE(error_of(s).empty());
  s = spec;
  s.cell_px = 0;
  CHECK_FALSE(error_of(s).empty());
  s = spec;
  s.columns = -1;
  CHECK_FALSE(error_of(s).empty());
  CHECK(heatmap_grid_cell(s, nullptr, 0, 0, 0).w == 0);
  CHECK(heatmap_grid_cell(spec, nullptr, 2, 0, 0).w == 0);  // no such panel
  CHECK(heatmap_grid_cell(spec, nullptr, 0, 3, 0).w == 0);  // no such row
}

TEST_CASE("heatmap: images beyond 16384 px per side or 256 MB are refused before allocating") {
  Mat big(40, 40);
  big.setConstant(0.5f);
  HeatmapGridSpec spec;
  spec.row_labels.assign(40, "t");
  spec.col_labels.assign(40, "t");
  spec.panels = {{.title = "", .weights = &big, .id = ""}};
  spec.cell_px = 500;  // 20000 px wide
  auto r = heatmap_grid_render(spec, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("16384 px per side") != std::string::npos);

  spec.cell_px = 22;
  spec.scale = 12.0f;  // 264 px cells: ~10600 px square, under 16384 per side but ~450 MB
  r = heatmap_grid_render(spec, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("256 MB") != std::string::npos);
  CHECK(heatmap_grid_cell(spec, nullptr, 0, 0, 0).w == 0);
}

TEST_CASE("heatmap: the rendered figure survives PNG encoding") {
  const Mat a = known_3x3();
  HeatmapGridSpec spec = spec_3x3(&a, &a);
  auto img = heatmap_grid_render(spec, nanum());
  REQUIRE(img.ok());
  auto png = png_encode(*img);
  REQUIRE(png.ok());
  int w = 0, h = 0, n = 0;
  stbi_uc* px = stbi_load_from_memory(png->data(), static_cast<int>(png->size()), &w, &h, &n, 4);
  REQUIRE(px != nullptr);
  CHECK(w == img->width);
  CHECK(h == img->height);
  const CellRect cell = heatmap_grid_cell(spec, nanum(), 1, 2, 0);
  const stbi_uc* p = px + (static_cast<size_t>(cell.y + 1) * static_cast<size_t>(w) + static_cast<size_t>(cell.x + 1)) * 4;
  const Rgba want = colormap_sample(Colormap::viridis, 1.0f);
  CHECK(Rgba{p[0], p[1], p[2], p[3]} == want);
  stbi_image_free(px);
}

TEST_CASE("heatmap: a log or square-root scale spreads small values, the first column apart is grey") {
  const Mat a = known_3x3();
  HeatmapGridSpec spec = spec_3x3(&a, &a);
  spec.color_scale.kind = ColorScale::log;
  spec.first_column_apart = true;
  auto img = heatmap_grid_render(spec, nullptr);
  REQUIRE(img.ok());
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      const CellRect cell = heatmap_grid_cell(spec, nullptr, 0, r, c);
      // Clear of the line between columns 0 and 1: column 0's left edge, the others' right edge.
      const Rgba got = c == 0 ? img->at(cell.x + 1, cell.y + 1) : img->at(cell.x + cell.w - 2, cell.y + cell.h - 2);
      CAPTURE(r);
      CAPTURE(c);
      if (c == 0) {  // the first key: greys, darker for more weight
        CHECK(got == colormap_color(Colormap::high_contrast, spec.color_scale, a(r, 0), 0.0f, 1.0f));
        CHECK((got.r == got.g && got.g == got.b));
      } else {
        CHECK(got == colormap_color(Colormap::viridis, spec.color_scale, a(r, c), 0.0f, 1.0f));
      }
    }
  // The line that sets it apart: white between column 0 and column 1 of every row.
  const CellRect first = heatmap_grid_cell(spec, nullptr, 0, 1, 0);
  CHECK(img->at(first.x + first.w, first.y + first.h / 2) == Rgba{255, 255, 255, 255});
  // 0.05 sits at 1.3 decades of 3 on the log scale, where a linear scale puts it at 0.05.
  CHECK(color_scale_position(spec.color_scale, 0.05f, 0.0f, 1.0f) == doctest::Approx(std::log(50.0) / std::log(1000.0)));
}
