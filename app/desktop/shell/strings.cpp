// The string table and its formatting helper. The table is generated from strings.def in the
// same order as the Str enum, so an entry's position is its id by construction.
#include "shell/strings.h"

#include <cstdarg>
#include <cstdio>
#include <iterator>

namespace attnviz {

namespace {

struct Entry {
  const char* name;
  const char* en;
  const char* ko;
};

constexpr Entry kStrings[] = {
#define STR(id, en, ko) {#id, en, ko},
#include "shell/strings.def"
#undef STR
};
static_assert(std::size(kStrings) == static_cast<size_t>(Str::count_), "one entry per Str value");

}  // namespace

const char* tr(Lang lang, Str id) {
  const Entry& e = kStrings[static_cast<size_t>(id)];
  return lang == Lang::ko ? e.ko : e.en;
}

const char* str_name(Str id) { return kStrings[static_cast<size_t>(id)].name; }

std::string tr_format(Lang lang, Str id, ...) {
  const char* format = tr(lang, id);
  va_list args;
  va_start(args, id);
  va_list again;
  va_copy(again, args);
  // The format comes from the table, which the tests check; the compiler cannot.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  const int n = std::vsnprintf(nullptr, 0, format, args);
  std::string out;
  if (n >= 0) {
    out.resize(static_cast<size_t>(n));
    std::vsnprintf(out.data(), out.size() + 1, format, again);  // writes n chars and the '\0' C++ keeps past size()
  }
#pragma GCC diagnostic pop
  va_end(again);
  va_end(args);
  return n >= 0 ? out : std::string(format);
}

}  // namespace attnviz
