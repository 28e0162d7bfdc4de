// Reading the little-endian integers of file formats (safetensors, npy) from a byte buffer.
#pragma once
#include <cstdint>

namespace attnviz {

// The n-byte (1..8) little-endian unsigned integer at p.
inline uint64_t load_little_endian(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace attnviz
