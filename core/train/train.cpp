// Forward with every layer's trace kept, then core/train/backward.h layer by layer in reverse. The
// optimiser walks all tensors through one list (weights_tensors) so no tensor can be forgotten.
#include "train/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include <omp.h>

#include "base/rng.h"
#include "model/embed.h"
#include "model/kernels.h"
#include "model/layer.h"
#include "model/mask.h"
#include "train/backward.h"

namespace attnviz {

namespace {

// Every tensor of a ModelWeights, in one fixed order, with whether weight decay applies to it.
template <class W>
struct TensorRef {
  decltype(std::declval<W&>().output_w.data()) data;
  Eigen::Index size;
  bool decay;
};

// Every tensor of one layer, in weights_tensors' order, with whether weight decay applies to it.
template <class L, class Add>
void for_layer_tensors(L& layer, Add&& add) {
  add(layer.attn.in_proj_w, true);
  add(layer.attn.in_proj_b, false);
  add(layer.attn.out_w, true);
  add(layer.attn.out_b, false);
  add(layer.attn.general_w, true);
  add(layer.attn.additive_wq, true);
  add(layer.attn.additive_wk, true);
  add(layer.attn.additive_v, false);
  add(layer.ff1_w, true);
  add(layer.ff1_b, false);
  add(layer.ff2_w, true);
  add(layer.ff2_b, false);
  add(layer.norm1_w, false);
  add(layer.norm1_b, false);
  add(layer.norm2_w, false);
  add(layer.norm2_b, false);
}

template <class W>
std::vector<TensorRef<W>> weights_tensors(W& w) {
  std::vector<TensorRef<W>> out;
  auto add = [&](auto& m, bool decay) { out.push_back(TensorRef<W>{m.data(), m.size(), decay}); };
  for (auto& L : w.layers) for_layer_tensors(L, add);
  add(w.tok_embed, true);
  add(w.pos_embed, true);
  add(w.final_norm_w, false);
  add(w.final_norm_b, false);
  add(w.output_w, true);
  add(w.output_b, false);
  return out;
}

// a[j] += scale * b[j]: a multiplication, then an addition (no build fuses them).
void add_scaled(float* a, const float* b, Eigen::Index n, float scale) {
  for (Eigen::Index j = 0; j < n; ++j) a[j] += scale * b[j];
}

// Where one example's gradients go. model_loss_grads fills a fresh ModelWeights of zeros;
// batch_loss_grads adds scale * gradient straight into its shard's running sum, tensor by tensor
// and row by row, instead of copying, zeroing and summing a whole model of mostly zeros for every
// example (a fifth of training time). The sums have the same bits either way: adding a zero leaves
// a sum that started at +0 unchanged, and each token's rows are summed over positions first.
struct GradSink {
  ModelWeights& g;
  float scale = 1.0f;
  bool accumulate = false;

