#include "shell/printf_format.h"

namespace attnviz {

std::optional<PrintfConversion> printf_conversion_at(std::string_view s, size_t at) {
  const auto one_of = [](std::string_view set, char c) { return set.find(c) != std::string_view::npos; };
  PrintfConversion c;
  size_t j = at + 1;
  while (j < s.size() && one_of("-+ #0'", s[j])) ++j;  // flags
  const auto width_or_precision = [&] {                // digits or '*'
    if (j < s.size() && s[j] == '*') {
      ++c.star_args;
      ++j;
    } else {
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    }
  };
  width_or_precision();
  if (j < s.size() && s[j] == '.') {
    ++j;
    width_or_precision();
  }
  const size_t length_at = j;
  if (s.substr(j, 2) == "hh" || s.substr(j, 2) == "ll")
    j += 2;
  else if (j < s.size() && one_of("hlLzjt", s[j]))
    ++j;
  c.length = s.substr(length_at, j - length_at);
  if (j >= s.size() || !one_of("diouxXeEfFgGaAcsp", s[j])) return std::nullopt;
  c.conversion = s[j];
  c.end = j + 1;
  return c;
}

}  // namespace attnviz
