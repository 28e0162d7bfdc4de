// Text onto an Image: TrueType through stb_truetype (any script the font covers, e.g. Hangul from
// Nanum), or stb_easy_font's built-in ASCII strokes when no font is available. Left-to-right text
// only: no shaping, bidi or line breaking. Finding a font on disk is the app's job (app/common/font_find.h).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "render/image.h"

namespace attnviz {

struct FontData;  // the TTF bytes + stbtt_fontinfo, kept out of this header

// A loaded font. Cheap to copy (the bytes are shared and never modified), safe to read from
// several threads.
class FontRaster {
 public:
  bool has_glyph(char32_t codepoint) const;

 private:
  friend Result<FontRaster> font_load(std::vector<uint8_t> ttf_bytes);
  friend class TextPainter;
  explicit FontRaster(std::shared_ptr<const FontData> data) : data_(std::move(data)) {}
  std::shared_ptr<const FontData> data_;
};

// Validates the bytes (font directory in bounds, stbtt_InitFont succeeds) and takes ownership.
// For collections (.ttc) the first font is used. stb_truetype trusts glyph data, so load system
// fonts, not untrusted files.
Result<FontRaster> font_load(std::vector<uint8_t> ttf_bytes);

// Draws many strings in one font and pixel size, rasterising each glyph once (with quarter-pixel
// horizontal positioning). `px` is the line height: ascent + descent. font == nullptr uses
// stb_easy_font, which has ASCII only; other characters are drawn as '?'. Not thread-safe.
class TextPainter {
 public:
  TextPainter(const FontRaster* font, float px);
  ~TextPainter();
  TextPainter(TextPainter&&) noexcept;
  TextPainter& operator=(TextPainter&&) noexcept;

  // Text with its line box's top-left at (x, y). Returns the advance width in pixels.
  int draw(Image& img, int x, int y, std::string_view utf8, Rgba color);
  // Text rotated 90° counter-clockwise (reads bottom to top): the line box occupies columns
  // [x, x + line_height()) and rows (y_bottom - width, y_bottom]. Returns the advance width.
  int draw_vertical(Image& img, int x, int y_bottom, std::string_view utf8, Rgba color);
  // Upright characters stacked top to bottom, each centred in columns [x, x + line_height()),
  // the last one ending at y_bottom: East Asian vertical writing, far easier to read for Hangul
  // and CJK than rotated text. Returns the stack's height (stacked_height()).
  int draw_stacked(Image& img, int x, int y_bottom, std::string_view utf8, Rgba color);
  int stacked_height(std::string_view utf8);
  int width(std::string_view utf8);
  int line_height() const;
  // The baseline's distance below the line box's top, and the font's em size, in pixels (for SVG
  // text, whose font-size is the em and whose y is the baseline). Estimates without a TrueType font.
  float ascent() const;
  float em() const;
  // The longest prefix that fits in max_width, with an ellipsis ("…", or "..." when the font
  // lacks it) when something was cut. Empty when not even the ellipsis fits.
  std::string fit(std::string_view utf8, int max_width);
  // The same for stacked text, cut with a vertical ellipsis ("⋮", or ":" without the glyph).
  std::string fit_stacked(std::string_view utf8, int max_height);

 private:
  struct Shortening {
    std::string ellipsis;         // the glyph when the font has it, else the fallback
    std::vector<size_t> offsets;  // byte offset of each code point of the text
  };
  Shortening shortening(std::string_view utf8, char32_t glyph, std::string_view glyph_utf8,
                        std::string_view fallback) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-off conveniences over TextPainter, with the same conventions.
int text_draw(Image& img, const FontRaster* font, int x, int y, std::string_view utf8, float px, Rgba color);
int text_draw_vertical(Image& img, const FontRaster* font, int x, int y_bottom, std::string_view utf8, float px,
                       Rgba color);
int text_width(const FontRaster* font, std::string_view utf8, float px);
std::string text_fit(const FontRaster* font, std::string_view utf8, float px, int max_width);

}  // namespace attnviz
