// Lookups by bisection in the generated tables of core/text/unicode_tables.inc, and UAX #15 canonical
// decomposition, ordering and composition on top of them. Hangul syllables are not in the tables:
// the standard defines their (de)composition arithmetically (Unicode 14, section 3.12). The word
// tokenizer's classes are the hand-written range tables of word_class_tables.inc.
#include "text/unicode.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace attnviz {

namespace {

struct CombiningRange {
  char32_t lo, hi;
  int ccc;
};
struct Decomposition {
  char32_t cp, first, second;  // second == 0: a singleton mapping
};
struct Composition {
  char32_t first, second, composite;
};
struct LowerMapping {
  char32_t cp, first, second;  // second == 0: a one-code-point mapping
};

#include "text/unicode_tables.inc"

constexpr char32_t kMaxCodePoint = 0x10FFFF;

// Hangul constants of section 3.12.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28;
constexpr char32_t kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

template <class T, size_t N>
constexpr bool sorted_strictly(const T (&a)[N], bool (*less)(const T&, const T&)) {
  for (size_t i = 1; i < N; ++i)
    if (!less(a[i - 1], a[i])) return false;
  return true;
}
constexpr bool run_less(const uint32_t& a, const uint32_t& b) { return (a >> 8) < (b >> 8); }
constexpr bool combining_less(const CombiningRange& a, const CombiningRange& b) {
  return a.lo <= a.hi && a.hi < b.lo && b.lo <= b.hi;
}
constexpr bool decomposition_less(const Decomposition& a, const Decomposition& b) { return a.cp < b.cp; }
constexpr bool lower_less(const LowerMapping& a, const LowerMapping& b) { return a.cp < b.cp; }
constexpr bool composition_less(const Composition& a, const Composition& b) {
  return a.first < b.first || (a.first == b.first && a.second < b.second);
}
// Bisection is only correct on sorted tables; a bad regeneration fails the build, not a lookup.
static_assert(sorted_strictly(kCategoryRuns, run_less) && kCategoryRuns[0] >> 8 == 0);
static_assert(sorted_strictly(kCombiningRanges, combining_less));
static_assert(sorted_strictly(kDecompositions, decomposition_less));
static_assert(sorted_strictly(kCompositions, composition_less));
static_assert(sorted_strictly(kLowerMappings, lower_less));

const Decomposition* decomposition_find(char32_t c) {
  const auto* end = std::end(kDecompositions);
  const auto* it = std::lower_bound(std::begin(kDecompositions), end, c,
                                    [](const Decomposition& d, char32_t v) { return d.cp < v; });
  return it != end && it->cp == c ? it : nullptr;
}

void decompose_into(char32_t c, std::u32string& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const char32_t s = c - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  const Decomposition* d = decomposition_find(c);
  if (d == nullptr) {
    out.push_back(c);
    return;
  }
  // The table holds one level; mappings nest (e.g. U+1E69 -> U+1E63 U+0307 -> s U+0323 U+0307).
  decompose_into(d->first, out);
  if (d->second != 0) decompose_into(d->second, out);
}

// The primary composite of the pair, or 0 when the pair does not compose.
char32_t compose_pair(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount)
    return a + (b - kTBase);
  const auto* end = std::end(kCompositions);
  const auto* it = std::lower_bound(std::begin(kCompositions), end, Composition{a, b, 0}, composition_less);
  return it != end && it->first == a && it->second == b ? it->composite : 0;
}

// ---- the word tokenizer's classes: range tables (word_class_tables.inc) searched by bisection,
// and a rule for the Indic blocks.

struct Range {
  char32_t lo, hi;
};

constexpr bool range_less(const Range& a, const Range& b) { return a.lo <= a.hi && a.hi < b.lo && b.lo <= b.hi; }

template <size_t N>
bool in_ranges(const Range (&r)[N], char32_t c) {
  const Range* it = std::upper_bound(r, r + N, c, [](char32_t v, const Range& x) { return v < x.lo; });
  return it != r && c <= (it - 1)->hi;
}

