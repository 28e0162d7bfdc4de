// Every user-visible string of the app, in English and Korean, looked up by name. The strings
// live in strings.def, one STR(id, English, Korean) line each; the Str enum and the table are
// both built from that list, so no id can point at another id's text. Korean terms follow the
// lecture material (셀프 어텐션, 멀티 헤드 어텐션, 마스킹, 쿼리/키/밸류).
#pragma once

#include <string>

namespace attnviz {

enum class Lang { en, ko };

enum class Str {
#define STR(id, en, ko) id,
#include "shell/strings.def"
#undef STR
  count_
};

// The text of id in lang; never null, never empty.
const char* tr(Lang lang, Str id);

// The id's name as written in strings.def ("view_compare"), so a test or a log can say which
// string it means.
const char* str_name(Str id);

// tr(lang, id) used as a printf format with the arguments that follow, into a string of whatever
// length the result needs. The compiler cannot check the arguments (the format is chosen at run
// time, so no format attribute applies): the tests check that both languages of every string have
// the same conversions, and the caller must pass arguments matching them. If formatting fails
// (a malformed format), the unformatted text is returned so that something readable shows.
std::string tr_format(Lang lang, Str id, ...);

}  // namespace attnviz
