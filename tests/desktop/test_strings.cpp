// The UI string table: every string exists in both languages, and every character of it has a
// glyph in the font the app loads (a missing glyph shows as "?" on screen).
#include <doctest/doctest.h>

#include <string>

#include "font_find.h"
#include "shell/strings.h"
#include "text/utf8.h"

using namespace attnviz;

TEST_CASE("strings: every id has English and Korean text, and the Korean differs where it should") {
  int korean = 0;
  for (int i = 0; i < static_cast<int>(Str::count_); ++i) {
    const char* en = tr(Lang::en, static_cast<Str>(i));
    const char* ko = tr(Lang::ko, static_cast<Str>(i));
    REQUIRE(en != nullptr);
    REQUIRE(ko != nullptr);
    CHECK_MESSAGE(std::string(en).size() > 0, "empty English string " << i);
    CHECK_MESSAGE(std::string(ko).size() > 0, "empty Korean string " << i);
    for (unsigned char c : std::string(ko))
      if (c >= 0xEA && c <= 0xED) {  // lead bytes of Hangul syllables
        ++korean;
        break;
      }
  }
  CHECK(korean > static_cast<int>(Str::count_) / 2);
}

TEST_CASE("strings: every character of every string has a glyph in the app's font") {
  const auto font = font_find_and_load();
  REQUIRE_MESSAGE(font.has_value(), "no font found (fonts-nanum)");
  for (int i = 0; i < static_cast<int>(Str::count_); ++i)
    for (Lang lang : {Lang::en, Lang::ko}) {
      const std::string text = tr(lang, static_cast<Str>(i));
      for (size_t pos = 0; pos < text.size();) {
        const char32_t cp = utf8_next(text, pos);
        if (cp == ' ' || cp == '\n') continue;
        CHECK_MESSAGE(font->has_glyph(cp), "string " << i << " (" << text << ") uses U+" << std::hex
                                                      << static_cast<unsigned>(cp) << ", which the font lacks");
      }
    }
}