// Indic blocks U+0900..U+0DFF share the ISCII layout, so one rule per offset inside a 128-block
// classifies all nine scripts well enough for word breaking: a letter mistaken for a mark (or
// the reverse) still stays inside its word.
enum class IndicClass { letter, mark, digit, punct };
IndicClass indic_class(char32_t c) {
  if (c == 0x964 || c == 0x965 || c == 0x970 || c == 0xDF4) return IndicClass::punct;
  const char32_t off = c & 0x7F;
  if (off >= 0x66 && off <= 0x6F) return IndicClass::digit;
  if (off <= 0x03 || (off >= 0x3A && off <= 0x4F && off != 0x3D) || (off >= 0x51 && off <= 0x57) ||
      off == 0x62 || off == 0x63)
    return IndicClass::mark;
  return IndicClass::letter;
}
bool is_indic(char32_t c) { return c >= 0x900 && c <= 0xDFF; }

#include "text/word_class_tables.inc"

static_assert(sorted_strictly(kLetters, range_less) && sorted_strictly(kMarks, range_less) &&
              sorted_strictly(kDigits, range_less) && sorted_strictly(kHangul, range_less) &&
              sorted_strictly(kPunct, range_less));

}  // namespace

const char* unicode_version() { return kUnicodeTablesVersion; }

namespace {

// The categories of U+0000..U+00FF, read out of the runs once at compile time: the tokenizers ask
// for every character of the text, and most text is mostly Latin-1.
constexpr std::array<uint8_t, 256> make_latin1_categories() {
  std::array<uint8_t, 256> out{};
  size_t run = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    while (run + 1 < std::size(kCategoryRuns) && (kCategoryRuns[run + 1] >> 8) <= c) ++run;
    out[c] = uint8_t(kCategoryRuns[run] & 0xFF);
  }
  return out;
}
constexpr std::array<uint8_t, 256> kLatin1Categories = make_latin1_categories();

}  // namespace

UnicodeGeneralCategory unicode_general_category(char32_t c) {
  if (c < 256) return static_cast<UnicodeGeneralCategory>(kLatin1Categories[c]);
  if (c > kMaxCodePoint) return UnicodeGeneralCategory::cn;
  const uint32_t key = (static_cast<uint32_t>(c) << 8) | 0xFF;
  const uint32_t* it = std::upper_bound(std::begin(kCategoryRuns), std::end(kCategoryRuns), key);
  return static_cast<UnicodeGeneralCategory>(*(it - 1) & 0xFF);  // runs start at 0: it > begin
}

UnicodeCategory unicode_category(char32_t c) {
  using G = UnicodeGeneralCategory;
  const G g = unicode_general_category(c);
  if (g <= G::lo) return UnicodeCategory::letter;
  if (g <= G::me) return UnicodeCategory::mark;
  if (g <= G::no) return UnicodeCategory::number;
  if (g <= G::po) return UnicodeCategory::punctuation;
  if (g <= G::so) return UnicodeCategory::symbol;
  if (g <= G::zp) return UnicodeCategory::separator;
  return UnicodeCategory::other;
}

bool unicode_is_letter(char32_t c) { return unicode_category(c) == UnicodeCategory::letter; }
bool unicode_is_number(char32_t c) { return unicode_category(c) == UnicodeCategory::number; }

