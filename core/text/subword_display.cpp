// Display text for checkpoint tokens.
#include "text/subword_display.h"

#include <cstdio>
#include <optional>

#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one.
size_t valid_sequence_length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  return utf8_is_valid(s.substr(i, n)) ? n : 0;
}

}  // namespace

std::string subword_visible_text(std::string_view covered) {
  std::string out;
  for (size_t i = 0; i < covered.size();) {
    const size_t n = valid_sequence_length(covered, i);
    const auto byte = static_cast<unsigned char>(covered[i]);
    const bool control = n == 1 && (byte < 0x20 || byte == 0x7f) && byte != '\t' && byte != '\n' && byte != '\r';
    if (n == 0 || control) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "<%02X>", static_cast<unsigned char>(covered[i]));
      out += hex;
      ++i;
      continue;
    }
    const char c = covered[i];
    if (n == 1 && c == ' ') out += kShownSpace;
    else if (n == 1 && c == '\t') out += kShownTab;
    else if (n == 1 && (c == '\n' || c == '\r')) out += kShownNewline;
    else out.append(covered.substr(i, n));
    i += n;
  }
  return out;
}

std::string subword_token_label(const SubwordEncoding& encoding, const SubwordToken& token) {
  const std::string& text = token.segment == 1 ? encoding.text_b : encoding.text;
  if (token.special || token.begin >= token.end || token.end > text.size()) return token.piece;
  return subword_visible_text(std::string_view(text).substr(token.begin, token.end - token.begin));
}

TokenKind subword_token_kind(const SubwordEncoding& encoding, const SubwordToken& token) {
  if (token.special) return TokenKind::special;
  const std::string& text = token.segment == 1 ? encoding.text_b : encoding.text;
  if (token.begin >= token.end || token.end > text.size()) return TokenKind::word;
  const std::string_view covered = std::string_view(text).substr(token.begin, token.end - token.begin);
  if (!utf8_is_valid(covered)) return TokenKind::word;  // a byte piece of a character
  std::optional<UnicodeCategory> shared;
  for (size_t i = 0; i < covered.size();) {
    const char32_t c = utf8_next(covered, i);
    if (unicode_is_white_space(c)) continue;
    const UnicodeCategory cat = unicode_category(c);
    if (shared && *shared != cat) return TokenKind::word;
    shared = cat;
  }
  if (!shared) return TokenKind::word;
  switch (*shared) {
    case UnicodeCategory::punctuation: return TokenKind::punct;
    case UnicodeCategory::number: return TokenKind::number;
    case UnicodeCategory::symbol: return TokenKind::symbol;
    default: return TokenKind::word;
  }
}

}  // namespace attnviz
