// GGUF files (llama.cpp's model format; Ollama and LM Studio store models as them): a header, typed
// metadata (the architecture, its sizes, the tokenizer's vocabulary), tensor infos, then the tensor
// data, each tensor at an aligned offset. Versions 2 and 3, little-endian. Every count, length and
// offset is checked against the file before it is used, so a truncated or hostile file is an error
// that says what is wrong, never a crash, a hang or a huge allocation. Nothing here knows what a
// tensor means (io/ggml_types.h decodes their values).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/result.h"
#include "io/ggml_types.h"

namespace attnviz {

enum class GgufValueType : uint32_t {
  uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, boolean = 7,
  string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12,
};
std::string_view name_of(GgufValueType type);  // "uint8", ..., "array"

// An array's elements, by kind: uint64 in `uints`, the other integers and booleans (0/1) in `ints`,
// floats in `floats`, strings in `strings`. Arrays of arrays (which the format allows and llama.cpp
// refuses; no model's metadata has them) are refused.
struct GgufArray {
  GgufValueType element = GgufValueType::uint8;
  std::vector<int64_t> ints;
  std::vector<uint64_t> uints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  size_t size() const;
};

struct GgufValue {
  GgufValueType type = GgufValueType::uint8;
  // uint64 as uint64_t, the other integers as int64_t, floats as double, then bool, string, array.
  std::variant<int64_t, uint64_t, double, bool, std::string, GgufArray> value;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<int64_t> ne;  // ggml order: ne[0] the values of one row (the fastest varying), then rows, ...
  GgmlType type = GgmlType::F32;
  uint64_t offset = 0;      // from the start of the data section
  uint64_t bytes = 0;       // what its blocks take
  int64_t numel() const;
};

struct GgufFile {
  uint32_t version = 0;
  uint64_t alignment = 32;    // general.alignment, or 32
  uint64_t data_offset = 0;   // where the data section starts in the file
  uint64_t file_size = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata;  // in the file's order
  std::vector<GgufTensorInfo> tensors;                      // in the file's order

  const GgufValue* find(std::string_view key) const;  // null when absent
  const GgufTensorInfo* tensor(std::string_view name) const;
  // Typed reads; an absent key or another type is an error naming the key and what it holds.
  Result<std::string> string_value(std::string_view key) const;
  Result<int64_t> int_value(std::string_view key) const;    // any integer type (a uint64 above 2^63 - 1 is an error)
  Result<double> float_value(std::string_view key) const;   // float32 or float64
  Result<bool> bool_value(std::string_view key) const;
  Result<const GgufArray*> array_value(std::string_view key) const;
};

inline constexpr uint64_t kGgufDefaultAlignment = 32;

// Parses the header, metadata and tensor infos of a whole file's bytes and checks every tensor's
// bytes lie inside them (fuzzable: nothing is read beyond `bytes`).
Result<GgufFile> gguf_parse(std::span<const uint8_t> bytes);

// A GGUF file mapped read-only (the weights stay in the file's pages until decoded), and parsed.
struct GgufMapped {
  std::shared_ptr<const void> mapping;
  std::span<const uint8_t> bytes;
  GgufFile file;
  // A tensor's stored bytes, inside the mapping.
  std::span<const uint8_t> tensor_bytes(const GgufTensorInfo& t) const;
};
Result<GgufMapped> gguf_map(const std::string& path);

// Whether the bytes start as a GGUF file ("GGUF"): what the model opener checks first.
bool gguf_magic(std::span<const uint8_t> first_bytes);

}  // namespace attnviz
