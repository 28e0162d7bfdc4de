// A tensor's values, read into memory of the caller's (converted from the stored dtype, transposed
// when asked, checked for finiteness on the way) or in place from a file mapped for that; and the
// shape checks that come first. The parsing, mapping and writing are safetensors.cpp's.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "io/safetensors_detail.h"

namespace attnviz {

using namespace safetensors_detail;

namespace {

std::string expected_text(std::initializer_list<int64_t> dims) {
  std::string out = "[";
  bool first = true;
  for (const int64_t d : dims) {
    out += (first ? "" : ", ") + (d >= 0 ? std::to_string(d) : std::string("*"));
    first = false;
  }
  return out + "]";
}

// A hand-built Tensor may disagree with itself; a parsed one never does.
Status tensor_consistent(const Tensor& t) {
  uint64_t n = 1;
  for (const int64_t d : t.shape) {
    if (d < 0) return make_error(tensor_label(t.name) + " has negative shape " + shape_text(t.shape));
    const auto u = static_cast<uint64_t>(d);
    if (u != 0 && n > std::numeric_limits<uint64_t>::max() / u)
      n = std::numeric_limits<uint64_t>::max();
    else
      n *= u;
  }
  if (t.raw) return Ok{};  // mapped: the parser matched its byte range to the shape
  if (n != t.data.size())
    return make_error(tensor_label(t.name) + " has shape " + shape_text(t.shape) + " but holds " +
                      std::to_string(t.data.size()) + " values");
  return Ok{};
}

// Whether none of the n floats is an infinity or a NaN: their exponent bits are all ones, so the
// largest magnitude bit pattern decides. A max over integers vectorizes and has no branch per value.
bool all_finite(const float* p, size_t n) {
  uint32_t largest = 0;
  for (size_t i = 0; i < n; ++i) largest = std::max(largest, std::bit_cast<uint32_t>(p[i]) & 0x7fffffffu);
  return largest < 0x7f800000u;
}

// Converts values [first, first + n) of t (in stored order) into out.
void values_read(const Tensor& t, size_t first, size_t n, float* out) {
  if (t.raw)
    values_convert(t.stored, t.raw + first * dtype_size(t.stored), out, n);
  else if (n > 0)
    std::memcpy(out, t.data.data() + first, n * sizeof(float));
}

// Values are converted and checked in pieces of 16 KB, which stay in the first-level cache: the
// check reads what the conversion has just written instead of making a second pass over memory.
constexpr size_t kPieceValues = 4096;

bool values_into(const Tensor& t, float* out) {
  const auto n = static_cast<size_t>(t.numel());
  bool finite = true;
  for (size_t first = 0; first < n; first += kPieceValues) {
    const size_t count = std::min(kPieceValues, n - first);
    values_read(t, first, count, out + first);
    finite = all_finite(out + first, count) && finite;
  }
  return finite;
}

// A transposed tensor goes through a piece-sized tile of kTileRows stored rows by kTileCols
// columns: the stored rows are read contiguously, and each output row receives kTileRows
// consecutive values (two cache lines) per tile instead of single floats a row apart.
constexpr int64_t kTileRows = 32, kTileCols = static_cast<int64_t>(kPieceValues) / kTileRows;
constexpr int64_t kBlock = 8;  // the tile is transposed in 8x8 blocks

// Writes the (h, w) block at `in` (rows in_stride apart) transposed to `out` (rows out_stride apart).
void block_transpose(const float* in, int64_t in_stride, int64_t h, int64_t w, float* out, int64_t out_stride) {
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) out[j * out_stride + i] = in[i * in_stride + j];
}

// The same for a whole block, through a local copy of fixed size that the compiler keeps in vector
// registers and shuffles: 15-25 % faster than the general loop on GPT-2's shapes.
void block_transpose_full(const float* in, int64_t in_stride, float* out, int64_t out_stride) {
  float b[kBlock][kBlock];
  for (int64_t i = 0; i < kBlock; ++i)
    for (int64_t j = 0; j < kBlock; ++j) b[j][i] = in[i * in_stride + j];
  for (int64_t j = 0; j < kBlock; ++j)
    for (int64_t i = 0; i < kBlock; ++i) out[j * out_stride + i] = b[j][i];
}

// The (h, w) tile (rows w apart) transposed into out (rows out_stride apart).
void tile_transpose(const float* tile, int64_t h, int64_t w, float* out, int64_t out_stride) {
  for (int64_t i = 0; i < h; i += kBlock)
    for (int64_t j = 0; j < w; j += kBlock) {
      const float* in = tile + i * w + j;
      float* to = out + j * out_stride + i;
      if (i + kBlock <= h && j + kBlock <= w)
        block_transpose_full(in, w, to, out_stride);
      else
        block_transpose(in, w, std::min(kBlock, h - i), std::min(kBlock, w - j), to, out_stride);
    }
}

// The (rows, cols) tensor t written into out as its (cols, rows) transpose, tile by tile.
bool transposed_into(const Tensor& t, int64_t rows, int64_t cols, float* out) {
  std::vector<float> tile(kPieceValues);
  bool finite = true;
  for (int64_t r0 = 0; r0 < rows; r0 += kTileRows) {
    const int64_t h = std::min(kTileRows, rows - r0);
    for (int64_t c0 = 0; c0 < cols; c0 += kTileCols) {
      const int64_t w = std::min(kTileCols, cols - c0);
      for (int64_t i = 0; i < h; ++i)
        values_read(t, static_cast<size_t>((r0 + i) * cols + c0), static_cast<size_t>(w),
                    &tile[static_cast<size_t>(i * w)]);
      finite = all_finite(tile.data(), static_cast<size_t>(h * w)) && finite;
      tile_transpose(tile.data(), h, w, out + c0 * rows + r0, rows);
    }
  }
  return finite;
}

}  // namespace

