// Converting many checked tensors into memory of their own at once: what both model loaders
// (model files and Hugging Face checkpoints) do with every weight. A mapped F32 weight is not
// converted at all: its matrix reads the mapping in place, and only its values are checked.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "base/weight_matrix.h"
#include "io/safetensors.h"

namespace attnviz {

// One planned tensor_values_into: a checked tensor into room for its numel() values; or, with
// `in_place`, a tensor some WeightMat already reads in place, whose values are only checked.
struct TensorCopy {
  const Tensor* tensor;
  float* out;
  bool transpose = false;
  bool in_place = false;
};

// Plans the checked 2-D tensor t as the (rows, cols) weight `out` (stored (cols, rows) with
// `transpose`): read in place when tensor_in_place_values(t) and not transposed (no copy and no
// fresh memory; `out` holds the mapping), else sized here and converted by tensor_copies_run.
TensorCopy weight_plan(const Tensor& t, Eigen::Index rows, Eigen::Index cols, bool transpose, WeightMat& out);

// Runs every copy, in parallel (OpenMP; each thread takes the next copy when it is free). Each
// destination is written by one thread, so the values do not depend on the thread count.
// `done(i)` runs after copy i, on the thread that made it. Returns, in the copies' order, whether
// each one's values were all finite.
std::vector<char> tensor_copies_run(std::span<const TensorCopy> copies, const std::function<void(size_t)>& done = {});

}  // namespace attnviz
