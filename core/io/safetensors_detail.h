// The safetensors reader's wording and value conversion, shared by its files (safetensors.cpp:
// headers, mapping, writing; tensor_values.cpp: a tensor's values read into memory or in place;
// safetensors_sharded.cpp: the sharded index). Not for use outside these files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/json.h"
#include "io/safetensors.h"

namespace attnviz::safetensors_detail {

// "safetensors: " + message.
Error safetensors_error(const std::string& message);
// "tensor \"name\"", quoted as JSON.
std::string tensor_label(std::string_view name);
// Parses a header or an index with the strict reader, in this reader's words; `subject` names the
// text, and `duplicate` words a duplicate key (a tensor named twice, a field given twice).
Result<nlohmann::json> json_read(std::string_view text, const std::string& subject,
                                 std::string (*duplicate)(const JsonError&));
// The top-level key a duplicate sits under, when it is one level down in an object.
const std::string* duplicate_parent(const JsonError& e);
// "[2, 3]".
std::string shape_text(const std::vector<int64_t>& shape);
// Widens `n` values stored as `dtype` at p (little-endian, any alignment) to float.
void values_convert(DType dtype, const uint8_t* p, float* out, size_t n);

}  // namespace attnviz::safetensors_detail
