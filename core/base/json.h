// The one strict reader for JSON from files and strangers: UTF-8 checked, nesting bounded, duplicate
// keys refused (nlohmann would silently keep the last), syntax errors caught. It answers with a value
// or a one-line message and never lets an nlohmann exception out. What the keys mean is the caller's;
// json_keys_known refuses the ones a caller does not read, naming those it does.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace attnviz {

// Deep enough for every file we read (tokenizer.json nests about 6); callers may ask for less.
inline constexpr int kJsonMaxDepth = 64;

enum class JsonFault { invalid_utf8, too_deep, syntax, duplicate_key };

// One step from a value into a child: an object member's key or an array element's index.
using JsonStep = std::variant<std::string, size_t>;

// The first problem found, in parts, for callers whose messages say more than the reader can
// (a duplicate at the top of a safetensors header is a tensor named twice).
struct JsonError {
  JsonFault fault = JsonFault::syntax;
  std::string message;          // what json_parse_strict returns: one line, naming `what`
  size_t offset = 0;            // invalid_utf8: the first byte of the bad sequence
  std::string reason;           // syntax: nlohmann's words ("parse error at line 1, column 2: ...")
  std::vector<JsonStep> path;   // duplicate_key: from the top down to the object holding the key
  std::string key;              // duplicate_key: the key, as read
};

// Parses `text`; `what` names it in messages ("config.json", "the file"). Checks, in order: UTF-8,
// nesting no deeper than `max_depth` arrays and objects (counted before anything is built, so a
// hostile "[[[[..." costs nothing), then syntax and duplicate keys, stopping at the first problem.
// The messages:
//   <what> is not valid UTF-8 (bad byte at offset N)
//   <what> is nested deeper than N levels
//   <what> is not valid JSON
//   <what> has duplicate key 'k'            (or: ... duplicate key 'k' in 'model.added_tokens[3]')
// When `error` is given it receives the parts as well.
Result<nlohmann::json> json_parse_strict(std::string_view text, std::string_view what, int max_depth = kJsonMaxDepth,
                                         JsonError* error = nullptr);

// A string read from a file, in single quotes for a message: control bytes shown as \xNN and at
// most 200 bytes kept, so a hostile name cannot break the message's single line.
std::string json_quote(std::string_view s);

// The keys a reader knows, in the order its messages list them.
using JsonKeys = std::initializer_list<std::string_view>;

// "unknown key 'k' (known: a, b, c)": every file format we own refuses a key it does not read
// rather than let a typo fall back to a default, and says what it would have read instead.
std::string json_unknown_key(std::string_view key, JsonKeys known);

// Ok when every member of `obj` is one of `known`; otherwise json_unknown_key's message for the
// first one that is not (in nlohmann's key order). A value that is not an object is Ok here: what
// it must be is the caller's to say.
Status json_keys_known(const nlohmann::json& obj, JsonKeys known);

}  // namespace attnviz
