// The string table and its formatting helper. The table is generated from strings.def in the
// same order as the Str enum, so an entry's position is its id by construction.
#include "shell/strings.h"

#include <cstdarg>
#include <cstdio>
#include <iterator>
#include <string_view>

#include "shell/printf_format.h"

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

// The nouns English puts after a count in the table ("%d heads"), and their singular.
struct CountNoun {
  std::string_view plural, singular;
};
constexpr CountNoun kCountNouns[] = {{"heads", "head"},   {"layers", "layer"},  {"tokens", "token"}, {"steps", "step"},
                                     {"keys", "key"},     {"queries", "query"}, {"words", "word"},   {"dims", "dim"},
                                     {"pieces", "piece"}, {"rows", "row"},      {"lines", "line"}};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The format with each count noun after an integer conversion whose argument is 1 made singular:
// "%d heads" formats as "1 head", not "1 heads". Only the table's own words change, never an
// argument's text. The arguments are read as printf reads them (int, long, long long or size_t
// for integers, double or long double for floating point, a pointer for strings); a format it
// cannot read comes back unchanged.
std::string english_counts_agree(const char* format, va_list args) {
  std::string out;
  const std::string_view f(format);
  size_t copied = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') continue;
    if (i + 1 < f.size() && f[i + 1] == '%') {
      ++i;
      continue;
    }
    const auto c = printf_conversion_at(f, i);
    if (!c) return format;
    for (int k = 0; k < c->star_args; ++k) (void)va_arg(args, int);
    const std::string_view length = c->length;
    const size_t j = c->end - 1;
    const char conv = c->conversion;
    long long value = 0;
    bool integer = true;
    switch (conv) {
      case 'd':
      case 'i':
      case 'c':
      case 'u':
      case 'x':
      case 'X':
      case 'o':
        if (length == "ll")
          value = va_arg(args, long long);
        else if (length == "l")
          value = va_arg(args, long);
        else if (length == "z")
          value = static_cast<long long>(va_arg(args, size_t));
        else if (length.empty() || length == "h" || length == "hh")
          value = va_arg(args, int);
        else
          return format;
        break;
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case 'e':
      case 'E':
      case 'a':
      case 'A':
        integer = false;
        if (length == "L")
          (void)va_arg(args, long double);
        else
          (void)va_arg(args, double);
        break;
      case 's':
      case 'p':
        integer = false;
        (void)va_arg(args, const void*);
        break;
      default: return format;  // 'n' never parses; this keeps the compiler's switch complete
    }
    i = j;
    if (!integer || value != 1 || conv == 'c') continue;
    for (const CountNoun& noun : kCountNouns) {
      const size_t at = j + 2;  // after the conversion and one space
      if (j + 1 < f.size() && f[j + 1] == ' ' && f.substr(at, noun.plural.size()) == noun.plural &&
          (at + noun.plural.size() == f.size() || !is_letter(f[at + noun.plural.size()]))) {
        out.append(f.substr(copied, at - copied));
        out.append(noun.singular);
        copied = at + noun.plural.size();
        break;
      }
    }
  }
  out.append(f.substr(copied));
  return out;
}

}  // namespace

const char* tr(Lang lang, Str id) {
  const Entry& e = kStrings[static_cast<size_t>(id)];
  return lang == Lang::ko ? e.ko : e.en;
}

const char* str_name(Str id) { return kStrings[static_cast<size_t>(id)].name; }

std::string tr_format(Lang lang, Str id, ...) {
  va_list args;
  va_start(args, id);
  std::string agreed;
  if (lang == Lang::en) {
    va_list scan;
    va_copy(scan, args);
    agreed = english_counts_agree(tr(lang, id), scan);
    va_end(scan);
  }
  const char* format = lang == Lang::en ? agreed.c_str() : tr(lang, id);
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
