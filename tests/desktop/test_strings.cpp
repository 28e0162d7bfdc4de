// The UI string table: every string exists in both languages under a unique name, a string used
// as a printf format has the same conversions in both, and every character of it has a glyph in
// the font the app loads (a missing glyph shows as "?" on screen). Failures name the string.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "font_find.h"
#include "shell/printf_format.h"
#include "shell/strings.h"
#include "base/utf8.h"

using namespace attnviz;

namespace {

std::vector<Str> all_ids() {
  std::vector<Str> ids;
  for (int i = 0; i < static_cast<int>(Str::count_); ++i) ids.push_back(static_cast<Str>(i));
  return ids;
}

// As std::string: doctest prints a const char* in a message as a pointer.
std::string name_of(Str id) { return str_name(id); }
std::string lang_name(Lang lang) { return lang == Lang::ko ? "Korean" : "English"; }

std::string code_point(char32_t cp) {  // "U+2603"
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// The printf conversions of a format, each as written ("%.2f", "%s"); "%%" is a percent sign, not
// a conversion. A '%' that starts no valid conversion goes to *stray as the text from it onwards.
std::vector<std::string> printf_conversions(std::string_view s, std::vector<std::string>* stray) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 1 < s.size() && s[i + 1] == '%') {
      ++i;
      continue;
    }
    if (const auto c = printf_conversion_at(s, i)) {
      out.emplace_back(s.substr(i, c->end - i));
      i = c->end - 1;
    } else {
      size_t end = std::min(s.size(), i + 12);  // some context, cut at a character boundary
      while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
      stray->emplace_back(s.substr(i, end - i));
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s = "[";
  for (const std::string& x : v) s += (s.size() > 1 ? " " : "") + x;
  return s + "]";
}

// Plain text with a literal percent sign: shown through "%s", never used as a format, so its '%'
// need not form conversions (and must not: "99% held-out" would read as "% he" in a format).
const std::set<Str> kPlainTextWithPercent = {Str::tr_max_steps_tip, Str::rt_hint};

}  // namespace

TEST_CASE("strings: every id has English and Korean text, and the Korean differs where it should") {
  int korean = 0;
  for (Str id : all_ids()) {
    const char* en = tr(Lang::en, id);
    const char* ko = tr(Lang::ko, id);
    REQUIRE_MESSAGE(en != nullptr, name_of(id));
    REQUIRE_MESSAGE(ko != nullptr, name_of(id));
    CHECK_MESSAGE(std::string(en).size() > 0, "empty English string " << name_of(id));
    CHECK_MESSAGE(std::string(ko).size() > 0, "empty Korean string " << name_of(id));
    for (unsigned char c : std::string(ko))
      if (c >= 0xEA && c <= 0xED) {  // lead bytes of Hangul syllables
        ++korean;
        break;
      }
  }
  CHECK(korean > static_cast<int>(Str::count_) / 2);
}

TEST_CASE("strings: every id has a unique name, the one strings.def gives it") {
  std::set<std::string> names;
  for (Str id : all_ids()) {
    const std::string name = str_name(id);
    CHECK_MESSAGE(!name.empty(), "id " << static_cast<int>(id) << " has no name");
    CHECK_MESSAGE(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos,
                  "odd id name " << name);
    CHECK_MESSAGE(names.insert(name).second, "two ids named " << name);
  }
  // The name is the key: an id, its name and its text come from the same line of strings.def.
  CHECK(std::string(str_name(Str::app_title)) == "app_title");
  CHECK(std::string(str_name(Str::view_compare)) == "view_compare");
  CHECK(std::string(tr(Lang::en, Str::view_compare)) == "Compare");
  CHECK(std::string(tr(Lang::ko, Str::view_compare)) == "비교");
}

TEST_CASE("strings: English and Korean have the same printf conversions, in the same order") {
  int formats = 0;
  for (Str id : all_ids()) {
    const std::string en = tr(Lang::en, id);
    const std::string ko = tr(Lang::ko, id);
    if (kPlainTextWithPercent.count(id)) {
      CHECK_MESSAGE(en.find('%') != std::string::npos, name_of(id) << " has no '%' now: drop it from the list");
      continue;
    }
    std::vector<std::string> stray_en, stray_ko;
    const std::vector<std::string> conv_en = printf_conversions(en, &stray_en);
    const std::vector<std::string> conv_ko = printf_conversions(ko, &stray_ko);
    for (const std::string& s : stray_en)
      FAIL_CHECK(name_of(id) << ": English '%' starts no conversion (write %% for a percent sign): " << s);
    for (const std::string& s : stray_ko)
      FAIL_CHECK(name_of(id) << ": Korean '%' starts no conversion (write %% for a percent sign): " << s);
    CHECK_MESSAGE(conv_en == conv_ko, name_of(id) << ": English " << joined(conv_en) << " but Korean "
                                                   << joined(conv_ko) << "\n  en: " << en << "\n  ko: " << ko);
    if (!conv_en.empty()) ++formats;
  }
  CHECK(formats > 50);  // the parser sees the table's formats (65 when this was written)
}

