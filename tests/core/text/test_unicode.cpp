// Unicode properties and normalisation: hand-picked characters with their known answers, then every
// code point 0..U+10FFFF against per-block checksums and 300 mixed strings, both written by
// tests/fixtures/make_unicode_tables.py from Python's unicodedata; lowercasing likewise against
// str.lower() per code point.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "text/unicode.h"

using namespace attnviz;
using G = UnicodeGeneralCategory;
using C = UnicodeCategory;

namespace {

std::string fixture(const std::string& name) { return std::string(ATTNVIZ_FIXTURES) + "/unicode/" + name; }

// Same hash as the script: FNV-1a 64 over each value as 4 little-endian bytes.
void fnv_add(uint64_t& h, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    h ^= v & 0xFFu;
    h *= 0x100000001B3ull;
    v >>= 8;
  }
}

void fnv_add_text(uint64_t& h, const std::u32string& s) {
  for (char32_t c : s) fnv_add(h, static_cast<uint32_t>(c));
  fnv_add(h, 0x110000);  // separator, as in the script
}

std::u32string parse_hexes(const std::string& field) {
  std::istringstream in(field);
  std::u32string out;
  std::string word;
  while (in >> word) out.push_back(static_cast<char32_t>(std::stoul(word, nullptr, 16)));
  return out;
}

