// fontconfig queries for font_find_path(). Each call builds its own FcConfig and frees it, so no
// fontconfig state outlives the call. Only TrueType/CFF files are accepted: stb_truetype reads
// nothing else.
#include "font_find.h"

#include <cstring>
#include <memory>
#include <strings.h>
#include <unistd.h>

#include <fontconfig/fontconfig.h>

#include "base/file_io.h"

namespace attnviz {

namespace {

struct ConfigDeleter {
  void operator()(FcConfig* c) const { FcConfigDestroy(c); }
};
struct PatternDeleter {
  void operator()(FcPattern* p) const { FcPatternDestroy(p); }
};
using ConfigPtr = std::unique_ptr<FcConfig, ConfigDeleter>;
using PatternPtr = std::unique_ptr<FcPattern, PatternDeleter>;

struct Query {
  const char* family = nullptr;   // asked-for family, or nullptr for any
  bool family_required = false;   // false for aliases such as "sans-serif", which never match by name
  const char* lang = nullptr;     // e.g. "ko"
  FcChar32 must_cover = 0;        // a character the font has to contain
};

bool family_matches(FcPattern* font, const char* family) {
  FcChar8* name = nullptr;
  for (int n = 0; FcPatternGetString(font, FC_FAMILY, n, &name) == FcResultMatch; ++n)
    if (strcasecmp(reinterpret_cast<const char*>(name), family) == 0) return true;
  return false;
}

bool readable_outline_font(FcPattern* font, std::string& path) {
  FcChar8* file = nullptr;
  if (FcPatternGetString(font, FC_FILE, 0, &file) != FcResultMatch || !file) return false;
  FcChar8* format = nullptr;
  if (FcPatternGetString(font, FC_FONTFORMAT, 0, &format) == FcResultMatch && format) {
    const char* f = reinterpret_cast<const char*>(format);
    if (std::strcmp(f, "TrueType") != 0 && std::strcmp(f, "CFF") != 0) return false;
  }
  path = reinterpret_cast<const char*>(file);
  return ::access(path.c_str(), R_OK) == 0;
}

std::optional<std::string> font_query(FcConfig* config, const Query& q) {
  PatternPtr pattern(FcPatternCreate());
  if (!pattern) return std::nullopt;
  if (q.family) FcPatternAddString(pattern.get(), FC_FAMILY, reinterpret_cast<const FcChar8*>(q.family));
  if (q.lang) {
    FcLangSet* langs = FcLangSetCreate();
    FcLangSetAdd(langs, reinterpret_cast<const FcChar8*>(q.lang));
    FcPatternAddLangSet(pattern.get(), FC_LANG, langs);  // copies
    FcLangSetDestroy(langs);
  }
  if (q.must_cover) {
    FcCharSet* chars = FcCharSetCreate();
    FcCharSetAddChar(chars, q.must_cover);
    FcPatternAddCharSet(pattern.get(), FC_CHARSET, chars);  // copies
    FcCharSetDestroy(chars);
  }
  FcPatternAddInteger(pattern.get(), FC_WEIGHT, FC_WEIGHT_REGULAR);
  FcPatternAddInteger(pattern.get(), FC_SLANT, FC_SLANT_ROMAN);
  FcPatternAddBool(pattern.get(), FC_SCALABLE, FcTrue);
  FcConfigSubstitute(config, pattern.get(), FcMatchPattern);
  FcDefaultSubstitute(pattern.get());

  FcResult result = FcResultNoMatch;
  PatternPtr font(FcFontMatch(config, pattern.get(), &result));
  if (!font || result != FcResultMatch) return std::nullopt;
  // FcFontMatch always returns its best guess, so check what was actually asked for.
  if (q.family && q.family_required && !family_matches(font.get(), q.family)) return std::nullopt;
  if (q.must_cover) {
    FcCharSet* chars = nullptr;
    if (FcPatternGetCharSet(font.get(), FC_CHARSET, 0, &chars) != FcResultMatch || !FcCharSetHasChar(chars, q.must_cover))
      return std::nullopt;
  }
  std::string path;
  if (!readable_outline_font(font.get(), path)) return std::nullopt;
  return path;
}

}  // namespace

std::optional<std::string> font_find_path() {
  ConfigPtr config(FcInitLoadConfigAndFonts());
  if (!config) return std::nullopt;
  constexpr FcChar32 kHangulGa = 0xAC00;  // 가
  const Query queries[] = {
      {"NanumGothic", true, "ko", kHangulGa},
      {"NanumBarunGothic", true, "ko", kHangulGa},
      {nullptr, false, "ko", kHangulGa},
      {"sans-serif", false, nullptr, 'A'},
  };
  for (const Query& q : queries)
    if (auto path = font_query(config.get(), q)) return path;
  return std::nullopt;
}

std::optional<FontRaster> font_find_and_load() {
  auto path = font_find_path();
  if (!path) return std::nullopt;
  auto bytes = file_read_bytes(*path, uint64_t{64} << 20);
  if (!bytes) return std::nullopt;
  auto font = font_load(std::move(*bytes));
  if (!font) return std::nullopt;
  return std::move(*font);
}

}  // namespace attnviz
