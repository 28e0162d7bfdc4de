#include "analysis/flow_graph.h"

#include <cmath>

#include "analysis/logit_attribution.h"
#include "analysis/measures.h"

namespace attnviz {

std::string_view name_of(FlowWeight weight) { return weight == FlowWeight::attribution ? "attribution" : "value_norm"; }

Result<FlowGraph> flow_graph(const Model& model, const Trace& trace, int target, float threshold, FlowWeight weight) {
  if (trace.weights_only) return make_error("an attention file holds only the weights: the flow needs the values a model moves");
  if (trace.cross) return make_error("the flow of information is drawn for self-attention, not cross-attention");
  if (target < 0 || target >= trace.n_queries()) return make_error("position " + std::to_string(target) + " is outside the input");
  if (!(threshold > 0 && threshold <= 1)) return make_error("the threshold is a share between 0 and 1");
  const int L = static_cast<int>(trace.layers.size()), T = trace.n_queries(), NH = trace.config.n_heads;
  FlowGraph g;
  g.target = target;
  g.threshold = threshold;
  g.reached.assign(static_cast<size_t>(L + 1), std::vector<bool>(static_cast<size_t>(T), false));
  g.reached[static_cast<size_t>(L)][static_cast<size_t>(target)] = true;
  g.weight = weight;
  std::vector<std::vector<RowVec>> split;  // attribution: [L][NH] (Tk), each head's write into the target by key
  if (weight == FlowWeight::attribution) {
    auto a = logit_attribution(model, trace, -1, -1, target);
    if (!a) return make_error(a.error());
    auto s = head_source_attribution(model, trace, *a);
    if (!s) return make_error(s.error());
    g.answer_id = a->answer_id;
    g.wrong_id = a->wrong_id;
    split = std::move(*s);
  }
  for (int l = L - 1; l >= 0; --l) {
    std::vector<Mat> maps;
    for (int h = 0; h < NH; ++h) {
      auto m = value_norm_map(model, trace, l, h);
      if (!m) return make_error(m.error());
      maps.push_back(std::move(*m));
    }
    for (int i = 0; i < T; ++i) {
      if (!g.reached[static_cast<size_t>(l + 1)][static_cast<size_t>(i)]) continue;
      g.reached[static_cast<size_t>(l)][static_cast<size_t>(i)] = true;  // the residual stream carries i through
      if (i == target && !split.empty()) {
        const auto& layer = split[static_cast<size_t>(l)];
        double total = 0;
        for (const RowVec& by_key : layer) total += by_key.cwiseAbs().sum();
        if (total <= 0) continue;
        for (int h = 0; h < NH; ++h)
          for (Eigen::Index j = 0; j < layer[static_cast<size_t>(h)].size(); ++j) {
            const float share = static_cast<float>(layer[static_cast<size_t>(h)](j) / total);
            if (std::abs(share) < threshold) continue;
            g.edges.push_back(FlowEdge{l, h, static_cast<int>(j), i, share, FlowWeight::attribution});
            g.reached[static_cast<size_t>(l)][static_cast<size_t>(j)] = true;
          }
        continue;
      }
      double total = 0;
      for (const Mat& m : maps) total += m.row(i).sum();
      if (total <= 0) continue;
      for (int h = 0; h < NH; ++h)
        for (int j = 0; j < maps[static_cast<size_t>(h)].cols(); ++j) {
          const float share = static_cast<float>(maps[static_cast<size_t>(h)](i, j) / total);
          if (share < threshold) continue;
          g.edges.push_back(FlowEdge{l, h, j, i, share, FlowWeight::value_norm});
          g.reached[static_cast<size_t>(l)][static_cast<size_t>(j)] = true;
        }
    }
  }
  return g;
}

}  // namespace attnviz
