// The tensor types of ggml (llama.cpp's library), as GGUF files store them: plain floats (F32, F16,
// BF16) and the block-quantized types, each a run of blocks of a fixed number of values and bytes
// (Q8_0: 32 values in 34 bytes, a half-precision scale and 32 signed bytes; the K-quants: 256
// values in a super-block with sub-block scales). Each is decoded to float exactly as ggml's
// reference dequantization does (ggml-quants.c, dequantize_row_*), written here from those
// definitions. The importance-matrix types (IQ*), Q8_K and the others are not read.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace attnviz {

enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, BF16 = 30,
};

struct GgmlTypeInfo {
  GgmlType type;
  std::string_view name;  // "Q4_K", as llama.cpp names it
  int block_values;       // values per block (1 for the plain floats)
  int block_bytes;        // bytes per block
};

// The type of a GGUF tensor's type id, when attnviz reads it; null otherwise.
const GgmlTypeInfo* ggml_type_info(uint32_t id);
// The name of any type id ggml has had ("IQ2_XXS", "Q8_K", ...), for messages; "type N" if unknown.
std::string ggml_type_name(uint32_t id);

// Decodes `n` values (a whole number of the type's blocks) from `src` into `dst`.
void ggml_dequantize(GgmlType type, const uint8_t* src, float* dst, int64_t n);

}  // namespace attnviz
