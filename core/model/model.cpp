// Random initialisation and shape checking of Model. Initialisation runs in double through our
// own Rng so the floats are bit-identical on every machine.
#include "model/model.h"

#include <cmath>
#include <string>

#include "base/rng.h"

namespace attnviz {

namespace {

Mat random_normal(uint64_t seed, const std::string& name, int rows, int cols, double stddev) {
  Rng rng(seed_for(seed, name));
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(rng.normal() * stddev);
  return m;
}

double xavier(int fan_in, int fan_out) { return std::sqrt(2.0 / (fan_in + fan_out)); }

// Stacks one (HS, HS) random block per head; each head is Xavier-scaled on its own.
Mat per_head_blocks(uint64_t seed, const std::string& name, int n_heads, int hs) {
  return random_normal(seed, name, n_heads * hs, hs, xavier(hs, hs));
}

}  // namespace

void model_init_score_parameters(Model& model, uint64_t seed) {
  const int NH = model.config.n_heads, HS = model.config.head_size();
  for (size_t i = 0; i < model.weights.layers.size(); ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    AttentionWeights& a = model.weights.layers[i].attn;
    a.general_w = per_head_blocks(seed, p + "self_attn.score_general.w", NH, HS);
    a.additive_wq = per_head_blocks(seed, p + "self_attn.score_additive.w_q", NH, HS);
    a.additive_wk = per_head_blocks(seed, p + "self_attn.score_additive.w_k", NH, HS);
    // v's scale keeps the additive scores' spread near that of scaled dot-product (std ~1.5).
    a.additive_v = random_normal(seed, p + "self_attn.score_additive.v", NH, HS, 2.0 / std::sqrt(HS));
  }
}

Model model_init_random(const ModelConfig& c, uint64_t seed) {
  Model model;
  model.config = c;
  model.seed = seed;
  model.source = "sandbox (seed " + std::to_string(seed) + ")";
  const int C = c.d_model, F = c.d_ff;
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    LayerWeights L;
    // W_q, W_k, W_v are each a (C, C) map: Xavier over (C, C), as PyTorch's per-block init.
    L.attn.in_proj_w = random_normal(seed, p + "self_attn.in_proj_weight", 3 * C, C, xavier(C, C));
    L.attn.in_proj_b = Vec::Zero(3 * C);
    L.attn.out_w = random_normal(seed, p + "self_attn.out_proj.weight", C, C, xavier(C, C));
    L.attn.out_b = Vec::Zero(C);
    L.norm1_w = Vec::Ones(C);
    L.norm1_b = Vec::Zero(C);
    if (F > 0) {  // attention-only layers (F == 0) have no FFN and no norm around it
      L.ff1_w = random_normal(seed, p + "linear1.weight", F, C, xavier(C, F));
      L.ff1_b = Vec::Zero(F);
      L.ff2_w = random_normal(seed, p + "linear2.weight", C, F, xavier(F, C));
      L.ff2_b = Vec::Zero(C);
      L.norm2_w = Vec::Ones(C);
      L.norm2_b = Vec::Zero(C);
    }
    model.weights.layers.push_back(std::move(L));
  }
  model_init_score_parameters(model, seed);
  if (c.positions == PositionEncoding::learned)
    model.weights.pos_embed = random_normal(seed, "pos_embed.weight", c.max_positions, C, std::sqrt(0.5));
  if (c.final_norm) {
    model.weights.final_norm_w = Vec::Ones(C);
    model.weights.final_norm_b = Vec::Zero(C);
  }
  if (c.type_vocab > 0) model.weights.type_embed = random_normal(seed, "type_embed.weight", c.type_vocab, C, std::sqrt(0.5));
  if (c.embed_norm) {
    model.weights.embed_norm_w = Vec::Ones(C);
    model.weights.embed_norm_b = Vec::Zero(C);
  }
  return model;
}

namespace {

struct ShapeChecker {
  bool finite = true;  // also require finite values
  std::string error;
  // A tensor the config says the model does not have (the FFN of an attention-only layer).
  template <class M>
  void expect_absent(const M& m, const std::string& name) {
    if (error.empty() && m.size() > 0)
      error = "tensor '" + name + "' is present but the config has no feed-forward block (d_ff 0)";
  }
  template <class M>
  void expect(const M& m, const std::string& name, int rows, int cols) {
    if (!error.empty()) return;
    if (m.rows() != rows || m.cols() != cols) {
      error = "tensor '" + name + "' has shape (" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) +
              ") but the config needs (" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
    } else if (finite && !m.allFinite()) {
      error = "tensor '" + name + "' contains NaN or infinite values";
    }
  }
};

}  // namespace