Status tensor_check_mat(const Tensor& t, int64_t expect_rows, int64_t expect_cols) {
  const std::string want = expected_text({expect_rows, expect_cols});
  if (t.shape.size() != 1 && t.shape.size() != 2)
    return make_error(tensor_label(t.name) + " has shape " + shape_text(t.shape) + " but a matrix " + want +
                      " was expected");
  if (Status s = tensor_consistent(t); !s) return s;
  const int64_t rows = t.shape.size() == 2 ? t.shape[0] : 1;
  const int64_t cols = t.shape.back();
  if ((expect_rows >= 0 && rows != expect_rows) || (expect_cols >= 0 && cols != expect_cols))
    return make_error(tensor_label(t.name) + " has shape " + shape_text(t.shape) + " but " + want + " was expected");
  return Ok{};
}

Status tensor_check_vec(const Tensor& t, int64_t expect_len) {
  const std::string want = expected_text({expect_len});
  if (t.shape.size() != 1)
    return make_error(tensor_label(t.name) + " has shape " + shape_text(t.shape) + " but a vector " + want +
                      " was expected");
  if (Status s = tensor_consistent(t); !s) return s;
  if (expect_len >= 0 && t.shape[0] != expect_len)
    return make_error(tensor_label(t.name) + " has shape " + shape_text(t.shape) + " but " + want + " was expected");
  return Ok{};
}

float* tensor_in_place_values(const Tensor& t) {
  if (!t.raw || !t.mapping || !t.in_place_allowed || t.stored != DType::F32 ||
      std::endian::native != std::endian::little || reinterpret_cast<uintptr_t>(t.raw) % alignof(float) != 0)
    return nullptr;
  // The mapping is writable (file_map): the bytes are const only to the parser.
  return reinterpret_cast<float*>(const_cast<uint8_t*>(t.raw));
}

bool tensor_in_place_finite(const Tensor& t) {
  const float* values = tensor_in_place_values(t);
  return values && all_finite(values, static_cast<size_t>(t.numel()));
}

bool tensor_values_into(const Tensor& t, float* out, bool transpose) {
  if (transpose && t.shape.size() == 2) return transposed_into(t, t.shape[0], t.shape[1], out);
  return values_into(t, out);
}

Result<Mat> tensor_to_mat(const Tensor& t, int64_t expect_rows, int64_t expect_cols) {
  if (Status s = tensor_check_mat(t, expect_rows, expect_cols); !s) return Error{s.error()};
  Mat m(t.shape.size() == 2 ? t.shape[0] : 1, t.shape.back());
  (void)tensor_values_into(t, m.data());  // non-finite values are the caller's to judge
  return m;
}

Result<Vec> tensor_to_vec(const Tensor& t, int64_t expect_len) {
  if (Status s = tensor_check_vec(t, expect_len); !s) return Error{s.error()};
  Vec v(t.shape[0]);
  (void)tensor_values_into(t, v.data());
  return v;
}

}  // namespace attnviz
