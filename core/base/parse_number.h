// Whole-string number parsing for flags, script verbs and config text: "12" is 12, while "12x",
// " 12" and "" are errors (std::from_chars alone accepts a prefix). No locale, no exceptions.
#pragma once
#include <charconv>
#include <string_view>

namespace attnviz {

template <class T>
bool parse_number(std::string_view s, T& out) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return false;
  out = v;
  return true;
}

// parse_number, and lo <= value <= hi; out is left alone on failure.
inline bool parse_int_in(std::string_view s, int lo, int hi, int& out) {
  int v = 0;
  if (!parse_number(s, v) || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace attnviz