  template <class M>
  void put(M& to, const M& grad) const {
    if (accumulate) add_scaled(to.data(), grad.data(), to.size(), scale);
    else to = grad;
  }
  void put_layer(LayerWeights& to, LayerWeights&& grad) const {
    if (!accumulate) {
      to = std::move(grad);
      return;
    }
    std::vector<std::pair<float*, Eigen::Index>> sums;
    for_layer_tensors(to, [&](auto& m, bool) { sums.emplace_back(m.data(), m.size()); });
    size_t i = 0;
    for_layer_tensors(grad, [&](auto& m, bool) {
      const auto& [sum, size] = sums[i++];
      if (m.size() == size) add_scaled(sum, m.data(), size, scale);
    });
  }
  // The input gradient d (T, C) into the token rows (ids) and, with learned positions, position rows.
  void put_embeddings(const Mat& d, const std::vector<int>& ids, bool learned_positions) const {
    if (!accumulate) {
      for (Eigen::Index t = 0; t < d.rows(); ++t) {
        g.tok_embed.row(ids[static_cast<size_t>(t)]) += d.row(t);
        if (learned_positions) g.pos_embed.row(t) += d.row(t);
      }
      return;
    }
    std::vector<std::pair<int, Eigen::RowVectorXf>> rows;  // per token id, its positions' sum in order
    for (Eigen::Index t = 0; t < d.rows(); ++t) {
      const int id = ids[static_cast<size_t>(t)];
      auto it = std::find_if(rows.begin(), rows.end(), [id](const auto& r) { return r.first == id; });
      if (it == rows.end()) rows.emplace_back(id, d.row(t));
      else it->second += d.row(t);
      if (learned_positions) add_scaled(g.pos_embed.row(t).data(), d.row(t).data(), d.cols(), scale);
    }
    for (const auto& [id, sum] : rows) add_scaled(g.tok_embed.row(id).data(), sum.data(), sum.size(), scale);
  }
};

struct Forward {
  Mat x0;                         // (T, C) embeddings + positions
  Mat mask;                       // (T, T)
  std::vector<LayerTrace> layers;
  Mat last;                       // (T, C) last layer's output (the final norm's input)
  Mat final;                      // (T, C)
  Mat logits;                     // (T, V)
};

Result<Forward> forward(const Model& model, const TrainExample& ex) {
  const ModelConfig& c = model.config;
  const int T = static_cast<int>(ex.ids.size()), V = static_cast<int>(model.vocab.size());
  if (model.weights.tok_embed.rows() == 0 || model.weights.output_w.rows() == 0)
    return make_error("training needs a model with a vocabulary, token embeddings and an output projection");
  if (T == 0 || static_cast<int>(ex.targets.size()) != T) return make_error("ids and targets must have the same, non-zero length");
  if (T > kMaxTokens) return make_error("the example is too long");
  // The backward passes cover the 2017 layer (LayerNorm, plain FFN, one K/V per head, added
  // positions); the later families' parts are for reading checkpoints, not for training.
  if (c.positions == PositionEncoding::rotary || c.norm_kind != NormKind::layer_norm || c.gated_ffn ||
      c.parallel_residual || c.kv_heads() != c.n_heads || c.sliding_window > 0 || c.position_padding_idx >= 0)
    return make_error("training supports LayerNorm layers with added positions only (no rotary positions, RMSNorm, "
                      "gated FFN, parallel residual, grouped key/value heads or sliding window)");
  for (int t = 0; t < T; ++t)
    if (ex.ids[static_cast<size_t>(t)] < 0 || ex.ids[static_cast<size_t>(t)] >= V || ex.targets[static_cast<size_t>(t)] >= V)
      return make_error("token id out of the vocabulary's range at position " + std::to_string(t));
  Forward f;
  f.x0.resize(T, c.d_model);
  for (int t = 0; t < T; ++t) f.x0.row(t) = model.weights.tok_embed.row(ex.ids[static_cast<size_t>(t)]);
  if (c.positions == PositionEncoding::sinusoidal) f.x0 += positions_sinusoidal(T, c.d_model);
  if (c.positions == PositionEncoding::learned) {
    if (T > model.weights.pos_embed.rows()) return make_error("the example is longer than the learned positions");
    f.x0 += model.weights.pos_embed.topRows(T);
  }
  f.mask = mask_build(ex.mask, T, T, T);
  const Mat* x = &f.x0;
  for (int l = 0; l < c.n_layers; ++l) {
    f.layers.push_back(layer_forward(model.weights.layers[static_cast<size_t>(l)], c, *x, nullptr, f.mask));
    x = &f.layers.back().out;
  }
  f.last = *x;
  f.final = c.final_norm ? layer_norm(f.last, model.weights.final_norm_w, model.weights.final_norm_b, c.ln_eps) : f.last;
  f.logits = linear(f.final, model.weights.output_w, model.weights.output_b);
  return f;
}

void count_correct(const Mat& logits, const std::vector<int>& targets, LossGrads& out) {
  for (Eigen::Index t = 0; t < logits.rows(); ++t) {
    const int want = targets[static_cast<size_t>(t)];
    if (want < 0) continue;
    Eigen::Index best = 0;
    logits.row(t).maxCoeff(&best);
    ++out.counted;
    if (best == want) ++out.correct;
  }
}

}  // namespace

void weights_init_vocab(Model& m, uint64_t stream_seed, double token_std, double position_std, double output_std) {
  Rng rng(stream_seed);
  const auto V = static_cast<Eigen::Index>(m.vocab.size());
  m.weights.tok_embed = rng_normal_mat(rng, V, m.config.d_model, token_std);
  m.weights.pos_embed = rng_normal_mat(rng, m.config.max_positions, m.config.d_model, position_std);
  m.weights.output_w = rng_normal_mat(rng, V, m.config.d_model, output_std);
  m.weights.output_b = Vec::Zero(V);
}

ModelWeights weights_zeros_like(const ModelWeights& w) {
  ModelWeights z = w;
  for (auto& r : weights_tensors(z)) std::fill(r.data, r.data + r.size, 0.0f);
  return z;
}

void weights_add(ModelWeights& a, const ModelWeights& b, float scale) {
  auto ra = weights_tensors(a);
  auto rb = weights_tensors(b);
  for (size_t i = 0; i < ra.size(); ++i) add_scaled(ra[i].data, rb[i].data, ra[i].size, scale);
}

float weights_norm(const ModelWeights& w) {
  double sq = 0;
  for (const auto& r : weights_tensors(w))
    for (Eigen::Index j = 0; j < r.size; ++j) sq += static_cast<double>(r.data[j]) * r.data[j];
  return static_cast<float>(std::sqrt(sq));
}

Result<LossGrads> model_loss(const Model& model, const TrainExample& ex) {
  auto f = forward(model, ex);
  if (!f) return make_error(f.error());
  LossGrads out;
  out.loss = cross_entropy(f->logits, ex.targets).loss;
  count_correct(f->logits, ex.targets, out);
  return out;
}

Result<Mat> model_logits(const Model& model, const TrainExample& ex) {
  auto f = forward(model, ex);
  if (!f) return make_error(f.error());
  return std::move(f->logits);
}

namespace {

// One example's loss and counts into `out`, its gradients into `sink`.
Status example_loss_grads(const Model& model, const TrainExample& ex, LossGrads& out, const GradSink& sink) {
  auto fr = forward(model, ex);
  if (!fr) return make_error(fr.error());
  const Forward& f = *fr;
  const ModelConfig& c = model.config;
  ModelWeights& g = sink.g;
  const CrossEntropy ce = cross_entropy(f.logits, ex.targets);
  out.loss = ce.loss;
  count_correct(f.logits, ex.targets, out);

  const LinearGrads head = linear_backward(f.final, model.weights.output_w, ce.dlogits);
  sink.put(g.output_w, head.dw);
  sink.put(g.output_b, head.db);
  Mat d = head.dx;
  if (c.final_norm) {
    const LayerNormGrads n = layer_norm_backward(f.last, model.weights.final_norm_w, c.ln_eps, d);
    sink.put(g.final_norm_w, n.dw);
    sink.put(g.final_norm_b, n.db);
    d = n.dx;
  }
  for (int l = c.n_layers - 1; l >= 0; --l) {
    LayerGrads lg = layer_backward(model.weights.layers[static_cast<size_t>(l)], c, f.layers[static_cast<size_t>(l)], nullptr, d);
    sink.put_layer(g.layers[static_cast<size_t>(l)], std::move(lg.dw));
    d = std::move(lg.dx);
  }
  sink.put_embeddings(d, ex.ids, c.positions == PositionEncoding::learned);
  return Ok{};
}

}  // namespace

Result<LossGrads> model_loss_grads(const Model& model, const TrainExample& ex) {
  LossGrads out;
  out.grads = weights_zeros_like(model.weights);
  if (Status s = example_loss_grads(model, ex, out, GradSink{out.grads}); !s) return make_error(s.error());
  return out;
}

void run_sharded(int shards, const std::function<void(int shard)>& fn) {
  auto one_thread = [&fn](int shard) {
    const int saved = omp_get_max_threads();  // per thread: this changes no other thread's setting
    omp_set_num_threads(1);
    fn(shard);
    omp_set_num_threads(saved);
  };
  std::vector<std::thread> others;
  for (int s = 1; s < shards; ++s) others.emplace_back(one_thread, s);
  one_thread(0);
  for (std::thread& t : others) t.join();
}

Result<LossGrads> batch_loss_grads(const Model& model, const std::vector<TrainExample>& batch) {
  if (batch.empty()) return make_error("the batch is empty");
  const int n = static_cast<int>(batch.size());
  const float scale = 1.0f / static_cast<float>(n);
  std::vector<LossGrads> shards(kTrainShards);
  std::vector<std::string> errors(kTrainShards);
  run_sharded(kTrainShards, [&](int s) {
    LossGrads& acc = shards[static_cast<size_t>(s)];
    acc.grads = weights_zeros_like(model.weights);
    const GradSink sum{acc.grads, scale, /*accumulate=*/true};
    for (int i = s * n / kTrainShards; i < (s + 1) * n / kTrainShards; ++i) {
      LossGrads one;
      if (Status st = example_loss_grads(model, batch[static_cast<size_t>(i)], one, sum); !st) {
        errors[static_cast<size_t>(s)] = "example " + std::to_string(i) + ": " + st.error();
        break;
      }
      acc.loss += one.loss * scale;
      acc.correct += one.correct;
      acc.counted += one.counted;
    }
  });
  for (const std::string& e : errors)
    if (!e.empty()) return make_error(e);
  LossGrads total = std::move(shards[0]);
  for (size_t s = 1; s < shards.size(); ++s) {
    weights_add(total.grads, shards[s].grads);
    total.loss += shards[s].loss;
    total.correct += shards[s].correct;
    total.counted += shards[s].counted;
  }
  return total;
}

AdamState adam_init(const ModelWeights& w) {
  AdamState s;
  s.m = weights_zeros_like(w);
  s.v = weights_zeros_like(w);
  return s;
}

void adam_step(ModelWeights& weights, const ModelWeights& grads, AdamState& state, const AdamConfig& cfg) {
  const float norm = weights_norm(grads);
  const float clip = cfg.clip_norm > 0 && norm > cfg.clip_norm ? cfg.clip_norm / norm : 1.0f;
  ++state.step;
  const float bc1 = 1.0f - std::pow(cfg.beta1, static_cast<float>(state.step));
  const float bc2 = 1.0f - std::pow(cfg.beta2, static_cast<float>(state.step));
  auto w = weights_tensors(weights);
  auto g = weights_tensors(grads);
  auto m = weights_tensors(state.m);
  auto v = weights_tensors(state.v);
  using Arr = Eigen::Map<Eigen::ArrayXf>;
  using ConstArr = Eigen::Map<const Eigen::ArrayXf>;
  for (size_t i = 0; i < w.size(); ++i) {
    Arr wi(w[i].data, w[i].size), mi(m[i].data, w[i].size), vi(v[i].data, w[i].size);
    const ConstArr gi(g[i].data, w[i].size);
    mi = cfg.beta1 * mi + ((1.0f - cfg.beta1) * clip) * gi;
    vi = cfg.beta2 * vi + ((1.0f - cfg.beta2) * clip * clip) * gi.square();
    if (w[i].decay) wi -= (cfg.lr * cfg.weight_decay) * wi;
    wi -= cfg.lr * ((mi / bc1) / ((vi / bc2).sqrt() + cfg.eps));
  }
}

Result<TrainRun> train_loop(Model model, const TrainLoopOptions& o, const BatchSource& next_batch,
                            const Evaluator& evaluate, const TrainCallback& on_progress) {
  if (o.max_steps < 1 || o.eval_every < 1 || o.report_every < 0)
    return make_error("steps and the evaluation interval must be positive");
  TrainRun run;
  run.model = std::move(model);
  AdamState state = adam_init(run.model.weights);
  const int report_every = o.report_every > 0 ? o.report_every : o.eval_every;
  const auto start = std::chrono::steady_clock::now();
  bool heldout_partial = false;  // of the latest evaluation
  for (int step = 1; step <= o.max_steps; ++step) {
    auto batch = next_batch(step);
    if (!batch) return make_error(batch.error());
    auto lg = batch_loss_grads(run.model, *batch);
    if (!lg) return make_error(lg.error());
    adam_step(run.model.weights, lg->grads, state, o.adam);
    TrainProgress p;
    p.step = step;
    p.loss = lg->loss;
    p.evaluated = step % o.eval_every == 0 || step == o.max_steps;
    bool done = false;
    if (p.evaluated) {
      auto e = evaluate(run.model, step == o.max_steps);
      if (!e) return make_error(e.error());
      run.heldout_accuracy = e->accuracy;
      heldout_partial = e->partial;
      done = e->done;
    }
    p.heldout_accuracy = run.heldout_accuracy;
    p.heldout_partial = heldout_partial;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (p.evaluated) run.history.push_back(p);
    if (on_progress && (p.evaluated || step % report_every == 0) && !on_progress(p, run.model)) {
      run.stopped = true;
      break;
    }
    if (done) break;
  }
  return run;
}

}  // namespace attnviz
