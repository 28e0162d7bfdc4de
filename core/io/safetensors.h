// Reads and writes .safetensors files: an 8-byte little-endian header length, a JSON header that
// names each tensor's dtype, shape and byte range, then one contiguous byte buffer. The reader
// validates every field before allocating, converts every float and integer dtype to float, and merges sharded
// checkpoints through their index. The writer stores F32 only. Nothing here knows what a tensor means.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/result.h"
#include "base/tensor.h"

namespace attnviz {

// Integer and boolean tensors (BERT's I64 position_ids buffer, old GPT-2 U8 masks) are read too,
// converted to float (exact up to 2^24); checkpoints carry them even though no weight is one.
enum class DType { F32, F16, BF16, F64, BOOL, U8, I8, I16, U16, I32, U32, I64, U64 };

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;   // empty = scalar
  std::vector<float> data;      // row-major, converted to float from the stored dtype
  DType stored = DType::F32;
  // A mapped tensor (safetensors_map) has no `data` yet: its stored bytes are here, inside
  // `mapping`, and are converted when read (tensor_to_mat / tensor_to_vec / tensor_values_into), or
  // read in place (tensor_in_place_values).
  const uint8_t* raw = nullptr;
  std::shared_ptr<const void> mapping;  // the mapped file raw points into, kept while anyone holds it
  bool in_place_allowed = false;        // mapped with MappedValues::in_place
  int64_t numel() const;        // product of shape (1 for a scalar); unchecked, shapes from a file are
};

// Bytes per stored value of a dtype (every DType above has one).
uint64_t dtype_size(DType d);

struct TensorFile {
  std::map<std::string, std::string> metadata;  // "__metadata__" (string -> string)
  std::vector<Tensor> tensors;                  // in the order of their data offsets
  const Tensor* find(std::string_view name) const;  // nullptr when absent
};

inline constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;  // 100 MB, as the reference reader

Result<TensorFile> safetensors_parse(std::span<const uint8_t> bytes);   // from memory (fuzzable)
Result<TensorFile> safetensors_read(const std::string& path);          // uses file_read_bytes
// What a mapped file's tensors may become. `copied`: each is converted into memory of its own,
// after which the file may change or go (the app, which lives long and opens many files).
// `in_place`: an F32 tensor may also be read in place for as long as a matrix holds it, with no
// copy and half the memory; the file must not change meanwhile, or the model reads the new bytes
// (a short-lived process such as the CLI).
enum class MappedValues { copied, in_place };
// The same validation, but the file is memory-mapped and no tensor is converted: each is read
// straight from the mapping when asked (tensor_to_mat / tensor_to_vec), and tensor_release drops
// its pages again. A checkpoint then costs one copy of its weights instead of three, and an F32
// tensor read in place none at all. The mapping is private, read-only for `copied`; for `in_place`
// writable, so that writing to a value read in place copies that page for this process and never
// changes the file (the kernel then counts the file's size against its memory commitment).
Result<TensorFile> safetensors_map(const std::string& path, MappedValues use = MappedValues::copied);
// A mapped F32 tensor's values as floats, to read in place, when its file was mapped for that (and
// they are aligned for float, and this machine is little-endian, as the format); nullptr for any
// other tensor. They stay valid while t.mapping, or a copy of it, is held.
float* tensor_in_place_values(const Tensor& t);
// Whether every value of such a tensor is finite (no NaN, no infinity); one pass over its bytes.
[[nodiscard]] bool tensor_in_place_finite(const Tensor& t);
// Frees a tensor's values once they have been copied elsewhere: a loaded tensor's data, a mapped
// tensor's pages (they stay in the page cache and are read again if the tensor is).
void tensor_release(Tensor& t);
// Sharded checkpoints: "model.safetensors.index.json" is {"metadata": {...}, "weight_map": {tensor
// name: shard file name}}, the shards sitting next to it. Only "weight_map" is required; "metadata"
// must be an object whose "total_size", if present, is a non-negative integer (not checked against
// the shards: writers disagree on what it counts). Other top-level fields are ignored.
struct ShardIndex {
  std::map<std::string, std::string> weight_map;  // tensor name -> shard file name (a plain name, no folders)
  std::vector<std::string> shards;                // the distinct shard file names, sorted
};
Result<ShardIndex> safetensors_index_parse(std::string_view text);   // from memory
// Reads the index and every shard it names into one TensorFile: tensors shard by shard in file-name
// order (each shard in offset order); shard metadata merged, the first shard's value winning. A
// missing shard, a listed tensor its shard lacks, a tensor in two shards or a tensor the map does
// not list is an error naming the tensor and the shard(s).
// With `mapped`, every shard is read by safetensors_map(shard, use).
Result<TensorFile> safetensors_read_sharded(const std::string& index_path, bool mapped = false,
                                            MappedValues use = MappedValues::copied);

// Precondition (checked by safetensors_write, not here): tensor_file_check(file) is ok.
std::vector<uint8_t> safetensors_serialize(const TensorFile& file);    // always writes F32
Status safetensors_write(const std::string& path, const TensorFile& file);  // via file_write_atomic

// What the writer needs: unique names other than "__metadata__", valid UTF-8 names and metadata,
// non-negative dims, and data.size() == numel() for every tensor.
Status tensor_file_check(const TensorFile& file);

Tensor tensor_from_mat(std::string name, MatRef m);       // shape {rows, cols}
Tensor tensor_from_vec(std::string name, const Vec& v);   // shape {n}
// 2-D tensor -> (rows, cols); 1-D -> (1, n); mapped tensors are converted from their bytes. Any other rank, or a shape mismatch with `expect_rows/cols`
// when they are >= 0, is an error naming the tensor and both shapes.
Result<Mat> tensor_to_mat(const Tensor& t, int64_t expect_rows = -1, int64_t expect_cols = -1);
Result<Vec> tensor_to_vec(const Tensor& t, int64_t expect_len = -1);   // 1-D only
// The checks of tensor_to_mat / tensor_to_vec alone, with the same messages, for a caller that
// converts into memory of its own (tensor_values_into).
Status tensor_check_mat(const Tensor& t, int64_t expect_rows = -1, int64_t expect_cols = -1);
Status tensor_check_vec(const Tensor& t, int64_t expect_len = -1);
// Converts the numel() values of a checked tensor into `out`, which has room for them: in stored
// (row-major) order, or, for a 2-D tensor with `transpose`, as its (cols, rows) transpose, made
// tile by tile so that neither side is walked a row apart per value. Returns whether every value
// is finite, checked on each piece while it is in cache (a loader then needs no second pass).
// Calls on distinct tensors may run concurrently.
[[nodiscard]] bool tensor_values_into(const Tensor& t, float* out, bool transpose = false);

std::string_view dtype_name(DType d);    // "F32", "F16", "BF16", "F64", "I64", ...
// Bit-exact widening of the 16-bit float formats (subnormals, infinities and NaNs included).
float f16_to_float(uint16_t bits);
float bf16_to_float(uint16_t bits);

}  // namespace attnviz
