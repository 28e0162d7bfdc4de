// vsnprintf twice (size, then text) so long patterns never truncate.
#include "views/steps/steps_format.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string_view>

#include "base/utf8.h"

namespace attnviz {

std::string steps_printf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), fmt, args);
    out.resize(static_cast<size_t>(n));
  }
  va_end(args);
  return out;
}

std::string steps_number(float v, int decimals) {
  if (std::isinf(v)) return v < 0 ? "-∞" : "+∞";
  if (std::isnan(v)) return "NaN";
  return steps_printf("%.*f", decimals, static_cast<double>(v));
}

std::string steps_shape(long rows, long cols) { return steps_printf("(%ld, %ld)", rows, cols); }

std::string steps_clip(const std::string& text, size_t max_chars) {
  const std::string_view s(text);
  size_t pos = 0, count = 0;
  while (pos < s.size() && count < max_chars) {
    utf8_next(s, pos);
    ++count;
  }
  if (pos >= s.size()) return text;
  // Cut one code point earlier to make room for the ellipsis.
  size_t cut = 0, kept = 0;
  while (cut < s.size() && kept + 1 < max_chars) {
    utf8_next(s, cut);
    ++kept;
  }
  return std::string(s.substr(0, cut)) + "…";
}

}  // namespace attnviz