std::vector<std::string> data_lines(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("unicode: tables are Unicode 14 (Python 3.11's unicodedata)") {
  CHECK(std::string(unicode_version()) == "14.0.0");
}

TEST_CASE("unicode: general categories of real characters") {
  CHECK(unicode_general_category(U'A') == G::lu);
  CHECK(unicode_general_category(U'z') == G::ll);
  CHECK(unicode_general_category(U'\u00E9') == G::ll);   // é
  CHECK(unicode_general_category(U'\u01C5') == G::lt);   // ǅ
  CHECK(unicode_general_category(U'\u02B0') == G::lm);   // ʰ
  CHECK(unicode_general_category(U'\u4E2D') == G::lo);   // 中
  CHECK(unicode_general_category(U'\uD55C') == G::lo);   // 한
  CHECK(unicode_general_category(U'\u0301') == G::mn);
  CHECK(unicode_general_category(U'\u093E') == G::mc);   // Devanagari vowel sign AA
  CHECK(unicode_general_category(U'\u20DD') == G::me);   // combining enclosing circle
  CHECK(unicode_general_category(U'7') == G::nd);
  CHECK(unicode_general_category(U'\u0663') == G::nd);   // ٣ Arabic-Indic three
  CHECK(unicode_general_category(U'\u216B') == G::nl);   // Ⅻ
  CHECK(unicode_general_category(U'\u00BD') == G::no);   // ½
  CHECK(unicode_general_category(U'_') == G::pc);
  CHECK(unicode_general_category(U'-') == G::pd);
  CHECK(unicode_general_category(U'(') == G::ps);
  CHECK(unicode_general_category(U')') == G::pe);
  CHECK(unicode_general_category(U'\u00AB') == G::pi);   // «
  CHECK(unicode_general_category(U'\u00BB') == G::pf);   // »
  CHECK(unicode_general_category(U'\u3002') == G::po);   // 。
  CHECK(unicode_general_category(U'+') == G::sm);
  CHECK(unicode_general_category(U'\u20AC') == G::sc);   // €
  CHECK(unicode_general_category(U'^') == G::sk);
  CHECK(unicode_general_category(U'\U0001F600') == G::so);  // 😀
  CHECK(unicode_general_category(U' ') == G::zs);
  CHECK(unicode_general_category(U'\u2028') == G::zl);
  CHECK(unicode_general_category(U'\u2029') == G::zp);
  CHECK(unicode_general_category(U'\0') == G::cc);
  CHECK(unicode_general_category(U'\u200B') == G::cf);   // zero width space
  CHECK(unicode_general_category(0xD800) == G::cs);
  CHECK(unicode_general_category(0xDFFF) == G::cs);
  CHECK(unicode_general_category(U'\uE000') == G::co);
  CHECK(unicode_general_category(U'\U0010FFFD') == G::co);
  CHECK(unicode_general_category(0x0378) == G::cn);      // unassigned in Greek
  CHECK(unicode_general_category(0x10FFFF) == G::cn);    // noncharacter
  CHECK(unicode_general_category(0x110000) == G::cn);    // beyond Unicode
  CHECK(unicode_general_category(0xFFFFFFFF) == G::cn);
}

TEST_CASE("unicode: coarse categories and the regex classes") {
  CHECK(unicode_category(U'\uD55C') == C::letter);
  CHECK(unicode_category(U'\u0301') == C::mark);
  CHECK(unicode_category(U'\u0663') == C::number);
  CHECK(unicode_category(U'!') == C::punctuation);
  CHECK(unicode_category(U'\U0001F600') == C::symbol);
  CHECK(unicode_category(U'\u3000') == C::separator);
  CHECK(unicode_category(0xD800) == C::other);
  CHECK(unicode_category(0x110000) == C::other);

  CHECK(unicode_is_letter(U'\u00E9'));
  CHECK(unicode_is_letter(U'\u1112'));   // conjoining jamo ᄒ
  CHECK_FALSE(unicode_is_letter(U'3'));
  CHECK_FALSE(unicode_is_letter(U'\u0301'));
  CHECK(unicode_is_number(U'\u0663'));
  CHECK(unicode_is_number(U'\u216B'));
  CHECK(unicode_is_number(U'\u00BD'));
  CHECK(unicode_is_number(U'\uFF19'));   // fullwidth 9
  CHECK_FALSE(unicode_is_number(U'x'));
  CHECK(unicode_category(U'\u093E') == C::mark);
  CHECK(unicode_category(U'a') == C::letter);
}

TEST_CASE("unicode: White_Space (regex \\s, Rust's is_whitespace)") {
  for (char32_t c : {U' ', U'\t', U'\n', U'\r', U'\u00A0', U'\u3000', U'\u2003', U'\u1680', U'\u202F'})
    CHECK(unicode_is_white_space(c));
  // Vertical tab, form feed, NEL and the line/paragraph separators are White_Space but not Zs:
  // Python BERT's _is_whitespace would not count them.
  for (char32_t c : {U'\v', U'\f', U'\u0085', U'\u2028', U'\u2029'}) CHECK(unicode_is_white_space(c));
  for (char32_t c : {U'a', U'\u200B', U'\u180E', U'_', U'\0', U'\x1B', U'\uFEFF'}) CHECK_FALSE(unicode_is_white_space(c));
  // The property's list has not changed since Unicode 6: 25 code points.
  int count = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) count += unicode_is_white_space(c) ? 1 : 0;
  CHECK(count == 25);
}

TEST_CASE("unicode: BERT control characters (Hugging Face's Rust definition)") {
  CHECK(unicode_is_bert_control(U'\0'));
  CHECK(unicode_is_bert_control(U'\x7F'));
  CHECK(unicode_is_bert_control(U'\v'));
  CHECK(unicode_is_bert_control(U'\u0085'));
  CHECK(unicode_is_bert_control(U'\u00AD'));  // soft hyphen, Cf
  CHECK(unicode_is_bert_control(U'\u200B'));  // zero width space, Cf
  CHECK(unicode_is_bert_control(U'\uFEFF'));  // byte order mark, Cf
  CHECK_FALSE(unicode_is_bert_control(U'\t'));
  CHECK_FALSE(unicode_is_bert_control(U'\n'));
  CHECK_FALSE(unicode_is_bert_control(U'\r'));
  CHECK_FALSE(unicode_is_bert_control(U' '));
  CHECK_FALSE(unicode_is_bert_control(U'\u2028'));  // Zl: a separator
  CHECK_FALSE(unicode_is_bert_control(U'a'));
  // Rust also removes surrogates, private use and unassigned code points (Python BERT keeps them).
  CHECK(unicode_is_bert_control(0xD800));
  CHECK(unicode_is_bert_control(U'\uE000'));
  CHECK(unicode_is_bert_control(0x0378));
}

