// Column sums in double so 128 small weights add up without drift; a fully masked query (all-zero
// row) is not counted, matching head_stats, which leaves such rows out of its averages.
#include "analysis/key_totals.h"

#include <algorithm>

namespace attnviz {

std::vector<KeyWeight> top_keys_received(const Mat& w, int k) {
  std::vector<KeyWeight> out;
  if (k <= 0 || w.rows() == 0 || w.cols() == 0) return out;
  std::vector<double> total(static_cast<size_t>(w.cols()), 0.0);
  int attending = 0;
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double row_sum = 0;
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      total[static_cast<size_t>(j)] += w(i, j);
      row_sum += w(i, j);
    }
    if (row_sum > 0) ++attending;
  }
  if (attending == 0) return out;
  for (size_t j = 0; j < total.size(); ++j)
    if (total[j] > 0) out.push_back(KeyWeight{static_cast<int>(j), static_cast<float>(total[j] / attending)});
  return key_weights_strongest(std::move(out), k);
}

}  // namespace attnviz
