// The masks a trace can apply, each hiding (-inf) the keys a query may not see: causal, padding,
// local window, strided, custom cells. They combine: a key is visible only if every rule allows it.
#include "model/mask.h"

#include <cstdlib>
#include <limits>

namespace attnviz {

bool mask_visible(const MaskSpec& spec, int i, int j, int real_keys) {
  if (spec.causal && j > i) return false;
  if (spec.pad_to > 0 && j >= real_keys) return false;
  const int d = i - j;
  if (spec.window >= 0 && std::abs(d) > spec.window) return false;
  if (spec.stride > 0) {
    const int m = ((d % spec.stride) + spec.stride) % spec.stride;  // mathematical mod for negative d
    if (!(std::abs(d) < spec.stride || m == 0)) return false;
  }
  return true;
}

Mat mask_build(const MaskSpec& spec, int n_queries, int n_keys, int real_keys) {
  const float hidden = -std::numeric_limits<float>::infinity();
  Mat mask(n_queries, n_keys);
  for (int i = 0; i < n_queries; ++i)
    for (int j = 0; j < n_keys; ++j) mask(i, j) = mask_visible(spec, i, j, real_keys) ? 0.0f : hidden;
  for (const auto& [i, j] : spec.hidden_cells)
    if (i < n_queries && j < n_keys) mask(i, j) = hidden;
  return mask;
}

std::vector<int> mask_fully_hidden_rows(const Mat& mask) {
  std::vector<int> rows;
  if (mask.cols() == 0) return rows;
  for (Eigen::Index q = 0; q < mask.rows(); ++q)
    if (!mask.row(q).array().isFinite().any()) rows.push_back(static_cast<int>(q));
  return rows;
}

}  // namespace attnviz
