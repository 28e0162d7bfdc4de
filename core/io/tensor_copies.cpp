#include "io/tensor_copies.h"

namespace attnviz {

std::vector<char> tensor_copies_run(std::span<const TensorCopy> copies, const std::function<void(size_t)>& done) {
  std::vector<char> finite(copies.size(), 1);
  const auto n = static_cast<std::ptrdiff_t>(copies.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    finite[k] = tensor_values_into(*copies[k].tensor, copies[k].out, copies[k].transpose);
    if (done) done(k);
  }
  return finite;
}

}  // namespace attnviz
