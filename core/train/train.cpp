// Losses, gradients and AdamW over the stacked forward pass (core/train/stacked_forward.h), then
// core/train/backward.h layer by layer in reverse. The optimiser walks all tensors through one list
// (weights_tensors) so no tensor can be forgotten.
#include "train/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "base/rng.h"
#include "model/portable_math.h"
#include "train/backward.h"
#include "train/stacked_forward.h"
#include "train/subnormals.h"

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

// Shard s's share [first, end) of n items: fixed shares, so the work per shard is the same whatever
// the number of threads that run them.
struct ShardRange {
  size_t first = 0, end = 0;
};
ShardRange shard_range(size_t n, int s) {
  return {n * static_cast<size_t>(s) / kTrainShards, n * static_cast<size_t>(s + 1) / kTrainShards};
}

// base^exponent (exponent ≥ 0) by squaring, in double: libm's powf may round otherwise on another CPU.
float power_portable(float base, int exponent) {
  double result = 1.0, square = base;
  for (unsigned e = static_cast<unsigned>(exponent); e != 0; e >>= 1) {
    if (e & 1u) result *= square;
    square *= square;
  }
  return static_cast<float>(result);
}

// a[j] += scale * b[j]: a multiplication, then an addition (no build fuses them).
void add_scaled(float* a, const float* b, Eigen::Index n, float scale) {
  for (Eigen::Index j = 0; j < n; ++j) a[j] += scale * b[j];
}

// Rows of `logits` with a target, counted; those whose arg-max is the target, correct.
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

