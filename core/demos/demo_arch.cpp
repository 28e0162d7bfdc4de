// The demos' shared architecture description and starting-weight adjustments (demo_arch.h).
#include "demos/demo_arch.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "base/parse_number.h"

namespace attnviz {

bool operator==(const DemoArch& a, const DemoArch& b) {
  return a.seed == b.seed && a.d_model == b.d_model && a.n_heads == b.n_heads && a.n_layers == b.n_layers &&
         a.d_ff == b.d_ff && a.score == b.score && a.norm == b.norm && a.positions == b.positions;
}

std::string demo_arch_format(const DemoArch& a) {
  return "heads=" + std::to_string(a.n_heads) + " d_model=" + std::to_string(a.d_model) +
         " layers=" + std::to_string(a.n_layers) + " ffn=" + std::to_string(a.d_ff) +
         " score=" + std::string(name_of(a.score)) + " norm=" + std::string(name_of(a.norm)) +
         " positions=" + std::string(name_of(a.positions)) + " seed=" + std::to_string(a.seed);
}

Result<DemoArch> demo_arch_parse(std::string_view text, DemoArch a) {
  std::istringstream words{std::string(text)};
  std::string kv;
  while (words >> kv) {
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    bool ok = true;
    if (key == "heads")
      ok = parse_int_in(value, 1, 64, a.n_heads);
    else if (key == "d_model")
      ok = parse_int_in(value, 1, 1024, a.d_model);
    else if (key == "layers")
      ok = parse_int_in(value, 1, 4, a.n_layers);
    else if (key == "ffn")
      ok = parse_int_in(value, 0, 4096, a.d_ff);
    else if (key == "score")
      ok = (score_from_name(value) ? (a.score = *score_from_name(value), true) : false);
    else if (key == "norm")
      ok = (norm_from_name(value) ? (a.norm = *norm_from_name(value), true) : false);
    else if (key == "positions")
      ok = (positions_from_name(value) ? (a.positions = *positions_from_name(value), true) : false);
    else if (key == "seed") {
      int seed = 0;
      ok = parse_int_in(value, 0, std::numeric_limits<int>::max(), seed);
      a.seed = static_cast<uint64_t>(seed);
    } else
      return make_error("unknown key '" + key + "' (heads, d_model, layers, ffn, score, norm, positions, seed)");
    if (!ok) return make_error("bad value for " + key + ": '" + value + "'");
  }
  if (a.d_model % a.n_heads != 0) return make_error("d_model must be divisible by heads");
  return a;
}

std::string demo_arch_key(const DemoArch& a, const DemoArch& shipped) {
  std::string key = "heads" + std::to_string(a.n_heads) + "_dmodel" + std::to_string(a.d_model);
  if (a.n_layers != shipped.n_layers) key += "_layers" + std::to_string(a.n_layers);
  if (a.d_ff != shipped.d_ff) key += "_ffn" + std::to_string(a.d_ff);
  if (a.score != shipped.score) key += "_" + std::string(name_of(a.score));
  if (a.norm != shipped.norm) key += "_" + std::string(name_of(a.norm));
  if (a.positions != shipped.positions) key += "_" + std::string(name_of(a.positions));
  return key;
}

// Heads whose scores are not divided by √HS (unscaled dot-product, "general") start with scores
// 1/HS the size the default draw gives them: W_q and W_k each HS^-1/2 smaller, or G HS^-1 smaller.
// Their scores are sums over the head's HS values and, unscaled, grow with it, so wide heads began
// with a saturated softmax and some never learned (one unscaled-dot head at d_model 128: 48% held-out
// after 3,000 steps; 99.04% after 900 with this start). 1/HS is μP's scaling of attention scores
// (Yang et al. 2021), here put into the start since the model's definition has no divisor
// (bench/README.md has the runs, on the coreference demo). Scaled dot-product and additive heads keep
// the default draw.
void start_unscaled_scores_small(Model& m) {
  const ModelConfig& c = m.config;
  // One scoring function for every head: the demo's options have no per-head override.
  if (!c.head_scores.empty()) return;
  const float hs = static_cast<float>(c.head_size());
  for (LayerWeights& layer : m.weights.layers) {
    AttentionWeights& a = layer.attn;
    if (c.score == ScoreKind::dot) a.in_proj_w.topRows(2 * c.d_model) *= 1.0f / std::sqrt(hs);
    if (c.score == ScoreKind::general) a.general_w *= 1.0f / hs;
  }
}

// Deep models (3 layers or more) start with each residual branch's last projection, attention's W_O
// and the FFN's second linear, 0.5/√(2L) the size of the default draw. Every branch adds to the same
// residual stream, so at the default size a deep stack's stream starts out dominated by the branches'
// random outputs; GPT-2 scales these projections by 1/√(2L) for that reason (Radford et al. 2019).
// Here the half of that was best: over 124 architectures of 3–4 layers drawn from the Model panel's
// range, the steps to 99% held-out went 48,000 → 43,650 (d_model ≥ 64: 18,100 → 15,450) with none
// failing; 1/√(2L) itself gave 44,700, a quarter of it two runs that never reached 99%, zero 19,250
// for the wide ones (bench/README.md, twelfth session; the coreference demo). Models of 1–2 layers,
// the shipped demos and grid among them, keep the default draw and so their bits.
void start_deep_residual_branches_small(Model& m) {
  const int layers = m.config.n_layers;
  if (layers < 3) return;
  const float scale = 0.5f / std::sqrt(2.0f * static_cast<float>(layers));
  for (LayerWeights& layer : m.weights.layers) {
    layer.attn.out_w *= scale;
    if (layer.ff2_w.size() > 0) layer.ff2_w *= scale;
  }
}

Result<ModelConfig> demo_model_config(const DemoArch& a, int max_positions) {
  ModelConfig c;
  c.d_model = a.d_model;
  c.n_heads = a.n_heads;
  c.n_layers = a.n_layers;
  c.d_ff = a.d_ff;
  if (a.d_ff > 0) c.activation = Activation::gelu;
  c.norm = a.norm;
  c.positions = a.positions;
  c.score = a.score;
  c.max_positions = max_positions;
  c.final_norm = true;
  if (Status s = config_validate(c); !s) return make_error(s.error());
  return c;
}

}  // namespace attnviz
