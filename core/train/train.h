// Training: the loss of a model on token ids with per-position targets, its gradient for every
// weight (same layout as the weights: a ModelWeights), global-norm clipping and AdamW. Deterministic
// for given data and seed. The forward is core/train/stacked_forward.h: the engine's own layers
// (layer_forward_with) over several examples' rows stacked, attention per example; the backward is
// core/train/backward.h. Demo data and the training loop live elsewhere.
#pragma once
#include <functional>
#include <vector>

#include "base/result.h"
#include "model/model.h"

namespace attnviz {

struct TrainExample {
  std::vector<int> ids;      // token ids (T), indices into model.vocab / tok_embed rows
  std::vector<int> targets;  // (T): the vocabulary id to predict at each position, or -1 for none
  MaskSpec mask;             // e.g. causal for a decoder
};

struct LossGrads {
  float loss = 0;        // mean cross-entropy over positions with a target (a batch: the mean of the examples')
  int correct = 0;       // positions whose arg-max prediction equals the target
  int counted = 0;       // positions with a target
  ModelWeights grads;    // d loss / d weight: every tensor the optimiser updates, shaped like the model's (the
                         // layers, token and position tables, final norm, output); the others are empty
  float grads_norm = 0;  // weights_norm(grads), bit for bit (batch_loss_grads: from the pass that sums its shards)
};

// Needs tok_embed, output_w and a vocabulary. Errors: ids out of range, length mismatch, too long.
Result<LossGrads> model_loss_grads(const Model& model, const TrainExample& example);

// Predictions at every position (arg-max over the vocabulary) and the loss, without gradients.
Result<LossGrads> model_loss(const Model& model, const TrainExample& example);
// The same for many examples in one forward pass (their rows stacked, each weight product run
// once): correct and counted summed, the loss the mean of the examples' losses.
Result<LossGrads> model_loss_all(const Model& model, const std::vector<TrainExample>& examples);

// The mean over a batch of each example's loss and gradient. The batch is cut into kTrainShards
// fixed shards, computed in parallel when cores allow and summed in shard order, so the result is
// bit-identical whatever the number of threads. A shard's examples run as one forward and backward
// pass with their rows stacked (attention and the loss per example), so each weight product runs
// once per shard rather than once per example. correct / counted are summed.
inline constexpr int kTrainShards = 2;

// Runs fn(0) ... fn(shards - 1) at once: shard 0 on the calling thread, the others on threads of
// their own, each with OpenMP (and so Eigen) kept to one thread inside. Plain threads rather than
// an OpenMP team: idle OpenMP workers spin, which on a busy machine took CPU from the other shard
// (training ran 2.3x slower under load with the default wait policy). With kTrainShards shards the
// other threads are kept between calls, waiting without spinning (train/run_sharded.cpp).
void run_sharded(int shards, const std::function<void(int shard)>& fn);
// Which rows the last layer computes. The loss and the counts read only the positions with a target,
// and nothing after the last layer's attention mixes rows, so its queries, output projection, FFN,
// final norm and logits need only those rows (its keys and values still read every row). `all` is
// the plain computation, which the tests hold the narrowed one to.
enum class OutputRows { all, targets };
Result<LossGrads> batch_loss_grads(const Model& model, const std::vector<TrainExample>& batch,
                                   OutputRows rows = OutputRows::targets);

// Correct and counted predictions over examples: kTrainShards fixed shards on threads of their own,
// each shard's examples in one stacked forward (the same counts on any thread count). An example the
// model cannot take counts as neither right nor wrong. The demos' held-out evaluations.
struct PredictionCounts {
  int correct = 0, counted = 0;
};
PredictionCounts count_correct_sharded(const Model& model, std::vector<TrainExample> examples);

// The output logits (T, V) for token ids (targets are ignored).
Result<Mat> model_logits(const Model& model, const TrainExample& example);

// A demo model's vocabulary-sized tensors, drawn in this order from one stream: the token table
// (V, C) with token_std, the learned positions (max_positions, C) with position_std and the output
// projection (V, C) with output_std; the output bias is zero. V = model.vocab.size().
void weights_init_vocab(Model& model, uint64_t stream_seed, double token_std, double position_std, double output_std);

// A ModelWeights of zeros shaped like w.
ModelWeights weights_zeros_like(const ModelWeights& w);
// a += scale * b, tensor by tensor.
void weights_add(ModelWeights& a, const ModelWeights& b, float scale = 1.0f);
float weights_norm(const ModelWeights& w);  // global L2 norm over every tensor

struct AdamConfig {
  float lr = 3e-3f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  float weight_decay = 0.01f;  // decoupled (AdamW), applied to matrices, not to biases or norms
  float clip_norm = 1.0f;      // global gradient norm cap; <= 0: no clipping
};

struct AdamState {
  ModelWeights m, v;
  int step = 0;
};

AdamState adam_init(const ModelWeights& w);
// Clips grads to clip_norm, then one AdamW update of model.weights. grads_norm: weights_norm(grads),
// when the caller has it already (LossGrads::grads_norm).
void adam_step(ModelWeights& weights, const ModelWeights& grads, AdamState& state, const AdamConfig& config);
void adam_step(ModelWeights& weights, const ModelWeights& grads, float grads_norm, AdamState& state,
               const AdamConfig& config);

// What a demo's training loop reports while it runs (core/demos/coref_demo.h, core/demos/induction_demo.h).
struct TrainProgress {
  int step = 0;
  float loss = 0;              // mean training loss of the last batch
  float heldout_accuracy = 0;  // of the latest held-out evaluation
  double seconds = 0;          // since training started
  bool evaluated = false;      // heldout_accuracy was measured at this step
  bool heldout_partial = false;  // ...on part of the held-out set, already too far below target to reach it
  bool target_reached = false;   // an evaluation said the run's target is met: training stops here
};

// Called with the progress and the current weights; returning false stops training there. It runs
// on the training thread, so an app can pause training by blocking in it.
using TrainCallback = std::function<bool(const TrainProgress&, const Model&)>;

struct TrainRun {
  Model model;
  std::vector<TrainProgress> history;  // one entry per evaluation
  float heldout_accuracy = 0;          // the last evaluation's
  bool stopped = false;                // the callback asked to stop
};

// The training loop both demos share: a batch per step, AdamW, an evaluation every eval_every
// steps (and at the last), the callback every report_every steps (0: at evaluations only) and after
// every evaluation, and a stop as soon as an evaluation says the run is done.
struct TrainLoopOptions {
  int max_steps = 1000;
  int eval_every = 100;
  int report_every = 0;
  AdamConfig adam;
};
struct Evaluation {
  float accuracy = 0;  // becomes TrainProgress::heldout_accuracy
  bool done = false;   // the target is reached: stop here
  bool partial = false;  // accuracy is over part of the examples (the target was out of reach)
};
using BatchSource = std::function<Result<std::vector<TrainExample>>(int step)>;
// `last`: the run's final step, whose accuracy is reported as the run's: it must cover every example.
using Evaluator = std::function<Result<Evaluation>(const Model& model, bool last)>;
Result<TrainRun> train_loop(Model model, const TrainLoopOptions& options, const BatchSource& next_batch,
                            const Evaluator& evaluate, const TrainCallback& on_progress);

}  // namespace attnviz
