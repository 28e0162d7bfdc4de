// Random initialisation and shape checking of Model. Initialisation draws from our own generators
// (base/rng.h), so the floats are bit-identical on every machine and at any thread count.
#include "model/model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "base/memory_tuning.h"
#include "base/rng.h"

namespace attnviz {

namespace {

double xavier(int fan_in, int fan_out) { return std::sqrt(2.0 / (fan_in + fan_out)); }

// One random tensor to draw: its stream name, shape and scale. A tensor's values depend on nothing
// else (seed_for(seed, name) seeds its stream), so one with the same name, shape and seed can be
// copied from an earlier model instead of drawn again. MatT is `const WeightMat` when the plan only
// describes an earlier model's tensors.
template <class MatT>
struct Draw {
  std::string name;
  MatT* out;
  int rows, cols;
  double stddev;
};

// Every random tensor of a model, in a fixed order.
template <class MatT>
struct DrawPlan {
  std::vector<Draw<MatT>> draws;
  void add(std::string name, MatT& out, int rows, int cols, double stddev) {
    draws.push_back(Draw<MatT>{std::move(name), &out, rows, cols, stddev});
  }
  // Stacks one (HS, HS) random block per head; each head is Xavier-scaled on its own.
  void add_per_head_blocks(std::string name, MatT& out, int n_heads, int hs) {
    add(std::move(name), out, n_heads * hs, hs, xavier(hs, hs));
  }
};

std::string layer_prefix(size_t i) { return "layers." + std::to_string(i) + "."; }

// ModelT is Model or const Model; the plan points into it.
template <class ModelT>
using PlanOf = DrawPlan<std::conditional_t<std::is_const_v<ModelT>, const WeightMat, WeightMat>>;

template <class ModelT>
void plan_general(PlanOf<ModelT>& plan, ModelT& model, size_t i) {
  const int NH = model.config.n_heads, HS = model.config.head_size();
  plan.add_per_head_blocks(layer_prefix(i) + "self_attn.score_general.w", model.weights.layers[i].attn.general_w, NH, HS);
}

template <class ModelT>
void plan_additive(PlanOf<ModelT>& plan, ModelT& model, size_t i) {
  const int NH = model.config.n_heads, HS = model.config.head_size();
  const std::string p = layer_prefix(i);
  auto& a = model.weights.layers[i].attn;
  plan.add_per_head_blocks(p + "self_attn.score_additive.w_q", a.additive_wq, NH, HS);
  plan.add_per_head_blocks(p + "self_attn.score_additive.w_k", a.additive_wk, NH, HS);
  // v's scale keeps the additive scores' spread near that of scaled dot-product (std ~1.5).
  plan.add(p + "self_attn.score_additive.v", a.additive_v, NH, HS, 2.0 / std::sqrt(HS));
}

template <class ModelT>
PlanOf<ModelT> plan_random_weights(ModelT& model) {
  const ModelConfig& c = model.config;
  const int C = c.d_model, F = c.d_ff;
  PlanOf<ModelT> plan;
  for (size_t i = 0; i < model.weights.layers.size(); ++i) {
    const std::string p = layer_prefix(i);
    auto& L = model.weights.layers[i];
    // W_q, W_k, W_v are each a (C, C) map: Xavier over (C, C), as PyTorch's per-block init (with
    // grouped key/value heads W_k and W_v are narrower, drawn at the same scale).
    plan.add(p + "self_attn.in_proj_weight", L.attn.in_proj_w, c.q_dim() + 2 * c.kv_dim(), C, xavier(C, C));
    plan.add(p + "self_attn.out_proj.weight", L.attn.out_w, C, c.q_dim(), xavier(C, C));
    if (F > 0) {
      if (c.gated_ffn) plan.add(p + "gate.weight", L.ff_gate_w, F, C, xavier(C, F));
      plan.add(p + "linear1.weight", L.ff1_w, F, C, xavier(C, F));
      plan.add(p + "linear2.weight", L.ff2_w, C, F, xavier(F, C));
    }
    plan_general(plan, model, i);
    plan_additive(plan, model, i);
  }
  if (c.positions == PositionEncoding::learned)
    plan.add("pos_embed.weight", model.weights.pos_embed, c.max_positions, C, std::sqrt(0.5));
  if (c.type_vocab > 0) plan.add("type_embed.weight", model.weights.type_embed, c.type_vocab, C, std::sqrt(0.5));
  return plan;
}

// The earlier tensor that equals `draw` bit for bit: same stream name, shape and scale, and present.
const WeightMat* same_tensor(const Draw<WeightMat>& draw, const DrawPlan<const WeightMat>& earlier) {
  for (const Draw<const WeightMat>& e : earlier.draws)
    if (e.name == draw.name && e.rows == draw.rows && e.cols == draw.cols && e.stddev == draw.stddev &&
        e.out->rows() == e.rows && e.out->cols() == e.cols)
      return e.out;
  return nullptr;
}

// A part of one tensor of the plan: its values [begin, end).
struct DrawPart {
  size_t draw;
  size_t begin, end;
};

// Values per part of a tensor whose stream can be drawn in parts: 1 MB, enough to keep the threads'
// hand-overs rare, small enough that both threads end together.
constexpr size_t kPartValues = size_t{1} << 18;

// Draws every tensor of the plan, each from its own stream, or copies it from `earlier` when that
// has it. Tensors are independent, and so are the parts of a Philox stream: they are drawn in
// parallel, and the values do not depend on the thread count. A polar stream is drawn in order,
// a tensor to a thread.
void run_plan(const DrawPlan<WeightMat>& plan, uint64_t seed, RngGenerator generator,
              const DrawPlan<const WeightMat>* earlier) {
  std::vector<const WeightMat*> from(plan.draws.size(), nullptr);
  std::vector<DrawPart> parts;
  for (size_t d = 0; d < plan.draws.size(); ++d) {
    const Draw<WeightMat>& draw = plan.draws[d];
    draw.out->resize(draw.rows, draw.cols);
    memory_prefer_huge_pages(draw.out->data(), static_cast<size_t>(draw.out->size()) * sizeof(float));
    from[d] = earlier ? same_tensor(draw, *earlier) : nullptr;
    const auto n = static_cast<size_t>(draw.out->size());
    const size_t step = from[d] || rng_generator_splits(generator) ? kPartValues : std::max<size_t>(n, 1);
    for (size_t begin = 0; begin < n; begin += step) parts.push_back({d, begin, std::min(n, begin + step)});
  }
  const auto count = static_cast<std::ptrdiff_t>(parts.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const DrawPart& part = parts[static_cast<size_t>(i)];
    const Draw<WeightMat>& draw = plan.draws[part.draw];
    float* out = draw.out->data() + part.begin;
    const size_t n = part.end - part.begin;
    // Fresh memory, all of it about to be written: its pages mapped in one call, not one fault each.
    memory_populate_for_write(out, n * sizeof(float));
    if (const WeightMat* copy = from[part.draw]) {
      std::copy_n(copy->data() + part.begin, n, out);
    } else if (rng_generator_splits(generator)) {
      philox_fill_normal(seed_for(seed, draw.name), part.begin, out, n, draw.stddev);
    } else {
      rng_fill_normal(generator, seed_for(seed, draw.name), out, n, draw.stddev);
    }
  }
}

// The constant part of a fresh model: zero biases, unit LayerNorms.
void set_constant_weights(Model& model) {
  const ModelConfig& c = model.config;
  const int C = c.d_model, F = c.d_ff;
  for (LayerWeights& L : model.weights.layers) {
    L.attn.in_proj_b = Vec::Zero(c.q_dim() + 2 * c.kv_dim());
    L.attn.out_b = Vec::Zero(C);
    L.norm1_w = Vec::Ones(C);
    L.norm1_b = Vec::Zero(C);
    if (c.qk_norm) {
      L.attn.q_norm_w = Vec::Ones(c.head_size());
      L.attn.k_norm_w = Vec::Ones(c.head_size());
    }
    if (c.sublayer_norm) {
      L.attn_out_norm_w = Vec::Ones(C);
      if (F > 0) L.ffn_out_norm_w = Vec::Ones(C);
    }
    if (F > 0) {  // attention-only layers (F == 0) have no FFN and no norm around it
      L.ff1_b = Vec::Zero(F);
      L.ff2_b = Vec::Zero(C);
      L.norm2_w = Vec::Ones(C);
      L.norm2_b = Vec::Zero(C);
    }
  }
  if (c.final_norm) {
    model.weights.final_norm_w = Vec::Ones(C);
    model.weights.final_norm_b = Vec::Zero(C);
  }
  if (c.embed_norm) {
    model.weights.embed_norm_w = Vec::Ones(C);
    model.weights.embed_norm_b = Vec::Zero(C);
  }
}

Model fresh_model(const ModelConfig& c, uint64_t seed, RngGenerator generator) {
  Model model;
  model.config = c;
  model.seed = seed;
  model.generator = generator;
  model.source = made_source(kSourceSandbox, seed);
  model.weights.layers.resize(static_cast<size_t>(c.n_layers));
  set_constant_weights(model);
  return model;
}

}  // namespace

std::string made_source(std::string_view what, uint64_t seed) {
  return std::string(what) + " (seed " + std::to_string(seed) + ")";
}

bool made_source_seed(std::string_view source, std::string_view what, uint64_t& seed) {
  const std::string head = std::string(what) + " (seed ";
  if (source.size() < head.size() + 2 || source.substr(0, head.size()) != head || source.back() != ')') return false;
  const std::string_view digits = source.substr(head.size(), source.size() - head.size() - 1);
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || made_source(what, value) != source)
    return false;  // not a number, or not as made_source writes it ("007")
  seed = value;
  return true;
}