namespace {

Status check_model(const Model& model, bool finite) {
  if (Status s = config_validate(model.config); !s) return s;
  const ModelConfig& c = model.config;
  const ModelWeights& w = model.weights;
  const int C = c.d_model, F = c.d_ff, NH = c.n_heads, HS = c.head_size();
  if (static_cast<int>(w.layers.size()) != c.n_layers)
    return make_error("the model has " + std::to_string(w.layers.size()) + " layers of weights but the config says " +
                      std::to_string(c.n_layers));
  ShapeChecker chk;
  chk.finite = finite;
  for (int i = 0; i < c.n_layers; ++i) {
    const LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = "layers." + std::to_string(i) + ".";
    chk.expect(L.attn.in_proj_w, p + "self_attn.in_proj_weight", 3 * C, C);
    chk.expect(L.attn.in_proj_b, p + "self_attn.in_proj_bias", 3 * C, 1);
    chk.expect(L.attn.out_w, p + "self_attn.out_proj.weight", C, C);
    chk.expect(L.attn.out_b, p + "self_attn.out_proj.bias", C, 1);
    chk.expect(L.attn.general_w, p + "self_attn.score_general.w", NH * HS, HS);
    chk.expect(L.attn.additive_wq, p + "self_attn.score_additive.w_q", NH * HS, HS);
    chk.expect(L.attn.additive_wk, p + "self_attn.score_additive.w_k", NH * HS, HS);
    chk.expect(L.attn.additive_v, p + "self_attn.score_additive.v", NH, HS);
    chk.expect(L.norm1_w, p + "norm1.weight", C, 1);
    chk.expect(L.norm1_b, p + "norm1.bias", C, 1);
    if (F > 0) {
      chk.expect(L.ff1_w, p + "linear1.weight", F, C);
      chk.expect(L.ff1_b, p + "linear1.bias", F, 1);
      chk.expect(L.ff2_w, p + "linear2.weight", C, F);
      chk.expect(L.ff2_b, p + "linear2.bias", C, 1);
      chk.expect(L.norm2_w, p + "norm2.weight", C, 1);
      chk.expect(L.norm2_b, p + "norm2.bias", C, 1);
    } else {
      chk.expect_absent(L.ff1_w, p + "linear1.weight");
      chk.expect_absent(L.ff1_b, p + "linear1.bias");
      chk.expect_absent(L.ff2_w, p + "linear2.weight");
      chk.expect_absent(L.ff2_b, p + "linear2.bias");
      chk.expect_absent(L.norm2_w, p + "norm2.weight");
      chk.expect_absent(L.norm2_b, p + "norm2.bias");
    }
  }
  if (model.tokenizer) {
    // Checkpoints may pad their embedding table beyond the tokenizer's ids, never the other way.
    if (w.tok_embed.rows() < model.tokenizer->vocab_size() || w.tok_embed.cols() != C)
      return make_error("tensor 'tok_embed.weight' has shape (" + std::to_string(w.tok_embed.rows()) + ", " +
                        std::to_string(w.tok_embed.cols()) + ") but the tokenizer has " +
                        std::to_string(model.tokenizer->vocab_size()) + " pieces of width " + std::to_string(C));
    chk.expect(w.tok_embed, "tok_embed.weight", static_cast<int>(w.tok_embed.rows()), C);
  } else if (w.tok_embed.size() > 0) {
    chk.expect(w.tok_embed, "tok_embed.weight", static_cast<int>(model.vocab.size()), C);
  }
  if (c.type_vocab > 0) chk.expect(w.type_embed, "type_embed.weight", c.type_vocab, C);
  if (c.embed_norm) {
    chk.expect(w.embed_norm_w, "embed_norm.weight", C, 1);
    chk.expect(w.embed_norm_b, "embed_norm.bias", C, 1);
  }
  if (c.positions == PositionEncoding::learned) {
    chk.expect(w.pos_embed, "pos_embed.weight", c.max_positions, C);
  }
  if (c.final_norm) {
    chk.expect(w.final_norm_w, "norm.weight", C, 1);
    chk.expect(w.final_norm_b, "norm.bias", C, 1);
  }
  if (w.output_w.size() > 0) {
    chk.expect(w.output_w, "output.weight", static_cast<int>(model.vocab.size()), C);
    chk.expect(w.output_b, "output.bias", static_cast<int>(model.vocab.size()), 1);
  }
  if (w.mlm_dense_w.size() > 0) {
    chk.expect(w.mlm_dense_w, "cls.predictions.transform.dense.weight", C, C);
    chk.expect(w.mlm_dense_b, "cls.predictions.transform.dense.bias", C, 1);
    chk.expect(w.mlm_norm_w, "cls.predictions.transform.LayerNorm.weight", C, 1);
    chk.expect(w.mlm_norm_b, "cls.predictions.transform.LayerNorm.bias", C, 1);
    chk.expect(w.output_b, "cls.predictions.bias", static_cast<int>(w.tok_embed.rows()), 1);
  }
  if (!chk.error.empty()) return make_error(chk.error);
  return Ok{};
}

}  // namespace

OutputHead model_output_head(const Model& model) {
  const ModelWeights& w = model.weights;
  if (w.output_w.size() > 0) return OutputHead::linear;
  if (w.mlm_dense_w.size() > 0 && w.tok_embed.size() > 0) return OutputHead::bert_mlm;
  if (model.tokenizer && model.config.causal && w.tok_embed.size() > 0) return OutputHead::tied;
  return OutputHead::none;
}

Status model_check(const Model& model) { return check_model(model, true); }
Status model_check_shapes(const Model& model) { return check_model(model, false); }

}  // namespace attnviz
