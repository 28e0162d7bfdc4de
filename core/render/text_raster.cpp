// TrueType rasterisation (stb_truetype, compiled here with static linkage so it cannot clash with
// ImGui's copy) and the stb_easy_font fallback. Each glyph is rendered once per painter into a
// coverage bitmap, then blended into the image through a mapping that is either upright or
// rotated 90°, so both directions share one layout loop.
#include "render/text_raster.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "base/utf8.h"

#define STB_TRUETYPE_IMPLEMENTATION
#define STBTT_STATIC
#include <stb_truetype.h>

#include <stb_easy_font.h>

namespace attnviz {

struct FontData {
  std::vector<uint8_t> bytes;
  stbtt_fontinfo info{};  // points into bytes; FontData never moves once built (held by shared_ptr)
};

namespace {

constexpr float kMaxPx = 1024.0f;         // beyond this a glyph bitmap gets silly; callers never need it
constexpr float kEasyFontUnitsPerPx = 11.0f;  // easy_font's glyphs are ~10 units tall incl. descenders

uint32_t read_be32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) | (uint32_t{b[at + 2]} << 8) | uint32_t{b[at + 3]};
}
uint16_t read_be16(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint16_t>((b[at] << 8) | b[at + 1]);
}

// stb_truetype reads table offsets without bounds checks; checking the table directory first
// turns a truncated or non-font file into an error instead of a wild read.
Status font_directory_check(const std::vector<uint8_t>& b, size_t& font_offset) {
  if (b.size() < 12) return make_error("font data is too short to be a font (" + std::to_string(b.size()) + " bytes)");
  if (b.size() > (size_t{1} << 30)) return make_error("font data is larger than 1 GiB");
  font_offset = 0;
  if (std::memcmp(b.data(), "ttcf", 4) == 0) {
    if (b.size() < 16) return make_error("font collection header is truncated");
    font_offset = read_be32(b, 12);
  }
  if (font_offset > b.size() - 12) return make_error("font collection points outside the file");
  const size_t n_tables = read_be16(b, font_offset + 4);
  if (n_tables == 0) return make_error("font has no tables");
  if (font_offset + 12 + 16 * n_tables > b.size()) return make_error("font table directory is truncated");
  for (size_t t = 0; t < n_tables; ++t) {
    const size_t rec = font_offset + 12 + 16 * t;
    const uint64_t off = read_be32(b, rec + 8), len = read_be32(b, rec + 12);
    if (off + len > b.size()) return make_error("font table " + std::to_string(t) + " lies outside the file (truncated font?)");
  }
  return Ok{};
}

// Code points plus the byte offset where each starts (and a final entry == utf8.size()).
// utf8_next turns malformed bytes into U+FFFD, so any input is safe here.
void utf8_decode_offsets(std::string_view s, std::u32string& out, std::vector<size_t>* offsets) {
  out.clear();
  if (offsets) offsets->clear();
  size_t pos = 0;
  while (pos < s.size()) {
    if (offsets) offsets->push_back(pos);
    out.push_back(utf8_next(s, pos));
  }
  if (offsets) offsets->push_back(s.size());
}

}  // namespace

bool FontRaster::has_glyph(char32_t codepoint) const {
  return data_ && stbtt_FindGlyphIndex(&data_->info, static_cast<int>(codepoint)) != 0;
}

Result<FontRaster> font_load(std::vector<uint8_t> ttf_bytes) {
  size_t offset = 0;
  if (Status s = font_directory_check(ttf_bytes, offset); !s) return make_error(s.error());
  auto data = std::make_shared<FontData>();
  data->bytes = std::move(ttf_bytes);
  const int stb_offset = stbtt_GetFontOffsetForIndex(data->bytes.data(), 0);
  if (stb_offset < 0 || static_cast<size_t>(stb_offset) != offset) return make_error("not a TrueType/OpenType font");
  if (!stbtt_InitFont(&data->info, data->bytes.data(), stb_offset))
    return make_error("the font could not be read (missing cmap, head or hhea table?)");
  return FontRaster(std::move(data));
}

