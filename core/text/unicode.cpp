// Lookups by bisection in the generated tables of core/text/unicode_tables.inc, and UAX #15 canonical
// decomposition, ordering and composition on top of them. Hangul syllables are not in the tables:
// the standard defines their (de)composition arithmetically (Unicode 14, section 3.12). The word
// tokenizer's classes are the hand-written range tables at the end of the unnamed namespace.
#include "text/unicode.h"

#include <algorithm>
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

// ---- the word tokenizer's tables: hand-written from the Unicode charts for the common scripts,
// searched by bisection; rare scripts are approximated (see the Indic note).

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

constexpr Range kLetters[] = {
    {0x41, 0x5A}, {0x61, 0x7A}, {0xAA, 0xAA}, {0xB5, 0xB5}, {0xBA, 0xBA}, {0xC0, 0xD6}, {0xD8, 0xF6},
    {0xF8, 0x2C1}, {0x2C6, 0x2D1}, {0x2E0, 0x2E4}, {0x2EC, 0x2EC}, {0x2EE, 0x2EE},
    // Greek, Cyrillic, Armenian
    {0x370, 0x374}, {0x376, 0x377}, {0x37A, 0x37D}, {0x37F, 0x37F}, {0x386, 0x386}, {0x388, 0x38A},
    {0x38C, 0x38C}, {0x38E, 0x3A1}, {0x3A3, 0x3F5}, {0x3F7, 0x481}, {0x48A, 0x52F}, {0x531, 0x556},
    {0x559, 0x559}, {0x560, 0x588},
    // Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic Extended
    {0x5D0, 0x5EA}, {0x5EF, 0x5F2}, {0x620, 0x64A}, {0x66E, 0x66F}, {0x671, 0x6D3}, {0x6D5, 0x6D5},
    {0x6E5, 0x6E6}, {0x6EE, 0x6EF}, {0x6FA, 0x6FC}, {0x6FF, 0x6FF}, {0x710, 0x710}, {0x712, 0x72F},
    {0x74D, 0x7A5}, {0x7B1, 0x7B1}, {0x7CA, 0x7EA}, {0x7F4, 0x7F5}, {0x7FA, 0x7FA}, {0x800, 0x815},
    {0x840, 0x858}, {0x860, 0x86A}, {0x870, 0x887}, {0x889, 0x88E}, {0x8A0, 0x8C9},
    // (Indic U+0900..U+0DFF is classified by indic_class.) Thai, Lao, Tibetan
    {0xE01, 0xE30}, {0xE32, 0xE33}, {0xE40, 0xE46}, {0xE81, 0xEB0}, {0xEB2, 0xEB3}, {0xEBD, 0xEC6},
    {0xEDC, 0xEDF}, {0xF00, 0xF00}, {0xF40, 0xF6C}, {0xF88, 0xF8C},
    // Myanmar, Georgian, Hangul Jamo, Ethiopic, Cherokee, Canadian syllabics, Ogham, Runic
    {0x1000, 0x102A}, {0x103F, 0x103F}, {0x1050, 0x1055}, {0x105A, 0x105D}, {0x1061, 0x1061},
    {0x1065, 0x1066}, {0x106E, 0x1070}, {0x1075, 0x1081}, {0x108E, 0x108E}, {0x10A0, 0x10C5},
    {0x10C7, 0x10C7}, {0x10CD, 0x10CD}, {0x10D0, 0x10FA}, {0x10FC, 0x10FF}, {0x1100, 0x11FF},
    {0x1200, 0x135A}, {0x1380, 0x138F}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD}, {0x1401, 0x166C},
    {0x166F, 0x167F}, {0x1681, 0x169A}, {0x16A0, 0x16EA}, {0x16F1, 0x16F8},
    // Tagalog..Khmer, Mongolian, Limbu, Tai Le, Buginese, Balinese, Sundanese, Ol Chiki, phonetic
    {0x1700, 0x1711}, {0x171F, 0x1731}, {0x1740, 0x1751}, {0x1760, 0x1770}, {0x1780, 0x17B3},
    {0x17D7, 0x17D7}, {0x17DC, 0x17DC}, {0x1820, 0x1878}, {0x1880, 0x1884}, {0x1887, 0x18A8},
    {0x18AA, 0x18AA}, {0x18B0, 0x18F5}, {0x1900, 0x191E}, {0x1950, 0x196D}, {0x1970, 0x1974},
    {0x1980, 0x19AB}, {0x19B0, 0x19C9}, {0x1A00, 0x1A16}, {0x1A20, 0x1A54}, {0x1B05, 0x1B33},
    {0x1B45, 0x1B4C}, {0x1B83, 0x1BA0}, {0x1BAE, 0x1BAF}, {0x1BBA, 0x1BE5}, {0x1C00, 0x1C23},
    {0x1C4D, 0x1C4F}, {0x1C5A, 0x1C7D}, {0x1C80, 0x1C88}, {0x1C90, 0x1CBA}, {0x1CBD, 0x1CBF},
    {0x1D00, 0x1DBF},
    // Latin Extended Additional, Greek Extended (its spacing accents are left out)
    {0x1E00, 0x1F15}, {0x1F18, 0x1F1D}, {0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57},
    {0x1F59, 0x1F59}, {0x1F5B, 0x1F5B}, {0x1F5D, 0x1F5D}, {0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4},
    {0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC}, {0x1FD0, 0x1FD3},
    {0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC},
    // Super/subscript letters, letterlike symbols that are letters, Glagolitic..Tifinagh
    {0x2071, 0x2071}, {0x207F, 0x207F}, {0x2090, 0x209C}, {0x2102, 0x2102}, {0x2107, 0x2107},
    {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124}, {0x2126, 0x2126},
    {0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2139}, {0x213C, 0x213F}, {0x2145, 0x2149},
    {0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2CE4}, {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF3},
    {0x2D00, 0x2D25}, {0x2D27, 0x2D27}, {0x2D2D, 0x2D2D}, {0x2D30, 0x2D67}, {0x2D6F, 0x2D6F},
    {0x2D80, 0x2DDE},
    // CJK: iteration marks, Hangzhou numerals, kana, bopomofo, compatibility jamo, ideographs
    {0x3005, 0x3007}, {0x3021, 0x3029}, {0x3031, 0x3035}, {0x3038, 0x303C}, {0x3041, 0x3096},
    {0x309B, 0x309F}, {0x30A1, 0x30FA}, {0x30FC, 0x30FF}, {0x3105, 0x312F}, {0x3131, 0x318E},
    {0x31A0, 0x31BF}, {0x31F0, 0x31FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
    // Yi, Lisu, Vai, Cyrillic Ext-B, Bamum, Latin Ext-D, Hangul Jamo Ext-A, Latin Ext-E, Cherokee
    {0xA000, 0xA48C}, {0xA4D0, 0xA4FD}, {0xA500, 0xA60C}, {0xA610, 0xA61F}, {0xA62A, 0xA62B},
    {0xA640, 0xA66E}, {0xA67F, 0xA69D}, {0xA6A0, 0xA6EF}, {0xA717, 0xA71F}, {0xA722, 0xA788},
    {0xA78B, 0xA7FF}, {0xA840, 0xA873}, {0xA960, 0xA97C}, {0xAB30, 0xAB5A}, {0xAB5C, 0xAB69},
    {0xAB70, 0xABE2},
    // Hangul syllables, Jamo Ext-B, CJK compatibility, presentation forms, fullwidth/halfwidth
    {0xAC00, 0xD7A3}, {0xD7B0, 0xD7C6}, {0xD7CB, 0xD7FB}, {0xF900, 0xFAFF}, {0xFB00, 0xFB06},
    {0xFB13, 0xFB17}, {0xFB1D, 0xFB1D}, {0xFB1F, 0xFB28}, {0xFB2A, 0xFB4F}, {0xFB50, 0xFBB1},
    {0xFBD3, 0xFD3D}, {0xFD50, 0xFDC7}, {0xFDF0, 0xFDFB}, {0xFE70, 0xFEFC}, {0xFF21, 0xFF3A},
    {0xFF41, 0xFF5A}, {0xFF66, 0xFFBE}, {0xFFC2, 0xFFDC},
    // Supplementary planes: Linear B, Old Italic, Gothic, Deseret, kana supplement, math
    // alphanumerics, Adlam, CJK extensions B..H
    {0x10000, 0x100FA}, {0x10300, 0x1034A}, {0x10400, 0x1049D}, {0x1B000, 0x1B2FB},
    {0x1D400, 0x1D7CB}, {0x1E900, 0x1E943}, {0x20000, 0x2FA1F}, {0x30000, 0x323AF}};

