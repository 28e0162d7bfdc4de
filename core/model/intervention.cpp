// Interventions: checked against a config once, then handed to each layer as its share.
#include "model/intervention.h"

#include <algorithm>
#include <string>

namespace attnviz {

namespace {
std::string head_name(const HeadRef& h) { return std::to_string(h.layer) + ":" + std::to_string(h.head); }
}  // namespace

Status interventions_validate(const Interventions& iv, const ModelConfig& c, int n_tokens) {
  if (Status s = ablation_validate(iv.ablation, c); !s) return s;
  std::vector<HeadRef> seen;
  for (const HeadPatch& p : iv.heads) {
    if (p.head.layer < 0 || p.head.layer >= c.n_layers || p.head.head < 0 || p.head.head >= c.n_heads)
      return make_error("cannot patch head " + head_name(p.head) + ": the model has layers 0 to " +
                        std::to_string(c.n_layers - 1) + " and heads 0 to " + std::to_string(c.n_heads - 1));
    if (p.z.rows() != n_tokens || p.z.cols() != c.head_size())
      return make_error("the patch for head " + head_name(p.head) + " is " + std::to_string(p.z.rows()) + " x " +
                        std::to_string(p.z.cols()) + ", not " + std::to_string(n_tokens) + " x " +
                        std::to_string(c.head_size()) + " (tokens x head size)");
    if (std::find(seen.begin(), seen.end(), p.head) != seen.end())
      return make_error("head " + head_name(p.head) + " is patched twice");
    seen.push_back(p.head);
  }
  std::vector<std::pair<int, int>> rows;
  for (const ResidualPatch& p : iv.residual) {
    if (p.layer < 0 || p.layer >= c.n_layers)
      return make_error("cannot patch the residual entering layer " + std::to_string(p.layer) +
                        ": the model has layers 0 to " + std::to_string(c.n_layers - 1));
    if (p.position < 0 || p.position >= n_tokens)
      return make_error("cannot patch position " + std::to_string(p.position) + ": the input has " +
                        std::to_string(n_tokens) + " tokens");
    if (p.x.size() != c.d_model)
      return make_error("the residual patch at layer " + std::to_string(p.layer) + ", position " +
                        std::to_string(p.position) + " has " + std::to_string(p.x.size()) + " values, not d_model " +
                        std::to_string(c.d_model));
    if (std::find(rows.begin(), rows.end(), std::pair{p.layer, p.position}) != rows.end())
      return make_error("the residual entering layer " + std::to_string(p.layer) + " at position " +
                        std::to_string(p.position) + " is patched twice");
    rows.emplace_back(p.layer, p.position);
  }
  return Ok{};
}

LayerAblation interventions_for_layer(const Interventions& iv, int layer, int n_heads) {
  LayerAblation out = ablation_for_layer(iv.ablation, layer, n_heads);
  for (const HeadPatch& p : iv.heads) {
    if (p.head.layer != layer || p.head.head < 0 || p.head.head >= n_heads) continue;
    if (out.patch.empty()) out.patch.assign(static_cast<size_t>(n_heads), nullptr);
    out.patch[static_cast<size_t>(p.head.head)] = &p.z;
  }
  return out;
}

void interventions_apply_residual(const Interventions& iv, int layer, Mat& x) {
  for (const ResidualPatch& p : iv.residual)
    if (p.layer == layer && p.position >= 0 && p.position < x.rows() && p.x.size() == x.cols()) x.row(p.position) = p.x;
}

int interventions_first_layer(const Interventions& iv, const Ablation& base_ablation, const ModelConfig& c) {
  int first = c.n_layers;
  for (int l = 0; l < c.n_layers && first == c.n_layers; ++l) {
    const LayerAblation a = ablation_for_layer(iv.ablation, l, c.n_heads), b = ablation_for_layer(base_ablation, l, c.n_heads);
    if (a.off != b.off || (a.any() && a.mode != b.mode)) first = l;
  }
  for (const HeadPatch& p : iv.heads) first = std::min(first, p.head.layer);
  for (const ResidualPatch& p : iv.residual) first = std::min(first, p.layer);
  return std::max(first, 0);
}

}  // namespace attnviz