TEST_CASE("unicode: BERT punctuation is P* plus every ASCII symbol") {
  int ascii = 0;
  for (char32_t c = 0; c < 128; ++c) {
    const bool alnum = (c >= U'0' && c <= U'9') || (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z');
    const bool expected = c > 32 && c < 127 && !alnum;
    CHECK_MESSAGE(unicode_is_punctuation(c) == expected, "U+" << std::hex << static_cast<uint32_t>(c));
    ascii += unicode_is_punctuation(c) ? 1 : 0;
  }
  CHECK(ascii == 32);
  for (char32_t c : {U'\u00BF', U'\u3002', U'\u300C', U'\u2014', U'\u00AB', U'\uFF01', U'\u055D'})
    CHECK(unicode_is_punctuation(c));
  // Outside ASCII, symbols stay symbols.
  for (char32_t c : {U'\u20AC', U'\u00A9', U'\U0001F600', U'\u00D7', U'a', U'\u4E2D'})
    CHECK_FALSE(unicode_is_punctuation(c));
}

TEST_CASE("unicode: CJK ideographs follow BERT's ranges (Hugging Face's Rust definition)") {
  for (char32_t c : {U'\u4E2D', U'\u4E00', U'\u9FFF', U'\u3400', U'\u4DBF', U'\uF900', U'\uFAFF',
                     U'\U00020000', U'\U0002A6DF', U'\U0002B920', U'\U0002F800', U'\U0002FA1F'})
    CHECK(unicode_is_bert_chinese(c));
  // Hangul, kana, CJK punctuation, radicals and Extension G are not split off by BERT.
  for (char32_t c : {U'\uD55C', U'\u3042', U'\u30A2', U'\u3002', U'\u2F00', U'\U00030000', U'\U0002A6E0', U'A'})
    CHECK_FALSE(unicode_is_bert_chinese(c));
  // Rust's Extension D/E range starts at U+2B920; Python BERT's at U+2B820.
  CHECK_FALSE(unicode_is_bert_chinese(0x2B820));
  CHECK_FALSE(unicode_is_bert_chinese(0x2B91F));
}

TEST_CASE("unicode: the word tokenizer's classes") {
  // Hand-written tables, not the database: an unassigned code point can be a word letter, and a
  // rare script's letter a symbol.
  CHECK(unicode_is_word_letter(0x323AF));
  CHECK_FALSE(unicode_is_letter(0x323AF));
  CHECK(unicode_is_letter(U'\U00010C80'));  // Old Hungarian
  CHECK_FALSE(unicode_is_word_letter(U'\U00010C80'));
  for (char32_t c : {U'A', U'z', U'é', U'ß', U'ł', U'Ω', U'ж', U'א', U'ب', U'क', U'ก', U'한',
                     char32_t{0x1100}, char32_t{0x1161}, U'ㄱ', U'あ', U'ア', U'ー', U'猫', U'𠀀'})
    CHECK(unicode_is_word_letter(c));
  for (char32_t c : {U'1', U'.', U'×', U'÷', U'€', U'😀', U'。', U'·', char32_t{0x301}})
    CHECK_FALSE(unicode_is_word_letter(c));

  for (char32_t c : {char32_t{0x301}, char32_t{0x36F}, char32_t{0x94D}, char32_t{0x5B4}, char32_t{0x64E},
                     char32_t{0xFE0F}, char32_t{0x20E3}, char32_t{0x3099}})
    CHECK(unicode_is_word_mark(c));
  CHECK_FALSE(unicode_is_word_mark(U'a'));

  for (char32_t c : {U'0', U'9', U'٣', U'۴', U'५', U'๕', U'５'}) CHECK(unicode_is_word_digit(c));
  for (char32_t c : {U'a', U'²', U'½', U'Ⅳ'}) CHECK_FALSE(unicode_is_word_digit(c));

  for (char32_t c : {U'가', U'힣', char32_t{0x1100}, char32_t{0x11FF}, U'ㅎ', char32_t{0xA960}, char32_t{0xD7B0}})
    CHECK(unicode_is_hangul(c));
  for (char32_t c : {U'a', U'あ', U'猫', U'。'}) CHECK_FALSE(unicode_is_hangul(c));

  for (char32_t c : {U'.', U',', U'!', U'?', U'\'', U'"', U'(', U')', U'-', U'。', U'·', U'、', U'«', U'’', U'…',
                     U'¿', U'।'})
    CHECK(unicode_is_word_punct(c));
  for (char32_t c : {U'$', U'+', U'<', U'€', U'😀', U'a', U'1'}) CHECK_FALSE(unicode_is_word_punct(c));
}

TEST_CASE("unicode: White_Space, Cc and the word letter, mark, digit and punct never overlap") {
  size_t overlaps = 0;
  char32_t first = 0;
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    const bool separator = unicode_is_white_space(c) || unicode_general_category(c) == G::cc;
    const int n = separator + unicode_is_word_letter(c) + unicode_is_word_mark(c) + unicode_is_word_digit(c) +
                  unicode_is_word_punct(c);
    if (n > 1 && overlaps++ == 0) first = c;
    if (unicode_is_hangul(c) && !unicode_is_word_letter(c)) ++overlaps;  // Hangul is a subset of the letters
  }
  CHECK(overlaps == 0);
  CHECK(first == 0);
}