void model_init_score_parameters(Model& model, uint64_t seed) {
  DrawPlan<WeightMat> plan;
  for (size_t i = 0; i < model.weights.layers.size(); ++i) {
    plan_general(plan, model, i);
    plan_additive(plan, model, i);
  }
  run_plan(plan, seed, model.generator, nullptr);
}

void model_ensure_score_parameters(Model& model, uint64_t seed) {
  if (model.layer_source) return;  // a file's layers score as the file's model does
  DrawPlan<WeightMat> plan;
  const bool general = config_uses(model.config, ScoreKind::general);
  const bool additive = config_uses(model.config, ScoreKind::additive);
  for (size_t i = 0; i < model.weights.layers.size(); ++i) {
    const AttentionWeights& a = model.weights.layers[i].attn;
    if (general && a.general_w.size() == 0) plan_general(plan, model, i);
    if (additive && a.additive_v.size() == 0) plan_additive(plan, model, i);
  }
  run_plan(plan, seed, model.generator, nullptr);
}

Model model_init_random(const ModelConfig& c, uint64_t seed, RngGenerator generator) {
  Model model = fresh_model(c, seed, generator);
  run_plan(plan_random_weights(model), seed, generator, nullptr);
  return model;
}

Model model_init_random_from(const ModelConfig& c, uint64_t seed, const Model& earlier, RngGenerator generator) {
  if (earlier.seed != seed || earlier.generator != generator) return model_init_random(c, seed, generator);
  Model model = fresh_model(c, seed, generator);
  const DrawPlan<const WeightMat> earlier_plan = plan_random_weights(earlier);
  run_plan(plan_random_weights(model), seed, generator, &earlier_plan);
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
  if (Status s = config_validate(model.config, model.layer_source ? kMaxEncodedLayerParams : kMaxLayerParams); !s) return s;
  const ModelConfig& c = model.config;
  const ModelWeights& w = model.weights;
  const int C = c.d_model, F = c.d_ff, NH = c.n_heads, HS = c.head_size(), KV = c.kv_dim(), QD = c.q_dim();
  if (static_cast<int>(w.layers.size()) != c.n_layers)
    return make_error("the model has " + std::to_string(w.layers.size()) + " layers of weights but the config says " +
                      std::to_string(c.n_layers));
  ShapeChecker chk;
  chk.finite = finite;
  const bool general = config_uses(c, ScoreKind::general), additive = config_uses(c, ScoreKind::additive);
  // Layers kept in their file's encoding are checked by their source as it decodes them.
  for (int i = 0; i < c.n_layers && !model.layer_source; ++i) {
    const LayerWeights& L = w.layers[static_cast<size_t>(i)];
    const std::string p = "layers." + std::to_string(i) + ".";
    chk.expect(L.attn.in_proj_w, p + "self_attn.in_proj_weight", QD + 2 * KV, C);
    chk.expect(L.attn.in_proj_b, p + "self_attn.in_proj_bias", QD + 2 * KV, 1);
    chk.expect(L.attn.out_w, p + "self_attn.out_proj.weight", C, QD);
    chk.expect(L.attn.out_b, p + "self_attn.out_proj.bias", C, 1);
    // Present exactly when the config has them.
    auto optional_vec = [&](const Vec& v, const std::string& name, int size, bool used, const char* what) {
      if (used) chk.expect(v, name, size, 1);
      else if (chk.error.empty() && v.size() > 0)
        chk.error = "tensor '" + name + "' is present but the config has no " + what;
    };
    optional_vec(L.attn.q_norm_w, p + "self_attn.q_norm.weight", HS, c.qk_norm, "normalised queries and keys (qk_norm)");
    optional_vec(L.attn.k_norm_w, p + "self_attn.k_norm.weight", HS, c.qk_norm, "normalised queries and keys (qk_norm)");
    optional_vec(L.attn_out_norm_w, p + "post_attention_norm.weight", C, c.sublayer_norm,
                 "normalised sublayer outputs (sublayer_norm)");
    optional_vec(L.ffn_out_norm_w, p + "post_feedforward_norm.weight", C, c.sublayer_norm && F > 0,
                 "normalised sublayer outputs (sublayer_norm)");
    // Scoring-function parameters: needed when a head scores that way; otherwise absent (a loaded
    // file's model makes them only when asked, model_ensure_score_parameters) or of the right shape.
    auto score_tensor = [&](const WeightMat& m, const char* name, int rows, bool used) {
      if (used || m.size() > 0) chk.expect(m, p + name, rows, HS);
    };
    score_tensor(L.attn.general_w, "self_attn.score_general.w", NH * HS, general);
    score_tensor(L.attn.additive_wq, "self_attn.score_additive.w_q", NH * HS, additive);
    score_tensor(L.attn.additive_wk, "self_attn.score_additive.w_k", NH * HS, additive);
    score_tensor(L.attn.additive_v, "self_attn.score_additive.v", NH, additive);
    chk.expect(L.norm1_w, p + "norm1.weight", C, 1);
    chk.expect(L.norm1_b, p + "norm1.bias", C, 1);
    if (F > 0 && c.gated_ffn) chk.expect(L.ff_gate_w, p + "gate.weight", F, C);
    else chk.expect_absent(L.ff_gate_w, p + "gate.weight");
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
  if (const EncodedRows* e = w.tok_embed_encoded.get()) {  // kept in its file's encoding (model/vocab_table.h)
    if (!model.tokenizer || e->rows() < model.tokenizer->vocab_size() || e->cols() != C || w.tok_embed.size() > 0)
      return make_error("tensor '" + e->name() + "' has shape (" + std::to_string(e->rows()) + ", " + std::to_string(e->cols()) +
                        ") but the tokenizer has " + std::to_string(model.tokenizer ? model.tokenizer->vocab_size() : 0) +
                        " pieces of width " + std::to_string(C));
  } else if (model.tokenizer) {
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
  if (const EncodedRows* e = w.output_w_encoded.get()) {
    if (e->rows() != vocab_table_rows(model, VocabTable::tokens) || e->cols() != C || w.output_w.size() > 0)
      return make_error("tensor '" + e->name() + "' has shape (" + std::to_string(e->rows()) + ", " + std::to_string(e->cols()) +
                        ") but the token table has " + std::to_string(vocab_table_rows(model, VocabTable::tokens)) +
                        " rows of width " + std::to_string(C));
    chk.expect(w.output_b, "output.bias", static_cast<int>(e->rows()), 1);
  } else if (w.output_w.size() > 0) {  // one row per vocabulary entry: the word list, or a checkpoint's table
    const int V = model.tokenizer ? static_cast<int>(w.tok_embed.rows()) : static_cast<int>(model.vocab.size());
    chk.expect(w.output_w, "output.weight", V, C);
    chk.expect(w.output_b, "output.bias", V, 1);
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
  if (vocab_table_rows(model, VocabTable::output) > 0) return OutputHead::linear;
  if (w.mlm_dense_w.size() > 0 && w.tok_embed.size() > 0) return OutputHead::bert_mlm;
  if (model.tokenizer && model.config.causal && vocab_table_rows(model, VocabTable::tokens) > 0) return OutputHead::tied;
  return OutputHead::none;
}

Status model_check(const Model& model) { return check_model(model, true); }
Status model_check_shapes(const Model& model) { return check_model(model, false); }

}  // namespace attnviz
