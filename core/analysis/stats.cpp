// Straight loops: T x T per head is small next to the forward pass that produced it.
#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace attnviz {

HeadStats head_stats(const Mat& w, const std::vector<bool>& is_punct) {
  HeadStats s;
  int rows = 0;
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double sum = 0, entropy = 0, distance = 0, punct = 0;
    float max = 0;
    for (Eigen::Index j = 0; j < w.cols(); ++j) {
      const double p = w(i, j);
      sum += p;
      if (p > 0) entropy -= p * std::log(p);
      distance += p * std::abs(static_cast<double>(i - j));
      if (static_cast<size_t>(j) < is_punct.size() && is_punct[static_cast<size_t>(j)]) punct += p;
      max = std::max(max, w(i, j));
    }
    if (sum <= 0) continue;  // a fully masked query attends nowhere
    ++rows;
    s.entropy += static_cast<float>(entropy);
    s.max_weight += max;
    s.mean_distance += static_cast<float>(distance);
    s.first_token_share += w(i, 0);
    s.punct_share += static_cast<float>(punct);
  }
  if (rows > 0) {
    const float n = static_cast<float>(rows);
    s.entropy /= n;
    s.max_weight /= n;
    s.mean_distance /= n;
    s.first_token_share /= n;
    s.punct_share /= n;
  }
  return s;
}

std::vector<KeyWeight> key_weights_strongest(std::vector<KeyWeight> out, int k) {
  const size_t n = std::min(out.size(), static_cast<size_t>(std::max(k, 0)));
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(),
                    [](const KeyWeight& a, const KeyWeight& b) { return a.weight > b.weight || (a.weight == b.weight && a.key < b.key); });
  out.resize(n);
  return out;
}

std::vector<KeyWeight> top_keys(const Mat& w, int query, int k) {
  std::vector<KeyWeight> out;
  if (query < 0 || query >= w.rows() || k <= 0) return out;
  for (Eigen::Index j = 0; j < w.cols(); ++j)
    if (w(query, j) > 0.0f) out.push_back(KeyWeight{static_cast<int>(j), w(query, j)});
  return key_weights_strongest(std::move(out), k);
}

}  // namespace attnviz