TEST_CASE("unicode: combining classes") {
  CHECK(unicode_combining_class(U'a') == 0);
  CHECK(unicode_combining_class(U'\u0301') == 230);
  CHECK(unicode_combining_class(U'\u0323') == 220);
  CHECK(unicode_combining_class(U'\u093C') == 7);   // nukta
  CHECK(unicode_combining_class(U'\u309A') == 8);   // kana semi-voiced mark
  CHECK(unicode_combining_class(U'\u0345') == 240); // ypogegrammeni
  CHECK(unicode_combining_class(U'\u093E') == 0);   // Mc, but a starter
  CHECK(unicode_combining_class(0xD800) == 0);
  CHECK(unicode_combining_class(0x110000) == 0);
}

TEST_CASE("unicode: NFD and NFC of Latin-1 accents") {
  CHECK(unicode_nfd(U"\u00E9") == U"e\u0301");
  CHECK(unicode_nfc(U"e\u0301") == U"\u00E9");
  CHECK(unicode_nfd(U"Caf\u00E9") == U"Cafe\u0301");
  CHECK(unicode_nfc(U"Cafe\u0301") == U"Caf\u00E9");
  CHECK(unicode_nfd(U"\u00C5") == U"A\u030A");
  CHECK(unicode_nfd(U"plain ASCII stays") == U"plain ASCII stays");
  CHECK(unicode_nfc(U"plain ASCII stays") == U"plain ASCII stays");
  CHECK(unicode_nfd(U"").empty());
  CHECK(unicode_nfc(U"").empty());
}

TEST_CASE("unicode: Hangul decomposes and composes by arithmetic") {
  CHECK(unicode_nfd(U"\uD55C") == U"\u1112\u1161\u11AB");          // 한 -> ᄒ ᅡ ᆫ
  CHECK(unicode_nfc(U"\u1112\u1161\u11AB") == U"\uD55C");
  CHECK(unicode_nfd(U"\uD558") == U"\u1112\u1161");                // 하: LV, no trailing consonant
  CHECK(unicode_nfc(U"\uD558\u11AB") == U"\uD55C");                // LV + T
  CHECK(unicode_nfd(U"\uAC00") == U"\u1100\u1161");                // first syllable 가
  CHECK(unicode_nfd(U"\uD7A3") == U"\u1112\u1175\u11C2");          // last syllable 힣
  CHECK(unicode_nfc(U"\u1112\u1175\u11C2") == U"\uD7A3");
  const std::u32string word = U"\uD55C\uAD6D\uC5B4";               // 한국어
  CHECK(unicode_nfd(word).size() == 8);
  CHECK(unicode_nfc(unicode_nfd(word)) == word);
  // A mark between the vowel and the final consonant blocks the LVT step only.
  CHECK(unicode_nfc(U"\u1112\u1161\u0301\u11AB") == U"\uD558\u0301\u11AB");
  // U+11A7 is TBase itself, not a trailing consonant: it must not compose.
  CHECK(unicode_nfc(U"\uD558\u11A7") == U"\uD558\u11A7");
  // Compatibility jamo (U+314E) are not conjoining and never compose.
  CHECK(unicode_nfc(U"\u314E\u314F") == U"\u314E\u314F");
}

