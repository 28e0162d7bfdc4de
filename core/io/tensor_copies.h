// Converting many checked tensors into memory of their own at once: what both model loaders
// (model files and Hugging Face checkpoints) do with every weight.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "io/safetensors.h"

namespace attnviz {

// One planned tensor_values_into: a checked tensor into room for its numel() values.
struct TensorCopy {
  const Tensor* tensor;
  float* out;
  bool transpose = false;
};

// Runs every copy, in parallel (OpenMP; each thread takes the next copy when it is free). Each
// destination is written by one thread, so the values do not depend on the thread count.
// `done(i)` runs after copy i, on the thread that made it. Returns, in the copies' order, whether
// each one's values were all finite.
std::vector<char> tensor_copies_run(std::span<const TensorCopy> copies, const std::function<void(size_t)>& done = {});

}  // namespace attnviz
