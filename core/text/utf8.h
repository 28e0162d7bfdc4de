// UTF-8 decoding, encoding and repair, and the small character classes the tokenizer and the UI
// need. The classes are range tables for the scripts people are likely to type, not the full
// Unicode database: a code point outside every table counts as a symbol. No normalisation here.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attnviz {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Replaces every invalid sequence (bad lead byte, truncated sequence, overlong form, surrogate,
// > U+10FFFF) with U+FFFD, one U+FFFD per maximal invalid subpart (Unicode 15, section 3.9,
// "U+FFFD Substitution of Maximal Subparts"). Valid input comes back byte for byte.
std::string utf8_sanitize(std::string_view bytes);

// True when utf8_sanitize would return the input unchanged.
bool utf8_is_valid(std::string_view bytes);

// Offset of the first byte of the first invalid sequence, or npos when the bytes are valid UTF-8.
size_t utf8_invalid_at(std::string_view bytes);

// Decodes the code point at `pos` of VALID utf-8 and advances pos. Given invalid bytes anyway it
// returns U+FFFD and skips the maximal invalid subpart, so it never reads past the end or stalls.
// pos must be < valid.size(); at the end it returns 0 and leaves pos alone.
char32_t utf8_next(std::string_view valid, size_t& pos);

// Appends cp encoded as UTF-8; a surrogate or a value above U+10FFFF appends U+FFFD instead.
void utf8_append(std::string& out, char32_t cp);

// Number of code points in valid utf-8.
size_t utf8_count(std::string_view valid);

// Character classes used by the tokenizer (and later the UI). letter, mark, digit, space and
// control are disjoint; punctuation and symbols are whatever is left (see tokenizer.cpp).
bool cp_is_space(char32_t c);    // ASCII whitespace, NEL, NBSP, U+1680, U+2000..U+200A, U+2028/9, U+202F, U+205F, U+3000
bool cp_is_letter(char32_t c);   // Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic, Thai, Hangul, kana, CJK, ...
bool cp_is_mark(char32_t c);     // combining marks (U+0300..U+036F etc., variation selectors): they ride on the previous character
bool cp_is_digit(char32_t c);    // decimal digits of any script (ASCII, Arabic-Indic, Devanagari, fullwidth, ...)
bool cp_is_hangul(char32_t c);   // Hangul syllables, conjoining jamo (U+1100.., U+A960.., U+D7B0..), compatibility jamo, halfwidth
bool cp_is_control(char32_t c);  // C0/C1 controls incl. NUL and DEL, except those that are spaces (TAB, LF, NEL...)
bool cp_is_punct(char32_t c);    // Unicode punctuation (P*): . , ! ? ' " ( ) - 。 · 、 « » ...

}  // namespace attnviz