TEST_CASE("unicode: canonical ordering, blocking, singletons and exclusions") {
  // ṩ: nested one-level mappings, marks sorted by class (220 before 230) whatever the input order.
  CHECK(unicode_nfd(U"\u1E69") == U"s\u0323\u0307");
  CHECK(unicode_nfd(U"s\u0307\u0323") == U"s\u0323\u0307");
  CHECK(unicode_nfc(U"s\u0307\u0323") == U"\u1E69");
  // a second acute is blocked by the first (same class).
  CHECK(unicode_nfc(U"a\u0301\u0301") == U"\u00E1\u0301");
  // a lower-class mark in between does not block.
  CHECK(unicode_nfc(U"a\u0332\u0301") == U"\u00E1\u0332");
  // Singletons: Angstrom and Ohm signs decompose and never come back.
  CHECK(unicode_nfd(U"\u212B\u2126") == U"A\u030A\u03A9");
  CHECK(unicode_nfc(U"\u212B\u2126") == U"\u00C5\u03A9");
  // Composition exclusion: क़ stays decomposed under NFC.
  CHECK(unicode_nfc(U"\u0958") == U"\u0915\u093C");
  // Non-starter decomposition: U+0344 -> U+0308 U+0301, never recomposed.
  CHECK(unicode_nfc(U"\u0344") == U"\u0308\u0301");
  // A mark with no starter before it stays as it is.
  CHECK(unicode_nfc(U"\u0301e") == U"\u0301e");
}

TEST_CASE("unicode: a long run of marks in any order is sorted stably by class") {
  // 230 220 226 216 over and over: out of order everywhere, equal classes kept in input order.
  const std::u32string unit = {U'\u0301', U'\u0316', char32_t{0x1D16D}, char32_t{0x1D165}};
  std::u32string run = U"e";
  for (int k = 0; k < 20000; ++k) run += unit;
  std::u32string sorted = run.substr(1);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](char32_t a, char32_t b) { return unicode_combining_class(a) < unicode_combining_class(b); });
  CHECK(unicode_nfd(run) == U"e" + sorted);
  CHECK(sorted.substr(0, 4) == std::u32string{0x1D165, 0x1D165, 0x1D165, 0x1D165});  // 216 first
  // NFC: e + U+0316 (220) is no composite; U+0301 (230) is the first not blocked, so é.
  const std::u32string composed = unicode_nfc(run);
  CHECK(composed[0] == U'\u00E9');
  CHECK(composed.size() == run.size() - 1);
}

TEST_CASE("unicode: a decomposition's first code point, and pairs that compose") {
  CHECK(unicode_nfd_first(U'a') == U'a');
  CHECK(unicode_nfd_first(U'\u00E9') == U'e');
  CHECK(unicode_nfd_first(U'\u1E69') == U's');       // two levels: U+1E63, then s
  CHECK(unicode_nfd_first(U'\uD55C') == U'\u1112');  // 한 -> ᄒ
  CHECK(unicode_nfd_first(U'\u0F73') == U'\u0F71');  // a starter whose decomposition begins with a mark
  CHECK(unicode_combining_class(unicode_nfd_first(U'\u0F73')) == 129);
  CHECK(unicode_compose(U'e', U'\u0301') == U'\u00E9');
  CHECK(unicode_compose(U'\u1100', U'\u1175') == U'\uAE30');  // ᄀ + ᅵ = 기
  CHECK(unicode_compose(U'\uAE30', U'\u11AF') == U'\uAE38');  // 기 + ᆯ = 길
  CHECK(unicode_compose(U'\u0915', U'\u093C') == 0);          // क़ is excluded from composition
  CHECK(unicode_compose(U'a', U'b') == 0);
  // U+0F73 reorders with the marks before it: the acute after it reaches the a.
  CHECK(unicode_nfc(U"a\u0F73\u0301") == U"\u00E1\u0F71\u0F72");
}

