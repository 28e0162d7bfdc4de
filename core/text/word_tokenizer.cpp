// The word tokenizer: one left-to-right pass over the sanitized text with at most two code
// points of look-ahead, so every input (one huge word, a megabyte of NULs) is linear time.
// Character classes come from unicode.h (its word tables); the rules are documented in tokenizer.h.
#include "text/word_tokenizer.h"

#include <array>

#include "text/subword_tokenizer.h"
#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

constexpr char32_t kEnd = 0xFFFFFFFF;  // past the end of the text: belongs to no class
constexpr char32_t kZwj = 0x200D;

// The code point at pos (kEnd past the end) and, in `after`, where the next one starts.
char32_t peek(std::string_view s, size_t pos, size_t& after) {
  after = pos;
  if (pos >= s.size()) return kEnd;
  return utf8_next(s, after);
}

// Invisible format characters. Between two letters some of them belong to the word (see
// is_inner_joiner); anywhere else they are dropped like spaces, so a stray BOM or bidi mark
// never becomes a token a person cannot see.
bool is_ignorable(char32_t c) {
  return c == 0xAD || c == 0x61C || c == 0x180E || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x206F) ||
         c == 0xFEFF || c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F);
}

// White_Space and the C0/C1 controls (category Cc) separate words and are dropped.
bool is_separator(char32_t c) {
  return unicode_is_white_space(c) || unicode_general_category(c) == UnicodeGeneralCategory::cc || is_ignorable(c);
}

// Kept inside a word when a letter stands on both sides: "didn't", "well-known", Persian ZWNJ.
bool is_inner_joiner(char32_t c) {
  return c == '\'' || c == 0x2019 || c == '-' || c == 0x2010 || c == 0x2011 || c == 0x5BE || c == 0xAD ||
         c == 0x200C || c == kZwj || c == 0x2060;
}

bool is_number_separator(char32_t c) { return c == '.' || c == ',' || c == 0x66B || c == 0x66C; }
bool is_regional_indicator(char32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }
bool is_skin_tone(char32_t c) { return c >= 0x1F3FB && c <= 0x1F3FF; }
bool is_emoji_tag(char32_t c) { return c >= 0xE0020 && c <= 0xE007F; }

// Anything that is not a separator, letter, digit, mark or punctuation is a symbol.
bool is_symbol(char32_t c) {
  return c != kEnd && !is_separator(c) && !unicode_is_word_letter(c) && !unicode_is_word_digit(c) &&
         !unicode_is_word_mark(c) && !unicode_is_word_punct(c);
}

size_t skip_marks(std::string_view s, size_t pos) {
  size_t after = 0;
  while (unicode_is_word_mark(peek(s, pos, after))) pos = after;
  return pos;
}

// pos is at a letter; returns the end of the word.
size_t scan_word(std::string_view s, size_t pos) {
  bool last_letter = false;  // the last base character (marks ride on it) was a letter
  for (;;) {
    size_t after = 0;
    const char32_t c = peek(s, pos, after);
    if (unicode_is_word_letter(c)) {
      last_letter = true;
    } else if (unicode_is_word_digit(c)) {
      last_letter = false;
    } else if (!unicode_is_word_mark(c)) {
      size_t after2 = 0;
      if (!(is_inner_joiner(c) && last_letter && unicode_is_word_letter(peek(s, after, after2)))) return pos;
    }
    pos = after;
  }
}

// pos is at a digit; returns the end of the number and sets kind (word when letters follow).
size_t scan_number(std::string_view s, size_t pos, TokenKind& kind) {
  kind = TokenKind::number;
  for (;;) {
    size_t after = 0, after2 = 0;
    const char32_t c = peek(s, pos, after);
    if (unicode_is_word_digit(c) || unicode_is_word_mark(c)) {
      pos = after;
    } else if (is_number_separator(c) && unicode_is_word_digit(peek(s, after, after2))) {
      pos = after2;
    } else if (unicode_is_word_letter(c)) {
      kind = TokenKind::word;  // "3rd", "5km": one word
      return scan_word(s, pos);
    } else {
      return pos;
    }
  }
}