constexpr Range kMarks[] = {
    {0x300, 0x36F}, {0x483, 0x489}, {0x591, 0x5BD}, {0x5BF, 0x5BF}, {0x5C1, 0x5C2}, {0x5C4, 0x5C5},
    {0x5C7, 0x5C7}, {0x610, 0x61A}, {0x64B, 0x65F}, {0x670, 0x670}, {0x6D6, 0x6DC}, {0x6DF, 0x6E4},
    {0x6E7, 0x6E8}, {0x6EA, 0x6ED}, {0x711, 0x711}, {0x730, 0x74A}, {0x7A6, 0x7B0}, {0x7EB, 0x7F3},
    {0x816, 0x82D}, {0x859, 0x85B}, {0x898, 0x89F}, {0x8CA, 0x8E1}, {0x8E3, 0x8FF},
    // (Indic U+0900..U+0DFF is classified by indic_class.)
    {0xE31, 0xE31}, {0xE34, 0xE3A}, {0xE47, 0xE4E}, {0xEB1, 0xEB1}, {0xEB4, 0xEBC}, {0xEC8, 0xECE},
    {0xF18, 0xF19}, {0xF35, 0xF35}, {0xF37, 0xF37}, {0xF39, 0xF39}, {0xF3E, 0xF3F}, {0xF71, 0xF84},
    {0xF86, 0xF87}, {0xF8D, 0xFBC}, {0xFC6, 0xFC6}, {0x102B, 0x103E}, {0x1056, 0x1059},
    {0x135D, 0x135F}, {0x1712, 0x1715}, {0x17B4, 0x17D3}, {0x17DD, 0x17DD}, {0x180B, 0x180D},
    {0x180F, 0x180F}, {0x1885, 0x1886}, {0x18A9, 0x18A9}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
    {0x20D0, 0x20FF}, {0x2CEF, 0x2CF1}, {0x2DE0, 0x2DFF}, {0x302A, 0x302F}, {0x3099, 0x309A},
    {0xA66F, 0xA672}, {0xA674, 0xA67D}, {0xA69E, 0xA69F}, {0xA6F0, 0xA6F1}, {0xA802, 0xA802},
    {0xA806, 0xA806}, {0xA80B, 0xA80B}, {0xA823, 0xA827}, {0xFB1E, 0xFB1E}, {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0x1D165, 0x1D169}, {0xE0100, 0xE01EF}};

