// Text rasterisation with the real Nanum font (found through fontconfig) and the ASCII fallback:
// ink lands where the text box says, widths agree with drawing, truncation and bad fonts.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "base/file_io.h"
#include "font_find.h"
#include "render/text_raster.h"

using namespace attnviz;

namespace {

const Rgba kWhite{255, 255, 255, 255};
const Rgba kBlack{0, 0, 0, 255};

struct Ink {
  int count = 0, x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;  // bounding box, inclusive
};

Ink ink_of(const Image& img) {
  Ink k;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      if (img.at(x, y) != kWhite) {
        ++k.count;
        k.x0 = std::min(k.x0, x);
        k.y0 = std::min(k.y0, y);
        k.x1 = std::max(k.x1, x);
        k.y1 = std::max(k.y1, y);
      }
  return k;
}

const FontRaster& raster_font() {
  // Loaded once for the whole test binary; reading a 4 MB font per test case is wasteful.
  static const std::optional<FontRaster> font = font_find_and_load();
  REQUIRE(font.has_value());
  return *font;
}

}  // namespace

TEST_CASE("font_find: fontconfig finds a Nanum font that covers Hangul") {
  auto path = font_find_path();
  REQUIRE(path.has_value());
  CHECK(path->find("Nanum") != std::string::npos);
  CHECK(raster_font().has_glyph(U'동'));
  CHECK(raster_font().has_glyph(U'a'));
  CHECK_FALSE(raster_font().has_glyph(0x10FFFD));  // private use plane: no font has it
}

TEST_CASE("text: Hangul and Latin draw ink inside their text box with the Nanum font") {
  for (const char* s : {"동물", "animal"}) {
    Image img(200, 60, kWhite);
    const int w = text_draw(img, &raster_font(), 10, 20, s, 20.0f, kBlack);
    CHECK(w > 0);
    CHECK(w == text_width(&raster_font(), s, 20.0f));
    const Ink k = ink_of(img);
    CHECK(k.count > 40);
    CHECK(k.x0 >= 10);
    CHECK(k.x1 <= 10 + w + 1);
    CHECK(k.y0 >= 20);
    CHECK(k.y1 < 20 + 20 + 2);
    CHECK(k.y1 - k.y0 >= 10);  // glyphs are not squashed
  }
  // Two Hangul syllables are about one em each; "animal" is wider than "동물".
  const int hangul = text_width(&raster_font(), "동물", 20.0f);
  CHECK(hangul >= 28);
  CHECK(hangul <= 44);
  CHECK(text_width(&raster_font(), "animal", 20.0f) > hangul);
  CHECK(text_width(&raster_font(), "", 20.0f) == 0);
  CHECK(text_width(&raster_font(), "abc", 0.0f) == 0);
}

TEST_CASE("text: fallback font draws ASCII and shows other characters as '?'") {
  Image a(100, 30, kWhite), b(100, 30, kWhite);
  const int w = text_draw(a, nullptr, 2, 2, "animal", 11.0f, kBlack);
  CHECK(w > 20);
  CHECK(ink_of(a).count > 30);
  CHECK(ink_of(a).y1 < 2 + 11 + 1);
  text_draw(a, nullptr, 50, 2, "동물", 11.0f, kBlack);
  text_draw(b, nullptr, 2, 2, "animal", 11.0f, kBlack);
  text_draw(b, nullptr, 50, 2, "??", 11.0f, kBlack);
  CHECK(a.rgba == b.rgba);
  CHECK(text_width(nullptr, "\xff\xfe", 11.0f) == text_width(nullptr, "??", 11.0f));  // malformed UTF-8
}

TEST_CASE("text: vertical text is tall and narrow, stacked Hangul is one line per syllable") {
  TextPainter painter(&raster_font(), 14.0f);
  Image img(60, 120, kWhite);
  const int w = painter.draw_vertical(img, 10, 100, "animal", kBlack);
  const Ink k = ink_of(img);
  CHECK(k.y1 <= 100);
  CHECK(k.y0 >= 100 - w - 1);
  CHECK(k.x0 >= 10);
  CHECK(k.x1 < 10 + painter.line_height() + 1);
  CHECK(k.y1 - k.y0 > 2 * (k.x1 - k.x0));

  Image stack(60, 120, kWhite);
  const int h = painter.draw_stacked(stack, 10, 100, "동물", kBlack);
  CHECK(h == 2 * painter.line_height());
  CHECK(painter.stacked_height("동물") == h);
  const Ink s = ink_of(stack);
  CHECK(s.y0 >= 100 - h);
  CHECK(s.y1 <= 100);
  CHECK(s.y1 - s.y0 > s.x1 - s.x0);
}

TEST_CASE("text: fit keeps short text and cuts long text with an ellipsis") {
  TextPainter painter(&raster_font(), 13.0f);
  CHECK(painter.fit("cat", 100) == "cat");
  const std::string cut = painter.fit("extraordinarily", 50);
  REQUIRE(cut.size() >= 3);
  CHECK(cut.substr(cut.size() - 3) == "\xE2\x80\xA6");  // "…"
  CHECK(painter.width(cut) <= 50);
  CHECK(cut.rfind("extra", 0) == 0);
  CHECK(painter.fit("extraordinarily", 2).empty());
  const std::string hangul = painter.fit("가나다라마바사", 40);  // cut on a character boundary
  CHECK(hangul.substr(hangul.size() - 3) == "\xE2\x80\xA6");
  CHECK((hangul.size() - 3) % 3 == 0);
  CHECK(painter.fit_stacked("가나다라마바사", 3 * painter.line_height()) == "가나\xE2\x8B\xAE");
  CHECK(text_fit(nullptr, "extraordinarily", 11.0f, 40).find("...") != std::string::npos);
}

TEST_CASE("font_load: rejects data that is not a usable font") {
  CHECK_FALSE(font_load({}).ok());
  CHECK_FALSE(font_load(std::vector<uint8_t>(1000, 0x41)).ok());
  auto path = font_find_path();
  REQUIRE(path.has_value());
  auto bytes = file_read_bytes(*path);
  REQUIRE(bytes.ok());
  std::vector<uint8_t> header_only(bytes->begin(), bytes->begin() + 100);  // directory cut short
  auto bad = font_load(header_only);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("directory is truncated") != std::string::npos);
  std::vector<uint8_t> truncated(bytes->begin(), bytes->begin() + 4000);  // tables cut short
  bad = font_load(truncated);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("outside the file") != std::string::npos);
  CHECK(font_load(*bytes).ok());
}