// A keycap emoji: [0-9#*] U+FE0F? U+20E3. Returns its end, or 0 when there is none at pos.
size_t keycap_end(std::string_view s, size_t pos) {
  size_t after = 0;
  const char32_t c = peek(s, pos, after);
  if (!((c >= '0' && c <= '9') || c == '#' || c == '*')) return 0;
  size_t next = 0;
  char32_t n = peek(s, after, next);
  if (n == 0xFE0F) n = peek(s, after = next, next);
  return n == 0x20E3 ? skip_marks(s, next) : 0;
}

// pos is at a symbol other than U+FFFD; returns the end of its emoji cluster.
size_t scan_symbol(std::string_view s, size_t pos) {
  size_t after = 0, after2 = 0;
  const char32_t first = peek(s, pos, after);
  pos = after;
  if (is_regional_indicator(first) && is_regional_indicator(peek(s, pos, after2))) pos = after2;  // a flag
  for (;;) {
    const char32_t c = peek(s, pos, after);
    if (unicode_is_word_mark(c) || is_skin_tone(c) || is_emoji_tag(c)) {
      pos = after;
      continue;
    }
    if (c == kZwj) {
      const char32_t n = peek(s, after, after2);
      if (n != kReplacementChar && is_symbol(n)) {
        pos = after2;
        if (is_regional_indicator(n) && is_regional_indicator(peek(s, pos, after))) pos = after;
        continue;
      }
    }
    return pos;
  }
}

constexpr std::array<std::string_view, 5> kSpecials{"[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"};

size_t special_length(std::string_view s, size_t pos) {
  for (std::string_view sp : kSpecials)
    if (s.substr(pos, sp.size()) == sp) return sp.size();
  return 0;
}

}  // namespace

Result<std::vector<Token>> tokenize_words(std::string_view text, const TokenizeLimits& limits) {
  if (text.size() > limits.max_bytes)
    return make_error("the text is " + std::to_string(text.size()) + " bytes; the limit is " +
                      std::to_string(limits.max_bytes));
  const size_t max_tokens = limits.max_tokens > 0 ? static_cast<size_t>(limits.max_tokens) : 0;
  const std::string clean = utf8_sanitize(text);
  const std::string_view s = clean;

  std::vector<Token> tokens;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t after = 0;
    const char32_t c = peek(s, pos, after);
    if (is_separator(c)) {
      pos = after;
      continue;
    }
    TokenKind kind = TokenKind::symbol;
    size_t end = 0;
    if (c == '[' && (end = special_length(s, pos)) > 0) {
      kind = TokenKind::special;
      end += pos;
    } else if ((end = keycap_end(s, pos)) > 0) {
      kind = TokenKind::symbol;
    } else if (unicode_is_word_letter(c)) {
      kind = TokenKind::word;
      end = scan_word(s, pos);
    } else if (unicode_is_word_digit(c)) {
      end = scan_number(s, pos, kind);
    } else if (unicode_is_word_punct(c)) {
      kind = TokenKind::punct;
      end = skip_marks(s, after);
    } else if (unicode_is_word_mark(c)) {
      end = skip_marks(s, after);  // no base to ride on: a symbol of its own
    } else if (c == kReplacementChar) {
      end = after;
    } else {
      end = scan_symbol(s, pos);
    }
    if (tokens.size() >= max_tokens) return error_too_many_tokens(max_tokens);
    tokens.push_back(Token{std::string(s.substr(pos, end - pos)), pos, end, kind});
    pos = end;
  }
  return tokens;
}

bool token_is_punct(const Token& t) { return t.kind == TokenKind::punct; }

std::string_view name_of(TokenKind kind) {
  switch (kind) {
    case TokenKind::word: return "word";
    case TokenKind::number: return "number";
    case TokenKind::punct: return "punct";
    case TokenKind::symbol: return "symbol";
    case TokenKind::special: return "special";
  }
  return "?";
}

}  // namespace attnviz
