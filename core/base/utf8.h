// UTF-8 decoding, encoding, validation and repair. What a code point is (letter, space, ...) is
// core/text/unicode.h's business; no character classes and no normalisation here.
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

}  // namespace attnviz
