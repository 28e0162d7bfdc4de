// The three pre-tokenization patterns, each a hand-written matcher: at a position, the first
// alternative that matches wins, with the backtracking a regex engine would do spelled out.
#include "text/pretokenize_split.h"

#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {
namespace {

constexpr std::string_view kGpt2Regex = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

enum class CharClass { space, letter, number, other };

CharClass char_class(char32_t c) {
  if (unicode_is_white_space(c)) return CharClass::space;  // \s is White_Space in Oniguruma, Rust and JS
  if (unicode_is_letter(c)) return CharClass::letter;
  if (unicode_is_number(c)) return CharClass::number;
  return CharClass::other;  // marks too: "e" + U+0301 splits after the "e"
}

CharClass class_at(std::string_view s, size_t pos) {
  size_t p = pos;
  return char_class(utf8_next(s, p));
}

bool is_cr_lf(char32_t c) { return c == U'\r' || c == U'\n'; }

// End of the run of characters of class `cls` starting at pos.
size_t class_run_end(std::string_view s, size_t pos, CharClass cls) {
  while (pos < s.size()) {
    size_t next = pos;
    if (char_class(utf8_next(s, next)) != cls) break;
    pos = next;
  }
  return pos;
}

// The whitespace alternatives at a whitespace character: with `crlf_first` Llama 3's \s*[\r\n]+
// (the run up to and including its last CR or LF), then \s+(?!\S) (the run, giving its last character
// back when a non-space follows), then \s+ (one character, when the run is that one character).
size_t space_end(std::string_view s, size_t pos, bool crlf_first) {
  size_t last = pos, end = pos, after_crlf = 0;
  while (end < s.size()) {
    size_t next = end;
    const char32_t c = utf8_next(s, next);
    if (char_class(c) != CharClass::space) break;
    if (is_cr_lf(c)) after_crlf = next;
    last = end;
    end = next;
  }
  if (crlf_first && after_crlf != 0) return after_crlf;
  if (end == s.size() || last == pos) return end;
  return last;
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
size_t gpt2_end(std::string_view s, size_t pos) {
  size_t after = pos;
  const char32_t c = utf8_next(s, after);
  if (c == U'\'' && after < s.size()) {  // lowercase ASCII contractions only, as GPT-2 has them
    const std::string_view rest = s.substr(after);
    const char d = rest[0];
    if (d == 's' || d == 't' || d == 'm' || d == 'd') return after + 1;
    if (rest.starts_with("re") || rest.starts_with("ve") || rest.starts_with("ll")) return after + 2;
  }
  const CharClass cls = char_class(c);
  if (c == U' ' && after < s.size()) {  // " ?" takes one literal space in front of a non-space run
    const CharClass next_cls = class_at(s, after);
    if (next_cls != CharClass::space) return class_run_end(s, after, next_cls);
  }
  if (cls != CharClass::space) return class_run_end(s, after, cls);
  return space_end(s, pos, false);
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? char(c + ('a' - 'A')) : c; }

// Llama 3's pattern with at most `max_digits` numbers per match (Qwen2: 1).
size_t llama3_end(std::string_view s, size_t pos, int max_digits) {
  size_t after = pos;
  const char32_t c = utf8_next(s, after);
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (c == U'\'' && after < s.size()) {
    const char d = ascii_lower(s[after]);
    if (d == 's' || d == 't' || d == 'm' || d == 'd') return after + 1;
    if (after + 1 < s.size()) {
      const char e = ascii_lower(s[after + 1]);
      if ((d == 'r' && e == 'e') || (d == 'v' && e == 'e') || (d == 'l' && e == 'l')) return after + 2;
    }
  }
  const CharClass cls = char_class(c);
  // [^\r\n\p{L}\p{N}]?\p{L}+: a letter run, with one non-letter, non-number, non-CR/LF in front.
  if (cls == CharClass::letter) return class_run_end(s, after, CharClass::letter);
  if (cls != CharClass::number && !is_cr_lf(c) && after < s.size() && class_at(s, after) == CharClass::letter)
    return class_run_end(s, after, CharClass::letter);
  // \p{N}{1,3}
  if (cls == CharClass::number) {
    size_t end = after;
    for (int k = 1; k < max_digits && end < s.size(); ++k) {
      size_t next = end;
      if (char_class(utf8_next(s, next)) != CharClass::number) break;
      end = next;
    }
    return end;
  }
  // " ?[^\s\p{L}\p{N}]+[\r\n]*": one literal space may lead the run of others.
  size_t others = std::string_view::npos;
  if (cls == CharClass::other)
    others = pos;
  else if (c == U' ' && after < s.size() && class_at(s, after) == CharClass::other)
    others = after;
  if (others != std::string_view::npos) {
    size_t end = class_run_end(s, others, CharClass::other);
    while (end < s.size() && (s[end] == '\r' || s[end] == '\n')) ++end;
    return end;
  }
  return space_end(s, pos, true);
}

}  // namespace

std::optional<SplitPattern> split_pattern_from_regex(std::string_view regex) {
  for (SplitPattern p : {SplitPattern::gpt2, SplitPattern::llama3, SplitPattern::qwen2})
    if (regex == split_pattern_regex(p)) return p;
  return std::nullopt;
}

std::string_view split_pattern_regex(SplitPattern pattern) {
  switch (pattern) {
    case SplitPattern::gpt2: return kGpt2Regex;
    case SplitPattern::llama3: return kLlama3Regex;
    case SplitPattern::qwen2: return kQwen2Regex;
  }
  return {};
}

size_t split_pattern_end(SplitPattern pattern, std::string_view s, size_t pos) {
  switch (pattern) {
    case SplitPattern::gpt2: return gpt2_end(s, pos);
    case SplitPattern::llama3: return llama3_end(s, pos, 3);
    case SplitPattern::qwen2: return llama3_end(s, pos, 1);
  }
  return s.size();
}

}  // namespace attnviz
