// Straight loops over one head's (T, T) weights; the token comparisons are O(T^2) per head, small
// next to the forward pass. Every detector is "mean over qualifying queries of a row's share".
#include "analysis/detectors.h"

#include <algorithm>

#include "base/enum_names.h"
#include "model/head_map.h"

namespace attnviz {

namespace {

constexpr EnumNames<Detector, 5> kDetectorNames{{
    {Detector::previous_token, "previous_token"}, {Detector::first_token, "first_token"},
    {Detector::duplicate_token, "duplicate_token"}, {Detector::induction, "induction"},
    {Detector::coreference, "coreference"}}};
static_assert(std::size(kDetectorNames) == std::size(kAllDetectors));

// Sums a detector's per-query shares and counts the queries that qualified.
struct Mean {
  double sum = 0;
  int n = 0;
  void add(double v) {
    sum += v;
    ++n;
  }
  DetectorScore score() const {
    if (n == 0) return {};
    return DetectorScore{std::clamp(static_cast<float>(sum / n), 0.0f, 1.0f), true};
  }
};

bool row_masked(const Mat& w, Eigen::Index i) { return w.row(i).sum() <= 0.0f; }

// Queries i >= 1 (position 0 has no previous token, and its only key is itself under a causal mask).
DetectorScore positional(const Mat& w, bool previous) {
  Mean m;
  if (w.cols() == 0) return {};
  for (Eigen::Index i = 1; i < w.rows(); ++i) {
    const Eigen::Index key = previous ? i - 1 : 0;
    if (key >= w.cols() || row_masked(w, i)) continue;
    m.add(w(i, key));
  }
  return m.score();
}

// offset 0: duplicate-token (weight on earlier copies of the query's token, j < i).
// offset 1: induction (weight on the token after each earlier copy, j + 1 < i).
DetectorScore token_based(const Mat& w, const std::vector<std::string>& tokens, Eigen::Index offset) {
  const Eigen::Index n =
      std::min({w.rows(), w.cols(), static_cast<Eigen::Index>(tokens.size())});
  Mean m;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (row_masked(w, i)) continue;
    bool qualifies = false;
    double share = 0;
    for (Eigen::Index j = 0; j + offset < i; ++j) {
      if (tokens[static_cast<size_t>(j)] != tokens[static_cast<size_t>(i)]) continue;
      qualifies = true;
      share += w(i, j + offset);
    }
    if (qualifies) m.add(share);
  }
  return m.score();
}

DetectorScore coreference(const Mat& w, int pronoun, int referent) {
  if (pronoun < 0 || referent < 0 || pronoun >= w.rows() || referent >= w.cols()) return {};
  if (row_masked(w, pronoun)) return {};
  return DetectorScore{std::clamp(w(pronoun, referent), 0.0f, 1.0f), true};
}

}  // namespace

DetectorScore detector_score(Detector d, const Mat& weights, const std::vector<std::string>& tokens,
                             int pronoun, int referent) {
  switch (d) {
    case Detector::previous_token: return positional(weights, true);
    case Detector::first_token: return positional(weights, false);
    case Detector::duplicate_token: return token_based(weights, tokens, 0);
    case Detector::induction: return token_based(weights, tokens, 1);
    case Detector::coreference: return coreference(weights, pronoun, referent);
  }
  return {};
}

DetectorGrid detector_grid(Detector d, const Trace& trace, int pronoun, int referent) {
  return std::move(detector_grids({d}, trace, pronoun, referent).front());
}

std::vector<DetectorGrid> detector_grids(const std::vector<Detector>& detectors, const Trace& trace, int pronoun,
                                         int referent, const HeadMapVisitor& visit) {
  const int n = std::min(trace.n_queries(), trace.real_keys);
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(trace.queries[static_cast<size_t>(i)].text);
  const int L = static_cast<int>(trace.layers.size()), NH = trace.config.n_heads;
  std::vector<DetectorGrid> grids(detectors.size());
  for (size_t i = 0; i < detectors.size(); ++i) {
    grids[i].detector = detectors[i];
    grids[i].by_layer_head.assign(static_cast<size_t>(L), std::vector<DetectorScore>(static_cast<size_t>(NH)));
  }
  const bool scored = !trace.cross && n > 0;
  if (!scored && !visit) return grids;
  // Each head's map formed once for every detector (and the visitor), one map per thread at a time:
  // a trace whose maps are formed on demand never holds them all. Heads in parallel when a map is
  // large enough to outweigh the fork and join.
  const bool in_parallel = int64_t{trace.n_queries()} * trace.n_keys() * L * NH >= (int64_t{1} << 22);
#pragma omp parallel for schedule(dynamic, 1) if (in_parallel)
  for (int i = 0; i < L * NH; ++i) {
    const int l = i / NH, h = i % NH;
    const HeadMap map = visit ? head_map(trace, l, h) : HeadMap::of_formed(scored ? head_map_rows(trace, l, h, 0, n) : Mat());
    if (visit) visit(l, h, *map);
    if (!scored) continue;
    // A copy, not a block expression: the public function takes a plain Mat.
    const Mat w = map->topLeftCorner(n, std::min<Eigen::Index>(n, map->cols()));
    for (size_t k = 0; k < detectors.size(); ++k)
      grids[k].by_layer_head[static_cast<size_t>(l)][static_cast<size_t>(h)] =
          detector_score(detectors[k], w, tokens, pronoun, referent);
  }
  return grids;
}

std::string_view name_of(Detector d) { return enum_name(kDetectorNames, d); }

std::optional<Detector> detector_from_name(std::string_view s) { return enum_from_name(kDetectorNames, s); }

std::string_view detector_definition(Detector d) {
  switch (d) {
    case Detector::previous_token:
      return "mean over queries i >= 1 of the weight on key i-1 (the token just before)";
    case Detector::first_token:
      return "mean over queries i >= 1 of the weight on key 0 (the attention sink)";
    case Detector::duplicate_token:
      return "over queries whose token occurred before: mean weight on those earlier copies";
    case Detector::induction:
      return "over queries whose token occurred before: mean weight on the token that followed each earlier copy";
    case Detector::coreference:
      return "the weight the pronoun's query puts on its referent's key";
  }
  return "";
}

}  // namespace attnviz
