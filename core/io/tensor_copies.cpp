#include "io/tensor_copies.h"

#include "base/memory_tuning.h"

namespace attnviz {

std::vector<char> tensor_copies_run(std::span<const TensorCopy> copies, const std::function<void(size_t)>& done) {
  std::vector<char> finite(copies.size(), 1);
  const auto n = static_cast<std::ptrdiff_t>(copies.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const Tensor& t = *copies[k].tensor;
    // A model's weights are hundreds of MB of fresh memory: map each destination's pages, and the
    // file's under a mapped tensor, in one call each rather than a page fault per 4 KB (a third of
    // opening a 12 x 768 model went to faults).
    memory_populate_for_write(copies[k].out, t.numel() * sizeof(float));
    if (t.raw) memory_populate_for_read(t.raw, t.numel() * dtype_size(t.stored));
    finite[k] = tensor_values_into(t, copies[k].out, copies[k].transpose);
    if (done) done(k);
  }
  return finite;
}

}  // namespace attnviz
