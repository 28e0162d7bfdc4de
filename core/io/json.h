// A pre-parse guard for JSON from strangers: checks bracket nesting without building anything, so
// a hostile "[[[[…" is refused before nlohmann builds (and later destroys) a deep DOM.
#pragma once
#include <string_view>

namespace attnviz {

// True when no array or object in `text` nests deeper than `limit` (brackets inside strings do
// not count). Malformed text is left for the real parser to reject.
bool json_nesting_within(std::string_view text, int limit);

}  // namespace attnviz
