// The printf conversions of a format string, as printf reads them: tr_format walks them to make
// English counts agree with 1, and the string table's tests to check every format.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace attnviz {

struct PrintfConversion {
  size_t end = 0;           // one past the conversion character
  int star_args = 0;        // '*' widths and precisions: an int argument each, before the value's
  std::string_view length;  // "", "h", "hh", "l", "ll", "L", "z", "j" or "t"
  char conversion = 0;      // one of "diouxXeEfFgGaAcsp"
};

// The conversion that starts at s[at] == '%' (not "%%", which is a percent sign); nullopt when no
// valid conversion starts there (%n included: the table never holds one).
std::optional<PrintfConversion> printf_conversion_at(std::string_view s, size_t at);

}  // namespace attnviz