TEST_CASE("unicode: invalid code points pass through normalisation") {
  const std::u32string bad = {char32_t{0xD800}, U'e', U'\u0301', char32_t{0xDFFF}, char32_t{0x110000}};
  CHECK(unicode_nfd(bad) == std::u32string{0xD800, U'e', U'\u0301', 0xDFFF, 0x110000});
  CHECK(unicode_nfc(bad) == std::u32string{0xD800, U'\u00E9', 0xDFFF, 0x110000});
  CHECK(unicode_strip_accents(bad) == std::u32string{0xD800, U'e', 0xDFFF, 0x110000});
}

TEST_CASE("unicode: strip accents drops Mn after NFD, as BERT's uncased models do") {
  CHECK(unicode_strip_accents(U"Caf\u00E9 na\u00EFve \u00C5ngstr\u00F6m") == U"Cafe naive Angstrom");
  CHECK(unicode_strip_accents(U"Cafe\u0301") == U"Cafe");
  CHECK(unicode_strip_accents(U"\u1E69") == U"s");
  // Hangul falls apart into jamo (all Lo, none dropped): what uncased BERT really does to Korean.
  CHECK(unicode_strip_accents(U"\uD55C") == U"\u1112\u1161\u11AB");
  // Spacing marks (Mc) stay; the nukta (Mn) goes.
  CHECK(unicode_strip_accents(U"\u0915\u093C\u093E") == U"\u0915\u093E");
  // Enclosing marks (Me) are not Mn and stay.
  CHECK(unicode_strip_accents(U"1\u20DD") == U"1\u20DD");
  CHECK(unicode_strip_accents(U"\u4E2D\U0001F600") == U"\u4E2D\U0001F600");
}

TEST_CASE("unicode: every code point matches Python's unicodedata (per-block checksums)") {
  const auto lines = data_lines(fixture("blocks.txt"));
  REQUIRE(lines.size() == 0x110000 / 4096);
  int blocks_ok = 0;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    std::string start_hex, cat_hex, nfd_hex, nfc_hex;
    in >> start_hex >> cat_hex >> nfd_hex >> nfc_hex;
    const auto start = static_cast<char32_t>(std::stoul(start_hex, nullptr, 16));
    const uint64_t want_cat = std::stoull(cat_hex, nullptr, 16);
    const uint64_t want_nfd = std::stoull(nfd_hex, nullptr, 16);
    const uint64_t want_nfc = std::stoull(nfc_hex, nullptr, 16);
    uint64_t cat = 0xCBF29CE484222325ull, nfd = cat, nfc = cat, nfc_of_nfd = cat;
    for (char32_t c = start; c < start + 4096; ++c) {
      const std::u32string one(1, c);
      fnv_add(cat, static_cast<uint32_t>(unicode_general_category(c)));
      const std::u32string d = unicode_nfd(one);
      fnv_add_text(nfd, d);
      fnv_add_text(nfc, unicode_nfc(one));
      fnv_add_text(nfc_of_nfd, unicode_nfc(d));  // NFC(NFD(x)) == NFC(x) by definition
    }
    CHECK_MESSAGE(cat == want_cat, "category differs in block " << start_hex);
    CHECK_MESSAGE(nfd == want_nfd, "NFD differs in block " << start_hex);
    CHECK_MESSAGE(nfc == want_nfc, "NFC differs in block " << start_hex);
    CHECK_MESSAGE(nfc_of_nfd == want_nfc, "NFC(NFD) differs in block " << start_hex);
    blocks_ok += (cat == want_cat && nfd == want_nfd && nfc == want_nfc && nfc_of_nfd == want_nfc) ? 1 : 0;
  }
  CHECK(blocks_ok == 272);
}