// Indic digits (U+0966.. in each block) come from indic_class.
constexpr Range kDigits[] = {
    {0x30, 0x39}, {0x660, 0x669}, {0x6F0, 0x6F9}, {0x7C0, 0x7C9}, {0xE50, 0xE59}, {0xED0, 0xED9},
    {0xF20, 0xF29}, {0x1040, 0x1049}, {0x1090, 0x1099}, {0x17E0, 0x17E9}, {0x1810, 0x1819},
    {0x1946, 0x194F}, {0xA620, 0xA629}, {0xFF10, 0xFF19}, {0x1D7CE, 0x1D7FF}};

constexpr Range kHangul[] = {
    {0x1100, 0x11FF}, {0x3131, 0x318E}, {0xA960, 0xA97C}, {0xAC00, 0xD7A3}, {0xD7B0, 0xD7C6},
    {0xD7CB, 0xD7FB}, {0xFFA0, 0xFFBE}, {0xFFC2, 0xFFC7}, {0xFFCA, 0xFFCF}, {0xFFD2, 0xFFDC}};

constexpr Range kPunct[] = {
    {0x21, 0x23}, {0x25, 0x2A}, {0x2C, 0x2F}, {0x3A, 0x3B}, {0x3F, 0x40}, {0x5B, 0x5D}, {0x5F, 0x5F},
    {0x7B, 0x7B}, {0x7D, 0x7D}, {0xA1, 0xA1}, {0xA7, 0xA7}, {0xAB, 0xAB}, {0xB6, 0xB7}, {0xBB, 0xBB},
    {0xBF, 0xBF}, {0x37E, 0x37E}, {0x387, 0x387}, {0x55A, 0x55F}, {0x589, 0x58A}, {0x5BE, 0x5BE},
    {0x5C0, 0x5C0}, {0x5C3, 0x5C3}, {0x5C6, 0x5C6}, {0x5F3, 0x5F4}, {0x609, 0x60A}, {0x60C, 0x60D},
    {0x61B, 0x61B}, {0x61D, 0x61F}, {0x66A, 0x66D}, {0x6D4, 0x6D4}, {0x700, 0x70D}, {0x7F7, 0x7F9},
    {0x830, 0x83E}, {0x85E, 0x85E},
    // (Indic dandas come from indic_class.)
    {0xE4F, 0xE4F}, {0xE5A, 0xE5B}, {0xF04, 0xF12}, {0xF14, 0xF14}, {0xF3A, 0xF3D}, {0xF85, 0xF85},
    {0xFD0, 0xFD4}, {0xFD9, 0xFDA}, {0x104A, 0x104F}, {0x10FB, 0x10FB}, {0x1360, 0x1368},
    {0x1400, 0x1400}, {0x166E, 0x166E}, {0x169B, 0x169C}, {0x16EB, 0x16ED}, {0x1735, 0x1736},
    {0x17D4, 0x17D6}, {0x17D8, 0x17DA}, {0x1800, 0x180A}, {0x1944, 0x1945}, {0x1A1E, 0x1A1F},
    {0x1B5A, 0x1B60}, {0x1C3B, 0x1C3F}, {0x1C7E, 0x1C7F}, {0x2010, 0x2027}, {0x2030, 0x2043},
    {0x2045, 0x2051}, {0x2053, 0x205E}, {0x207D, 0x207E}, {0x208D, 0x208E}, {0x2308, 0x230B},
    {0x2329, 0x232A}, {0x2768, 0x2775}, {0x27C5, 0x27C6}, {0x27E6, 0x27EF}, {0x2983, 0x2998},
    {0x29D8, 0x29DB}, {0x29FC, 0x29FD}, {0x2CF9, 0x2CFC}, {0x2CFE, 0x2CFF}, {0x2D70, 0x2D70},
    {0x2E00, 0x2E2E}, {0x2E30, 0x2E4F}, {0x2E52, 0x2E5D}, {0x3001, 0x3003}, {0x3008, 0x3011},
    {0x3014, 0x301F}, {0x3030, 0x3030}, {0x303D, 0x303D}, {0x30A0, 0x30A0}, {0x30FB, 0x30FB},
    {0xA4FE, 0xA4FF}, {0xA60D, 0xA60F}, {0xA673, 0xA673}, {0xA67E, 0xA67E}, {0xA6F2, 0xA6F7},
    {0xA874, 0xA877}, {0xFD3E, 0xFD3F}, {0xFE10, 0xFE19}, {0xFE30, 0xFE52}, {0xFE54, 0xFE61},
    {0xFE63, 0xFE63}, {0xFE68, 0xFE68}, {0xFE6A, 0xFE6B}, {0xFF01, 0xFF03}, {0xFF05, 0xFF0A},
    {0xFF0C, 0xFF0F}, {0xFF1A, 0xFF1B}, {0xFF1F, 0xFF20}, {0xFF3B, 0xFF3D}, {0xFF3F, 0xFF3F},
    {0xFF5B, 0xFF5B}, {0xFF5D, 0xFF5D}, {0xFF5F, 0xFF65}, {0x10100, 0x10102}, {0x1039F, 0x1039F},
    {0x1E95E, 0x1E95F}};

