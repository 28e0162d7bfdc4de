// Byte-level helpers for tests that assemble binary files (safetensors, npy) by hand.
#pragma once
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace attnviz::test {

using Bytes = std::vector<uint8_t>;

// Appends the low n bytes of v, little-endian.
inline void append_le(Bytes& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// float32 values as little-endian bytes.
inline Bytes le_f32(std::initializer_list<float> values) {
  Bytes out;
  for (const float f : values) append_le(out, std::bit_cast<uint32_t>(f), 4);
  return out;
}

}  // namespace attnviz::test