TEST_CASE("strings: the conversion parser reads what printf reads") {
  std::vector<std::string> stray;
  CHECK(joined(printf_conversions("max %.2f · L%d H%d", &stray)) == "[%.2f %d %d]");
  CHECK(joined(printf_conversions("Loading %s… %d%%", &stray)) == "[%s %d]");
  CHECK(joined(printf_conversions("%-8s|%+05.1lf|%*d|%.*s|%zu|%lld", &stray)) == "[%-8s %+05.1lf %*d %.*s %zu %lld]");
  CHECK(stray.empty());
  CHECK(printf_conversions("99% held-out", &stray).size() == 1);  // "% he": a space flag, h, e
  CHECK(printf_conversions("95%).", &stray).empty());
  CHECK(stray.size() == 1);
}

TEST_CASE("strings: tr_format formats a table string in either language, at any length") {
  CHECK(tr_format(Lang::en, Str::tr_step_of, 3, 10) == "step 3 / 10");
  CHECK(tr_format(Lang::ko, Str::tr_step_of, 3, 10) == "스텝 3 / 10");
  CHECK(tr_format(Lang::en, Str::tr_heldout_value, 99.5) == "held-out 99.5%");
  CHECK(tr_format(Lang::en, Str::view_compare) == "Compare");
  const std::string error(100000, 'x');  // far past any fixed buffer
  const std::string en = tr_format(Lang::en, Str::co_no_answer, error.c_str());
  CHECK(en == "No answer: " + error);
  const std::string ko = tr_format(Lang::ko, Str::co_no_answer, error.c_str());
  CHECK(ko == "답 없음: " + error);
  CHECK(tr_format(Lang::en, Str::co_no_answer, "") == "No answer: ");
}

TEST_CASE("strings: English counts agree with 1, and only the table's words change") {
  CHECK(tr_format(Lang::en, Str::status_trace, "trained: heads1_dmodel64", 64, 1, 1, "post-norm", 1, 0.5) ==
        "trained: heads1_dmodel64 · d_model 64 · 1 head · 1 layer · post-norm · 1 token · 0.5 ms");
  CHECK(tr_format(Lang::en, Str::status_trace, "1 heads", 64, 4, 2, "pre-norm", 11, 0.5) ==
        "1 heads · d_model 64 · 4 heads · 2 layers · pre-norm · 11 tokens · 0.5 ms");  // an argument's text kept
  CHECK(tr_format(Lang::en, Str::src_summary, 32, 1, 2, 0, "scaled dot-product") ==
        "d_model 32 · 1 head · 2 layers · d_ff 0 · scaled dot-product");
  CHECK(tr_format(Lang::en, Str::st_summary, 1, 16, 1, 12) == "1 layer × 16 heads · 1 query × 12 keys");
  CHECK(tr_format(Lang::ko, Str::st_summary, 1, 16, 1, 12) == "레이어 1개 × 헤드 16개 · 쿼리 1개 × 키 12개");
  CHECK(tr_format(Lang::en, Str::loaded_model, "m", 1, 1, 8, "", 0.25) == "m: 1 layer, 1 head, d_model 8 (0.2 s)");
}

TEST_CASE("strings: every character of every string has a glyph in the app's font") {
  const auto font = font_find_and_load();
  REQUIRE_MESSAGE(font.has_value(), "no font found (fonts-nanum)");
  for (Str id : all_ids())
    for (Lang lang : {Lang::en, Lang::ko}) {
      const std::string text = tr(lang, id);
      for (size_t pos = 0; pos < text.size();) {
        const char32_t cp = utf8_next(text, pos);
        if (cp == ' ' || cp == '\n') continue;
        CHECK_MESSAGE(font->has_glyph(cp), name_of(id) << " (" << lang_name(lang) << ": " << text << ") uses "
                                                         << code_point(cp) << ", which the font lacks");
      }
    }
}