// ---------------------------------------------------------------------------------------------

struct TextPainter::Impl {
  struct GlyphMetrics {
    int index = 0;
    float advance = 0.0f;  // pixels
  };
  struct GlyphBitmap {
    int x0 = 0, y0 = 0, w = 0, h = 0;  // relative to (pen, baseline)
    std::vector<uint8_t> coverage;     // w*h
  };

  std::shared_ptr<const FontData> font;  // null: stb_easy_font
  float px = 0.0f;
  float scale = 0.0f;  // TrueType units -> pixels
  int baseline = 0;
  int line_h = 0;
  std::unordered_map<char32_t, GlyphMetrics> metrics;
  std::unordered_map<uint64_t, GlyphBitmap> bitmaps;  // key: glyph index * 4 + quarter-pixel shift
  std::u32string scratch;

  Impl(const FontRaster* f, float size) {
    px = std::isfinite(size) ? std::clamp(size, 0.0f, kMaxPx) : 0.0f;
    line_h = static_cast<int>(std::ceil(px));
    if (f) font = f->data_;
    if (font && px > 0.0f) {
      scale = stbtt_ScaleForPixelHeight(&font->info, px);
      int ascent = 0, descent = 0, gap = 0;
      stbtt_GetFontVMetrics(&font->info, &ascent, &descent, &gap);
      baseline = static_cast<int>(std::lround(static_cast<float>(ascent) * scale));
    }
  }

  const GlyphMetrics& glyph_metrics(char32_t cp) {
    auto it = metrics.find(cp);
    if (it != metrics.end()) return it->second;
    GlyphMetrics m;
    m.index = stbtt_FindGlyphIndex(&font->info, static_cast<int>(cp));
    if (m.index == 0 && cp != U' ') m.index = stbtt_FindGlyphIndex(&font->info, '?');  // same fallback as easy_font
    int advance = 0, lsb = 0;
    stbtt_GetGlyphHMetrics(&font->info, m.index, &advance, &lsb);
    m.advance = static_cast<float>(advance) * scale;
    return metrics.emplace(cp, m).first->second;
  }

  const GlyphBitmap& glyph_bitmap(int index, int quarter) {
    const uint64_t key = static_cast<uint64_t>(index) * 4 + static_cast<uint64_t>(quarter);
    auto it = bitmaps.find(key);
    if (it != bitmaps.end()) return it->second;
    GlyphBitmap g;
    const float shift = static_cast<float>(quarter) * 0.25f;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    stbtt_GetGlyphBitmapBoxSubpixel(&font->info, index, scale, scale, shift, 0.0f, &x0, &y0, &x1, &y1);
    if (x1 > x0 && y1 > y0) {
      g.x0 = x0;
      g.y0 = y0;
      g.w = x1 - x0;
      g.h = y1 - y0;
      g.coverage.assign(static_cast<size_t>(g.w) * static_cast<size_t>(g.h), 0);
      stbtt_MakeGlyphBitmapSubpixel(&font->info, g.coverage.data(), g.w, g.h, g.w, scale, scale, shift, 0.0f, index);
    }
    return bitmaps.emplace(key, std::move(g)).first->second;
  }

  static char32_t printable(char32_t cp) { return (cp == U'\t' || cp == U'\n' || cp == U'\r') ? U' ' : cp; }

  // Lays out the text from pen position 0 and calls plot(u, v, coverage) for every covered pixel,
  // u along the text and v down from the line box's top. Returns the advance width.
  template <class Plot>
  int run(std::string_view utf8, bool render, Plot&& plot) {
    if (px <= 0.0f) return 0;
    utf8_decode_offsets(utf8, scratch, nullptr);
    return font ? run_truetype(render, plot) : run_easy_font(render, plot);
  }