bool unicode_is_white_space(char32_t c) {
  // PropList.txt's White_Space list; it has not changed since Unicode 6.
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool unicode_is_punctuation(char32_t c) {
  // BERT splits on every ASCII non-letter non-digit, even the symbols ($, +, ^, ...) Unicode files
  // under S*, so "$5" becomes "$" "5" as in the reference.
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
    return true;
  return unicode_category(c) == UnicodeCategory::punctuation;
}

bool unicode_is_bert_control(char32_t c) {
  // \t \n \r are whitespace to BERT, not control, so cleaning keeps them as separators.
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  return unicode_category(c) == UnicodeCategory::other;
}

bool unicode_is_bert_chinese(char32_t c) {
  // Rust's is_chinese_char ranges verbatim: not Hangul, not kana, not Extension F/G.
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool unicode_is_word_letter(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  if (is_indic(c)) return indic_class(c) == IndicClass::letter;
  return in_ranges(kLetters, c);
}

bool unicode_is_word_mark(char32_t c) {
  if (c < 0x300) return false;
  if (is_indic(c)) return indic_class(c) == IndicClass::mark;
  return in_ranges(kMarks, c);
}

bool unicode_is_word_digit(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  if (is_indic(c)) return indic_class(c) == IndicClass::digit;
  return in_ranges(kDigits, c);
}

bool unicode_is_word_punct(char32_t c) {
  if (is_indic(c)) return indic_class(c) == IndicClass::punct;
  return in_ranges(kPunct, c);
}

bool unicode_is_hangul(char32_t c) { return c >= 0x1100 && in_ranges(kHangul, c); }

int unicode_combining_class(char32_t c) {
  if (c < 0x300) return 0;  // the first mark is U+0300
  const auto* begin = std::begin(kCombiningRanges);
  const auto* it = std::upper_bound(begin, std::end(kCombiningRanges), c,
                                    [](char32_t v, const CombiningRange& r) { return v < r.lo; });
  return it != begin && c <= (it - 1)->hi ? (it - 1)->ccc : 0;
}

std::u32string unicode_nfd(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) decompose_into(c, out);
  unicode_canonical_order(out, [](char32_t c) { return c; });
  return out;
}

char32_t unicode_nfd_first(char32_t c) {
  if (c < 0xC0) return c;  // nothing below U+00C0 decomposes
  if (c >= kSBase && c < kSBase + kSCount) return kLBase + (c - kSBase) / kNCount;
  // Mappings nest through their first code point: U+1E69 -> U+1E63 U+0307 -> s U+0323 U+0307.
  for (const Decomposition* d = decomposition_find(c); d != nullptr; d = decomposition_find(c)) c = d->first;
  return c;
}

char32_t unicode_compose(char32_t first, char32_t second) { return compose_pair(first, second); }

std::u32string unicode_nfc(std::u32string_view text) {
  const std::u32string d = unicode_nfd(text);
  std::u32string out;
  out.reserve(d.size());
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t starter = kNone;  // index in out of the last starter, which later characters may join
  int last_ccc = 0;        // class of the last character appended to out
  for (char32_t c : d) {
    const int ccc = unicode_combining_class(c);
    if (starter != kNone) {
      // c reaches the starter unless a character in between has class 0 or >= c's class.
      const bool adjacent = out.size() == starter + 1;
      if (adjacent || (last_ccc != 0 && last_ccc < ccc)) {
        const char32_t composite = compose_pair(out[starter], c);
        if (composite != 0) {
          out[starter] = composite;
          continue;
        }
      }
    }
    if (ccc == 0) starter = out.size();
    last_ccc = ccc;
    out.push_back(c);
  }
  return out;
}

std::u32string unicode_strip_accents(std::u32string_view text) {
  std::u32string out = unicode_nfd(text);
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](char32_t c) { return unicode_general_category(c) == UnicodeGeneralCategory::mn; }),
            out.end());
  return out;
}

UnicodeLower unicode_lower(char32_t c) {
  UnicodeLower out;
  out.cp[0] = c;
  const auto* end = std::end(kLowerMappings);
  const auto* it = std::lower_bound(std::begin(kLowerMappings), end, c,
                                    [](const LowerMapping& m, char32_t v) { return m.cp < v; });
  if (it == end || it->cp != c) return out;
  out.cp[0] = it->first;
  if (it->second != 0) {
    out.cp[1] = it->second;
    out.count = 2;
  }
  return out;
}

std::u32string unicode_lowercase(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    const UnicodeLower l = unicode_lower(c);
    out.append(l.cp, static_cast<size_t>(l.count));
  }
  return out;
}

}  // namespace attnviz
