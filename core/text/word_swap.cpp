// A word boundary is any byte that is not an ASCII letter or digit and not part of a multi-byte
// UTF-8 character, so "wide" inside "widely" or next to Hangul is never split off.
#include "text/word_swap.h"

namespace attnviz {

namespace {

bool word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
char upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

bool same_ignoring_case(std::string_view x, std::string_view y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (lower(x[i]) != lower(y[i])) return false;
  return true;
}

}  // namespace

std::string text_swap_words(std::string_view text, std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(text.size() + 8);
  size_t i = 0;
  while (i < text.size()) {
    if (!word_byte(text[i])) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && word_byte(text[end])) ++end;
    const std::string_view word = text.substr(i, end - i);
    const bool is_a = !a.empty() && same_ignoring_case(word, a);
    const bool is_b = !b.empty() && same_ignoring_case(word, b);
    if (is_a || is_b) {
      std::string repl(is_a ? b : a);
      for (char& c : repl) c = lower(c);
      if (word[0] >= 'A' && word[0] <= 'Z') repl[0] = upper(repl[0]);
      out += repl;
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

}  // namespace attnviz