  template <class Plot>
  int run_truetype(bool render, Plot& plot) {
    float pen = 0.0f;
    int prev = -1;
    for (char32_t raw : scratch) {
      const char32_t cp = printable(raw);
      if (cp < 0x20) continue;  // other control characters take no space
      const GlyphMetrics m = glyph_metrics(cp);
      if (prev >= 0) pen += static_cast<float>(stbtt_GetGlyphKernAdvance(&font->info, prev, m.index)) * scale;
      if (render) {
        const int ix = static_cast<int>(std::floor(pen));
        const int quarter = std::clamp(static_cast<int>((pen - static_cast<float>(ix)) * 4.0f), 0, 3);
        const GlyphBitmap& g = glyph_bitmap(m.index, quarter);
        for (int j = 0; j < g.h; ++j)
          for (int i = 0; i < g.w; ++i) {
            const uint8_t c = g.coverage[static_cast<size_t>(j) * static_cast<size_t>(g.w) + static_cast<size_t>(i)];
            if (c) plot(ix + g.x0 + i, baseline + g.y0 + j, c);
          }
      }
      pen += m.advance;
      prev = m.index;
    }
    return static_cast<int>(std::ceil(pen));
  }

  template <class Plot>
  int run_easy_font(bool render, Plot& plot) {
    const float s = px / kEasyFontUnitsPerPx;
    float pen = 0.0f;  // easy_font units
    alignas(float) char vbuf[4096];
    for (char32_t raw : scratch) {
      const char32_t cp = printable(raw);
      if (cp < 0x20) continue;
      char text[2] = {cp < 0x7F ? static_cast<char>(cp) : '?', 0};
      if (render) {
        const int quads = stb_easy_font_print(pen, 0.0f, text, nullptr, vbuf, static_cast<int>(sizeof vbuf));
        for (int q = 0; q < quads; ++q) {
          float a[2], b[2];  // vertex 0 and vertex 2 are opposite corners
          std::memcpy(a, vbuf + q * 64, sizeof a);
          std::memcpy(b, vbuf + q * 64 + 32, sizeof b);
          const int x0 = static_cast<int>(std::lround(a[0] * s)), y0 = static_cast<int>(std::lround(a[1] * s));
          const int x1 = std::max(x0 + 1, static_cast<int>(std::lround(b[0] * s)));
          const int y1 = std::max(y0 + 1, static_cast<int>(std::lround(b[1] * s)));
          for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) plot(x, y, uint8_t{255});
        }
      }
      pen += static_cast<float>(stb_easy_font_width(text));
    }
    return static_cast<int>(std::ceil(pen * s));
  }
};

TextPainter::TextPainter(const FontRaster* font, float px) : impl_(std::make_unique<Impl>(font, px)) {}
TextPainter::~TextPainter() = default;
TextPainter::TextPainter(TextPainter&&) noexcept = default;
TextPainter& TextPainter::operator=(TextPainter&&) noexcept = default;

int TextPainter::draw(Image& img, int x, int y, std::string_view utf8, Rgba color) {
  return impl_->run(utf8, true, [&](int u, int v, uint8_t c) {
    img.blend(x + u, y + v, color, static_cast<float>(c) / 255.0f);
  });
}

int TextPainter::draw_vertical(Image& img, int x, int y_bottom, std::string_view utf8, Rgba color) {
  // Counter-clockwise: the text's top faces left, its start sits at the bottom.
  return impl_->run(utf8, true, [&](int u, int v, uint8_t c) {
    img.blend(x + v, y_bottom - u, color, static_cast<float>(c) / 255.0f);
  });
}