TEST_CASE("unicode: 300 random mixed strings normalise as in Python") {
  const auto lines = data_lines(fixture("strings.txt"));
  REQUIRE(lines.size() == 300);
  int changed_by_nfc = 0;
  for (const std::string& line : lines) {
    const size_t bar1 = line.find('|'), bar2 = line.rfind('|');
    REQUIRE(bar1 != bar2);
    const std::u32string input = parse_hexes(line.substr(0, bar1));
    const std::u32string want_nfd = parse_hexes(line.substr(bar1 + 1, bar2 - bar1 - 1));
    const std::u32string want_nfc = parse_hexes(line.substr(bar2 + 1));
    CHECK_MESSAGE(unicode_nfd(input) == want_nfd, line);
    CHECK_MESSAGE(unicode_nfc(input) == want_nfc, line);
    CHECK_MESSAGE(unicode_nfc(want_nfd) == want_nfc, line);
    CHECK_MESSAGE(unicode_nfd(want_nfc) == want_nfd, line);
    changed_by_nfc += want_nfc != input ? 1 : 0;
  }
  // The fixture must actually exercise composition, not only pass strings through.
  CHECK(changed_by_nfc > 100);
}

TEST_CASE("unicode: lowercase is the full mapping without context") {
  CHECK(unicode_lowercase(U"ABC xyz 123") == U"abc xyz 123");
  CHECK(unicode_lowercase(U"\u00C9COLE") == U"\u00E9cole");              // École
  CHECK(unicode_lowercase(U"\u0130") == U"i\u0307");                     // İ -> i + combining dot above
  CHECK(unicode_lower(U'\u0130').count == 2);
  CHECK(unicode_lowercase(U"I") == U"i");                                 // no Turkish locale rule
  CHECK(unicode_lowercase(U"\u039F\u0394\u039F\u03A3") == U"\u03BF\u03B4\u03BF\u03C3");  // ΟΔΟΣ: no final ς
  CHECK(unicode_lowercase(U"\u0414\u0416") == U"\u0434\u0436");          // ДЖ
  CHECK(unicode_lowercase(U"\u01C5") == U"\u01C6");                      // ǅ (title case) -> ǆ
  CHECK(unicode_lowercase(U"\u212A") == U"k");                            // Kelvin sign
  CHECK(unicode_lowercase(U"\U00010400") == U"\U00010428");               // Deseret
  CHECK(unicode_lowercase(U"\u00DF\uD55C\u4E2D") == U"\u00DF\uD55C\u4E2D");  // ß, 한, 中 unchanged
  CHECK(unicode_lower(0x110000).cp[0] == 0x110000);
}

TEST_CASE("unicode: every code point lowercases as Python's str.lower (per-block checksums)") {
  const auto lines = data_lines(fixture("lowercase.txt"));
  REQUIRE(lines.size() == 0x110000 / 4096);
  int blocks_ok = 0, changed = 0;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    std::string start_hex, hash_hex;
    in >> start_hex >> hash_hex;
    const auto start = static_cast<char32_t>(std::stoul(start_hex, nullptr, 16));
    uint64_t h = 0xCBF29CE484222325ull;
    for (char32_t c = start; c < start + 4096; ++c) {
      const std::u32string lower = unicode_lowercase(std::u32string(1, c));
      changed += lower != std::u32string(1, c) ? 1 : 0;
      fnv_add_text(h, lower);
    }
    CHECK_MESSAGE(h == std::stoull(hash_hex, nullptr, 16), "lowercase differs in block " << start_hex);
    blocks_ok += h == std::stoull(hash_hex, nullptr, 16) ? 1 : 0;
  }
  CHECK(blocks_ok == 272);
  CHECK(changed == 1433);  // code points str.lower() changes in Unicode 14
}
