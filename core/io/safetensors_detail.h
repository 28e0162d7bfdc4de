// The safetensors reader's wording, shared by its two files (safetensors.cpp: headers, tensors,
// writing; safetensors_sharded.cpp: the sharded index). Not for use outside core/io/safetensors*.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "io/json.h"

namespace attnviz::safetensors_detail {

// "safetensors: " + message.
Error fail(const std::string& message);
// "tensor \"name\"", quoted as JSON.
std::string tensor_label(std::string_view name);
// Parses a header or an index with the strict reader, in this reader's words; `subject` names the
// text, and `duplicate` words a duplicate key (a tensor named twice, a field given twice).
Result<nlohmann::json> json_read(std::string_view text, const std::string& subject,
                                 std::string (*duplicate)(const JsonError&));
// The top-level key a duplicate sits under, when it is one level down in an object.
const std::string* duplicate_parent(const JsonError& e);

}  // namespace attnviz::safetensors_detail