int TextPainter::draw_stacked(Image& img, int x, int y_bottom, std::string_view utf8, Rgba color) {
  std::u32string cps;
  std::vector<size_t> offsets;
  utf8_decode_offsets(utf8, cps, &offsets);
  const int pitch = impl_->line_h;
  const int height = pitch * static_cast<int>(cps.size());
  for (size_t k = 0; k < cps.size(); ++k) {
    const std::string_view one = utf8.substr(offsets[k], offsets[k + 1] - offsets[k]);
    const int w = width(one);
    draw(img, x + (pitch - w) / 2, y_bottom - height + static_cast<int>(k) * pitch, one, color);
  }
  return height;
}

int TextPainter::stacked_height(std::string_view utf8) {
  if (impl_->px <= 0.0f) return 0;
  std::u32string cps;
  utf8_decode_offsets(utf8, cps, nullptr);
  return impl_->line_h * static_cast<int>(cps.size());
}

int TextPainter::width(std::string_view utf8) {
  return impl_->run(utf8, false, [](int, int, uint8_t) {});
}

int TextPainter::line_height() const { return impl_->line_h; }

float TextPainter::ascent() const { return impl_->font ? static_cast<float>(impl_->baseline) : impl_->px * 0.8f; }

float TextPainter::em() const {
  if (!impl_->font || impl_->px <= 0.0f) return impl_->px;
  const float per_unit = stbtt_ScaleForMappingEmToPixels(&impl_->font->info, 1.0f);  // 1 / units per em
  return per_unit > 0.0f ? impl_->scale / per_unit : impl_->px;
}

TextPainter::Shortening TextPainter::shortening(std::string_view utf8, char32_t glyph, std::string_view glyph_utf8,
                                                std::string_view fallback) const {
  Shortening s;
  const bool has_glyph = impl_->font && stbtt_FindGlyphIndex(&impl_->font->info, static_cast<int>(glyph)) != 0;
  s.ellipsis = has_glyph ? glyph_utf8 : fallback;
  std::u32string cps;
  utf8_decode_offsets(utf8, cps, &s.offsets);
  s.offsets.resize(cps.size());  // the start of each code point; the text's end is utf8.size()
  return s;
}

std::string TextPainter::fit(std::string_view utf8, int max_width) {
  if (width(utf8) <= max_width) return std::string(utf8);
  const Shortening s = shortening(utf8, 0x2026, "\xE2\x80\xA6", "...");  // …
  for (size_t k = s.offsets.size(); k-- > 0;) {
    std::string candidate(utf8.substr(0, s.offsets[k]));
    while (!candidate.empty() && candidate.back() == ' ') candidate.pop_back();
    candidate += s.ellipsis;
    if (width(candidate) <= max_width) return candidate;
  }
  return std::string();
}

std::string TextPainter::fit_stacked(std::string_view utf8, int max_height) {
  if (stacked_height(utf8) <= max_height) return std::string(utf8);
  const Shortening s = shortening(utf8, 0x22EE, "\xE2\x8B\xAE", ":");  // ⋮
  const int pitch = std::max(1, impl_->line_h);
  const int keep = max_height / pitch - 1;  // characters that fit besides the ellipsis
  if (keep < 0) return std::string();
  const size_t end = static_cast<size_t>(keep) < s.offsets.size() ? s.offsets[static_cast<size_t>(keep)] : utf8.size();
  return std::string(utf8.substr(0, end)) + s.ellipsis;
}

int text_draw(Image& img, const FontRaster* font, int x, int y, std::string_view utf8, float px, Rgba color) {
  return TextPainter(font, px).draw(img, x, y, utf8, color);
}

int text_draw_vertical(Image& img, const FontRaster* font, int x, int y_bottom, std::string_view utf8, float px,
                       Rgba color) {
  return TextPainter(font, px).draw_vertical(img, x, y_bottom, utf8, color);
}

int text_width(const FontRaster* font, std::string_view utf8, float px) {
  return TextPainter(font, px).width(utf8);
}

std::string text_fit(const FontRaster* font, std::string_view utf8, float px, int max_width) {
  return TextPainter(font, px).fit(utf8, max_width);
}

}  // namespace attnviz