// Loss (each example's mean, times scale, summed) and counts of a stacked forward; with `dlogits`,
// also the loss's gradient with respect to the logits (its output rows, V).
LossGrads stacked_loss(const StackedForward& f, const TrainExample* examples, float scale, Mat* dlogits = nullptr) {
  LossGrads out;
  if (dlogits) dlogits->resize(f.logits.rows(), f.logits.cols());
  for (size_t e = 0; e < f.out_segments.size(); ++e) {
    const RowSegment& seg = f.out_segments[e];
    std::vector<int> targets;  // of example e's output rows
    targets.reserve(static_cast<size_t>(seg.q_rows));
    for (Eigen::Index i = 0; i < seg.q_rows; ++i)
      targets.push_back(examples[e].targets[static_cast<size_t>(f.out_rows[static_cast<size_t>(seg.q_first + i)] - seg.k_first)]);
    const Mat logits = f.logits.middleRows(seg.q_first, seg.q_rows);
    const CrossEntropy ce = cross_entropy(logits, targets);
    out.loss += scale * ce.loss;
    if (dlogits) dlogits->middleRows(seg.q_first, seg.q_rows) = ce.dlogits * scale;
    count_correct(logits, targets, out);
  }
  return out;
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

namespace {

// A tensor's elements [first, first + size): the optimiser's unit of work. Pieces start at multiples
// of kPieceValues from a tensor's start, so a vectorised loop meets every element in the same lane
// whether it runs over the whole tensor or piece by piece (Eigen's tensors start 64-byte aligned; a
// weight read in place from a file only 4-byte aligned, and training never meets one).
struct Piece {
  size_t tensor = 0;
  Eigen::Index first = 0, size = 0;
};
constexpr Eigen::Index kPieceValues = 1 << 12;

template <class Ref>
std::vector<Piece> pieces_of(const std::vector<Ref>& tensors) {
  std::vector<Piece> out;
  for (size_t i = 0; i < tensors.size(); ++i)
    for (Eigen::Index f = 0; f < tensors[i].size; f += kPieceValues)
      out.push_back(Piece{i, f, std::min(kPieceValues, tensors[i].size - f)});
  return out;
}

// fn(piece index) for every piece, over kTrainShards threads when the model is large enough to
// repay starting one (fixed halves: the same work per piece on any thread count). Subnormals are
// flushed either way, here as in run_sharded's shards.
void for_pieces(const std::vector<Piece>& pieces, const std::function<void(size_t)>& fn) {
  const size_t n = pieces.size();
  Eigen::Index values = 0;
  for (const Piece& p : pieces) values += p.size;
  if (values < (Eigen::Index{1} << 18)) {
    const SubnormalsFlushed flushed;
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  run_sharded(kTrainShards, [&](int s) {
    const auto [first, end] = shard_range(n, s);
    for (size_t i = first; i < end; ++i) fn(i);
  });
}

// The global L2 norm from each piece's sum of squares (in double), summed in piece order: the same
// bits on any thread count.
double piece_square_sum(const float* data, Eigen::Index size) { return square_sum_portable(data, static_cast<size_t>(size)); }
float norm_of_piece_sums(const std::vector<double>& sums) {
  double sq = 0;
  for (double x : sums) sq += x;
  return static_cast<float>(std::sqrt(sq));
}

// total += each of `others` in turn, and the norm of the result (weights_norm's bits), in one pass
// over the pieces on the shard threads: a training step's gradient summed over its shards.
float weights_sum_into(ModelWeights& total, const std::vector<const ModelWeights*>& others) {
  const auto tensors = weights_tensors(total);
  std::vector<std::vector<TensorRef<const ModelWeights>>> parts;
  for (const ModelWeights* o : others) parts.push_back(weights_tensors(*o));
  const std::vector<Piece> pieces = pieces_of(tensors);
  std::vector<double> sums(pieces.size());
  for_pieces(pieces, [&](size_t i) {
    const auto [t, first, size] = pieces[i];
    for (const auto& part : parts) add_scaled(tensors[t].data + first, part[t].data + first, size, 1.0f);
    sums[i] = piece_square_sum(tensors[t].data + first, size);
  });
  return norm_of_piece_sums(sums);
}

}  // namespace

float weights_norm(const ModelWeights& w) {
  const auto tensors = weights_tensors(w);
  const std::vector<Piece> pieces = pieces_of(tensors);
  std::vector<double> sums(pieces.size());
  for_pieces(pieces, [&](size_t i) {
    const Piece& p = pieces[i];
    sums[i] = piece_square_sum(tensors[p.tensor].data + p.first, p.size);
  });
  return norm_of_piece_sums(sums);
}

Result<LossGrads> model_loss(const Model& model, const TrainExample& ex) {
  auto f = stacked_forward(model, &ex, 1);
  if (!f) return make_error(f.error());
  return stacked_loss(*f, &ex, 1.0f);
}

namespace {

// model_loss_all of examples[0, count).
Result<LossGrads> stacked_loss_of(const Model& model, const TrainExample* examples, size_t count) {
  if (count == 0) return LossGrads{};
  auto f = stacked_forward(model, examples, count);
  if (!f) return make_error(f.error());
  return stacked_loss(*f, examples, 1.0f / static_cast<float>(count));
}

}  // namespace

Result<LossGrads> model_loss_all(const Model& model, const std::vector<TrainExample>& examples) {
  return stacked_loss_of(model, examples.data(), examples.size());
}

Result<Mat> model_logits(const Model& model, const TrainExample& ex) {
  auto f = stacked_forward(model, &ex, 1, OutputRows::all);
  if (!f) return make_error(f.error());
  return std::move(f->logits);
}

namespace {

// d loss / d (the last layer's input), every row, from its narrowed backward: the keys' and values'
// gradient (through LN1 in pre-norm, whose parameters' gradients it adds to lg.dw) plus the
// output rows' own.
Mat widen_narrowed_gradient(const StackedForward& f, const LayerWeights& w, const ModelConfig& c, LayerGrads& lg) {
  Mat d;
  if (c.norm == NormPlacement::pre) {
    const Mat& x = f.layers.size() > 1 ? f.layers[f.layers.size() - 2].out : f.x0;
    LayerNormGrads n = layer_norm_backward(x, w.norm1_w, c.ln_eps, lg.dmemory);
    lg.dw.norm1_w += n.dw;
    lg.dw.norm1_b += n.db;
    d = std::move(n.dx);
  } else {
    d = std::move(lg.dmemory);
  }
  for (size_t i = 0; i < f.out_rows.size(); ++i) d.row(f.out_rows[i]) += lg.dx.row(static_cast<Eigen::Index>(i));
  return d;
}

// The loss of `count` examples (each example's mean loss times scale, summed), their counts and
// the gradient of that loss: one stacked forward and backward.
Result<LossGrads> stacked_loss_grads(const Model& model, const TrainExample* examples, size_t count, float scale,
                                     OutputRows rows = OutputRows::targets) {
  auto fr = stacked_forward(model, examples, count, rows);
  if (!fr) return make_error(fr.error());
  const StackedForward& f = *fr;
  const ModelConfig& c = model.config;
  Mat dlogits;
  LossGrads out = stacked_loss(f, examples, scale, &dlogits);
  // Every tensor the optimiser walks (weights_tensors) gets a gradient shaped like the model's.
  ModelWeights& g = out.grads;
  g.layers.resize(model.weights.layers.size());
  g.tok_embed = Mat::Zero(model.weights.tok_embed.rows(), model.weights.tok_embed.cols());
  g.pos_embed = Mat::Zero(model.weights.pos_embed.rows(), model.weights.pos_embed.cols());
  g.final_norm_w = Vec::Zero(model.weights.final_norm_w.size());
  g.final_norm_b = Vec::Zero(model.weights.final_norm_b.size());
  LinearGrads head = linear_backward(f.final, model.weights.output_w, dlogits);
  g.output_w = std::move(head.dw);
  g.output_b = std::move(head.db);
  Mat d = std::move(head.dx);
  if (c.final_norm) {
    LayerNormGrads n = layer_norm_backward(f.last, model.weights.final_norm_w, c.ln_eps, d);
    g.final_norm_w = std::move(n.dw);
    g.final_norm_b = std::move(n.db);
    d = std::move(n.dx);
  }
  for (int l = c.n_layers - 1; l >= 0; --l) {
    const LayerWeights& w = model.weights.layers[static_cast<size_t>(l)];
    const LayerTrace& t = f.layers[static_cast<size_t>(l)];
    // The last layer may have run its queries over the output rows only, its keys and values
    // over every row (last_kv_in): then it is attention to a memory, as in cross-attention.
    const bool narrowed = l + 1 == c.n_layers && f.last_kv_in.size() > 0;
    const Mat& kv_in = narrowed ? f.last_kv_in : t.attn_in;
    const std::vector<RowSegment>& segments = narrowed ? f.out_segments : f.stacked.segments;
    LayerGrads lg = layer_backward_with(w, c, t, narrowed ? &kv_in : nullptr, d, [&](const Mat& dattn_out) {
      if (fused_heads_fit(c))  // then stacked_forward kept every layer's heads in f.fused
        return fused_heads_backward(w.attn, c, t.attn_in, kv_in, t.attn, f.fused[static_cast<size_t>(l)], segments,
                                    dattn_out);
      return attention_backward_segments(w.attn, c, t.attn_in, kv_in, t.attn, segments, dattn_out);
    });
    if (narrowed) d = widen_narrowed_gradient(f, w, c, lg);
    else d = std::move(lg.dx);
    g.layers[static_cast<size_t>(l)] = std::move(lg.dw);
  }
  // The input gradient into the token rows and, with learned positions, the position rows.
  for (const RowSegment& seg : f.stacked.segments)
    for (Eigen::Index t = 0; t < seg.q_rows; ++t) {
      const Eigen::Index r = seg.q_first + t;
      g.tok_embed.row(f.stacked.ids[static_cast<size_t>(r)]) += d.row(r);
      if (c.positions == PositionEncoding::learned) g.pos_embed.row(t) += d.row(r);
    }
  return out;
}

}  // namespace

Result<LossGrads> model_loss_grads(const Model& model, const TrainExample& ex) {
  auto out = stacked_loss_grads(model, &ex, 1, 1.0f);
  if (out) out->grads_norm = weights_norm(out->grads);
  return out;
}

Result<LossGrads> batch_loss_grads(const Model& model, const std::vector<TrainExample>& batch, OutputRows rows) {
  if (batch.empty()) return make_error("the batch is empty");
  const size_t n = batch.size();
  const float scale = 1.0f / static_cast<float>(n);
  std::vector<Result<LossGrads>> shards(kTrainShards, make_error("not run"));
  run_sharded(kTrainShards, [&](int s) {
    const auto [first, end] = shard_range(n, s);
    if (first < end) shards[static_cast<size_t>(s)] = stacked_loss_grads(model, batch.data() + first, end - first, scale, rows);
  });
  std::optional<LossGrads> total;
  std::vector<const ModelWeights*> rest;  // the other shards' gradients, summed into total's
  for (size_t s = 0; s < shards.size(); ++s) {
    if (const auto [first, end] = shard_range(n, static_cast<int>(s)); first == end) continue;  // a batch smaller than the shards
    if (!shards[s]) {
      for (size_t i = 0; i < n; ++i)  // which example: the shard's error is the first of its examples'
        if (Status e = train_example_check(model, batch[i]); !e) return make_error("example " + std::to_string(i) + ": " + e.error());
      return make_error(shards[s].error());
    }
    if (!total) {
      total = std::move(*shards[s]);
      continue;
    }
    rest.push_back(&shards[s]->grads);
    total->loss += shards[s]->loss;
    total->correct += shards[s]->correct;
    total->counted += shards[s]->counted;
  }
  total->grads_norm = rest.empty() ? weights_norm(total->grads) : weights_sum_into(total->grads, rest);
  return std::move(*total);
}

PredictionCounts count_correct_sharded(const Model& model, std::vector<TrainExample> examples) {
  std::erase_if(examples, [&](const TrainExample& ex) { return !train_example_check(model, ex); });
  std::vector<PredictionCounts> shards(kTrainShards);
  run_sharded(kTrainShards, [&](int s) {
    const auto [first, end] = shard_range(examples.size(), s);
    if (auto r = stacked_loss_of(model, examples.data() + first, end - first)) shards[static_cast<size_t>(s)] = {r->correct, r->counted};
  });
  PredictionCounts total;
  for (const PredictionCounts& c : shards) {
    total.correct += c.correct;
    total.counted += c.counted;
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
  adam_step(weights, grads, weights_norm(grads), state, cfg);
}

void adam_step(ModelWeights& weights, const ModelWeights& grads, float norm, AdamState& state, const AdamConfig& cfg) {
  const float clip = cfg.clip_norm > 0 && norm > cfg.clip_norm ? cfg.clip_norm / norm : 1.0f;
  ++state.step;
  const float bc1 = 1.0f - power_portable(cfg.beta1, state.step);
  const float bc2 = 1.0f - power_portable(cfg.beta2, state.step);
  const auto w = weights_tensors(weights);
  const auto g = weights_tensors(grads);
  const auto m = weights_tensors(state.m);
  const auto v = weights_tensors(state.v);
  using Arr = Eigen::Map<Eigen::ArrayXf>;
  using ConstArr = Eigen::Map<const Eigen::ArrayXf>;
  // Piece by piece, so that the four passes over a piece find it in the cache.
  const std::vector<Piece> pieces = pieces_of(w);
  for_pieces(pieces, [&](size_t p) {
    const auto [i, first, size] = pieces[p];
    Arr wi(w[i].data + first, size), mi(m[i].data + first, size), vi(v[i].data + first, size);
    const ConstArr gi(g[i].data + first, size);
    mi = cfg.beta1 * mi + ((1.0f - cfg.beta1) * clip) * gi;
    vi = cfg.beta2 * vi + ((1.0f - cfg.beta2) * clip * clip) * gi.square();
    if (w[i].decay) wi -= (cfg.lr * cfg.weight_decay) * wi;
    wi -= cfg.lr * ((mi / bc1) / ((vi / bc2).sqrt() + cfg.eps));
  });
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
    adam_step(run.model.weights, lg->grads, lg->grads_norm, state, o.adam);
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
    p.target_reached = done;
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
