// Every character class the tokenizers and the UI use, and normalisation: general categories from
// the full Unicode database (generated tables, see tests/fixtures/make_unicode_tables.py), BERT's
// classes, the word tokenizer's hand-written tables, NFD / NFC (Hangul by arithmetic), accent
// stripping and context-free full lowercasing. No UTF-8 here (core/base/utf8.h), no upper case.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz {

// The 30 two-letter general categories, in UnicodeData.txt's order. A code point that is not
// assigned, or is above U+10FFFF, is cn.
enum class UnicodeGeneralCategory {
  lu, ll, lt, lm, lo,          // letters
  mn, mc, me,                  // marks
  nd, nl, no,                  // numbers
  pc, pd, ps, pe, pi, pf, po,  // punctuation
  sm, sc, sk, so,              // symbols
  zs, zl, zp,                  // separators
  cc, cf, cs, co, cn           // other: control, format, surrogate, private use, unassigned
};

// The first letter of the general category: what regex classes like \p{L} and \p{N} test.
enum class UnicodeCategory { letter, mark, number, punctuation, symbol, separator, other };

UnicodeGeneralCategory unicode_general_category(char32_t c);
UnicodeCategory unicode_category(char32_t c);

// The Unicode version the tables were generated from, e.g. "14.0.0".
const char* unicode_version();

bool unicode_is_letter(char32_t c);  // \p{L}
bool unicode_is_number(char32_t c);  // \p{N}: Nd, Nl and No (so ٣, Ⅻ and ½ count)

// The White_Space property: what \s matches in GPT-2's pre-tokenization pattern, Rust's
// char::is_whitespace (so BERT's whitespace in Hugging Face's tokenizers) and the word tokenizer's
// spaces. (Python BERT's _is_whitespace is narrower: space, \t, \n, \r and Zs only.)
bool unicode_is_white_space(char32_t c);

// BERT's classes as Hugging Face's tokenizers (Rust) define them, which the WordPiece tokenizer
// follows. Where Python BERT's tokenization.py differs, the comment says how.
bool unicode_is_punctuation(char32_t c);    // category P*, or any ASCII non-alphanumeric symbol
                                            // (33-47, 58-64, 91-96, 123-126, so $ + < = > ^ ` | ~ too)
bool unicode_is_bert_control(char32_t c);   // any category C* (Cc Cf Cs Co Cn) except \t, \n and \r;
                                            // Python removes only Cc and Cf
bool unicode_is_bert_chinese(char32_t c);   // CJK Unified Ideographs, Extensions A-E, Compatibility;
                                            // Extension D/E from U+2B920, where Python has U+2B820

// The word tokenizer's classes: range tables written by hand for the scripts people are likely to
// type, not the database (a code point outside every table is a symbol there). They differ from
// the database classes above on thousands of rare or unassigned code points, and the sandbox's
// word splitting is pinned to them; moving it to the database is a behaviour change of its own.
// Letter, mark, digit and punct never overlap, nor overlap White_Space or category Cc.
bool unicode_is_word_letter(char32_t c);  // Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic, Thai, Hangul, kana, CJK, ...
bool unicode_is_word_mark(char32_t c);    // combining marks (U+0300..U+036F etc., variation selectors): they ride on the previous character
bool unicode_is_word_digit(char32_t c);   // decimal digits of the common scripts (ASCII, Arabic-Indic, Devanagari, fullwidth, ...)
bool unicode_is_word_punct(char32_t c);   // punctuation (P*) of the common scripts: . , ! ? ' " ( ) - 。 · 、 « » ...

// Hangul syllables, conjoining jamo (U+1100.., U+A960.., U+D7B0..), compatibility jamo, halfwidth
// jamo: what the heatmap sets upright. All of them are word letters.
bool unicode_is_hangul(char32_t c);

// Canonical combining class (0 for starters and for anything unassigned or out of range).
int unicode_combining_class(char32_t c);

// Canonical decomposition (NFD) and canonical composition (NFC) per UAX #15. Surrogates and
// values above U+10FFFF are not valid characters; they pass through unchanged as starters.
// O(n log n) at worst: a run of k marks in a scrambled order is sorted in O(k log k).
std::u32string unicode_nfd(std::u32string_view text);
std::u32string unicode_nfc(std::u32string_view text);

// The first code point of c's full canonical decomposition (c itself when it has none): a starter
// for all but a few characters (Tibetan U+0F73, U+0F75 and U+0F81 begin with a mark).
char32_t unicode_nfd_first(char32_t c);

// The primary composite NFC makes of the pair (Hangul included), or 0 when the pair does not compose.
char32_t unicode_compose(char32_t first, char32_t second);

// Canonical ordering (UAX #15, D109) of decomposed text held in `items` (a std::u32string, or a
// vector of anything whose code point `cp(item)` gives): inside each run of non-starters, a stable sort by combining class, so other
// data can ride along (a source span per character). A run already in order costs one pass; one
// out of order O(k log k).
template <class Items, class CodePoint>
void unicode_canonical_order(Items& items, CodePoint cp);

// BERT's _run_strip_accents: NFD, then drop every nonspacing mark (Mn). "Café" -> "Cafe".
std::u32string unicode_strip_accents(std::u32string_view text);

// Full lowercase mapping of one code point, without context (what Python's chr(c).lower() and
// Rust's char::to_lowercase give): "İ" (U+0130) -> "i" U+0307, two code points; "Σ" -> "σ" always,
// never the final "ς" (Hugging Face's BertNormalizer lowercases character by character, too).
struct UnicodeLower {
  char32_t cp[2] = {0, 0};
  int count = 1;  // 1 or 2
};
UnicodeLower unicode_lower(char32_t c);

// unicode_lower applied to every code point.
std::u32string unicode_lowercase(std::u32string_view text);

template <class Items, class CodePoint>
void unicode_canonical_order(Items& items, CodePoint cp) {
  std::vector<std::pair<int, typename Items::value_type>> run;  // (class, item) of one run that is out of order
  for (size_t i = 0; i < items.size();) {
    int prev = unicode_combining_class(cp(items[i]));
    if (prev == 0) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    bool ordered = true;
    for (; end < items.size(); ++end) {
      const int ccc = unicode_combining_class(cp(items[end]));
      if (ccc == 0) break;
      ordered = ordered && prev <= ccc;
      prev = ccc;
    }
    if (!ordered) {
      run.clear();
      for (size_t k = i; k < end; ++k) run.emplace_back(unicode_combining_class(cp(items[k])), std::move(items[k]));
      std::stable_sort(run.begin(), run.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t k = i; k < end; ++k) items[k] = std::move(run[k - i].second);
    }
    i = end;
  }
}

}  // namespace attnviz
