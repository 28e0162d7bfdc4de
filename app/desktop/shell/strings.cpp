// The string table, generated from strings.def in the same order as the Str enum, so an
// entry's position is its id by construction.
#include "shell/strings.h"

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

}  // namespace attnviz
