// Reads and writes NumPy .npy files holding one float matrix, for exchanging weights and traces with
// Python. Reads versions 1.0-3.0, little-endian float32/float64, C or Fortran order, 1-D or 2-D.
// Writes version 1.0, '<f4', C order. The header dict is parsed by a small strict parser, never eval'd.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/tensor.h"

namespace attnviz {

// Bounds checked before allocating: each dimension <= 2^24, at most 2^28 elements in all.
inline constexpr uint64_t kMaxNpyDim = uint64_t{1} << 24;
inline constexpr uint64_t kMaxNpyElements = uint64_t{1} << 28;

Result<Mat> npy_parse(std::span<const uint8_t> bytes);  // 2-D gives (rows, cols); 1-D gives (1, n)
Result<Mat> npy_read(const std::string& path);          // uses file_read_bytes
std::vector<uint8_t> npy_serialize(const Mat& m);       // version 1.0, '<f4', C order, shape (rows, cols)
Status npy_write(const std::string& path, const Mat& m);  // via file_write_atomic

}  // namespace attnviz
