#include "io/tensor_copies.h"

#include "base/memory_tuning.h"

namespace attnviz {

TensorCopy weight_plan(const Tensor& t, Eigen::Index rows, Eigen::Index cols, bool transpose, WeightMat& out) {
  if (float* values = transpose ? nullptr : tensor_in_place_values(t)) {
    out = WeightMat::in_place(values, rows, cols, t.mapping);
    return TensorCopy{&t, values, false, true};
  }
  out.resize(rows, cols);
  return TensorCopy{&t, out.data(), transpose, false};
}

std::vector<char> tensor_copies_run(std::span<const TensorCopy> copies, const std::function<void(size_t)>& done) {
  std::vector<char> finite(copies.size(), 1);
  const auto n = static_cast<std::ptrdiff_t>(copies.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const Tensor& t = *copies[k].tensor;
    // A model's weights are hundreds of MB: map the file's pages under a mapped tensor, and each
    // destination's fresh pages, in one call each rather than a page fault per 4 KB (a third of
    // opening a 12 x 768 model went to faults).
    if (t.raw) memory_populate_for_read(t.raw, t.numel() * dtype_size(t.stored));
    if (copies[k].in_place) {
      finite[k] = tensor_in_place_finite(t);
    } else {
      memory_populate_for_write(copies[k].out, t.numel() * sizeof(float));
      finite[k] = tensor_values_into(t, copies[k].out, copies[k].transpose);
    }
    if (done) done(k);
  }
  return finite;
}

}  // namespace attnviz