static_assert(sorted_strictly(kLetters, range_less) && sorted_strictly(kMarks, range_less) &&
              sorted_strictly(kDigits, range_less) && sorted_strictly(kHangul, range_less) &&
              sorted_strictly(kPunct, range_less));

}  // namespace

const char* unicode_version() { return kUnicodeTablesVersion; }

UnicodeGeneralCategory unicode_general_category(char32_t c) {
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
  const auto* begin = std::begin(kCombiningRanges);
  const auto* it = std::upper_bound(begin, std::end(kCombiningRanges), c,
                                    [](char32_t v, const CombiningRange& r) { return v < r.lo; });
  return it != begin && c <= (it - 1)->hi ? (it - 1)->ccc : 0;
}

std::u32string unicode_nfd(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) decompose_into(c, out);
  // Canonical ordering: inside each run of non-starters, a stable sort by combining class. Runs
  // are short (a few marks), so an insertion sort on a parallel class array is enough.
  std::vector<int> ccc(out.size());
  for (size_t i = 0; i < out.size(); ++i) ccc[i] = unicode_combining_class(out[i]);
  for (size_t i = 1; i < out.size(); ++i) {
    if (ccc[i] == 0) continue;
    for (size_t j = i; j > 0 && ccc[j - 1] > ccc[j]; --j) {
      std::swap(ccc[j - 1], ccc[j]);
      std::swap(out[j - 1], out[j]);
    }
  }
  return out;
}

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
