// The one strict reader for JSON from files and strangers: UTF-8 checked, nesting bounded, duplicate
// keys refused (nlohmann would silently keep the last), syntax errors caught. It answers with a value
// or a one-line message and never lets an nlohmann exception out. What the keys mean is the caller's.
#pragma once
#include <cstddef>
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

}  // namespace attnviz
