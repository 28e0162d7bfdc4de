// The induction demo, there to show the two-head circuit behind in-context copying: a 2-layer
// attention-only causal model trained on random tokens whose segment comes back
// (core/demos/induction_data.h), so the only way to predict the repeat is a previous-token head in
// layer 0 feeding an induction head in layer 1. Model set-up, the training loop (one thread,
// deterministic for a seed), held-out accuracy and the heads' detector scores.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/detectors.h"
#include "base/result.h"
#include "demos/demo_arch.h"
#include "demos/induction_data.h"
#include "model/model.h"
#include "train/train.h"

namespace attnviz {

// The held-out sequences' shape; training draws shorter ones too (see induction_train).
inline constexpr int kInductionLength = 24;
inline constexpr int kInductionSegment = 6;

struct InductionTrainOptions {
  uint64_t seed = 1;           // weights, training data and the held-out set
  int d_model = 32, n_heads = 2, n_layers = 2;
  int d_ff = 0;  // 0: attention only, the shipped demo (nothing but attention can move a token)
  ScoreKind score = ScoreKind::scaled_dot;
  NormPlacement norm = NormPlacement::pre;
  PositionEncoding positions = PositionEncoding::learned;
  int vocab_size = 32;
  int length = kInductionLength;           // tokens per held-out sequence, and the longest training one
  int segment_length = kInductionSegment;  // tokens of the repeated segment
  int batch = 8;
  int max_steps = 3000;
  // Stop once one head past layer 0 copies on the repeat (InductionScores::best_on_repeat) at least
  // `target`, does induction over every repeated token (its detector score) at least
  // `target_general`, and the held-out accuracy on the repeats reaches `target_accuracy`.
  float target = 0.95f;
  float target_general = 0.8f;
  float target_accuracy = 0.99f;
  int eval_every = 25;            // steps between held-out evaluations
  int report_every = 0;           // steps between callbacks; 0: at every evaluation
  float lr = 0;                   // AdamW's learning rate; 0: induction_learning_rate's choice for the architecture
};

// A fresh model (vocabulary from induction_vocabulary); errors for invalid options, among them
// fewer than 2 layers (an induction head reads what a layer before it wrote).
Result<Model> induction_model_init(const InductionTrainOptions& options);

// The learning rate a run uses: options.lr when set, else 5e-3 (the shipped demo's), scaled by
// 64 / d_model above 64, and halved once for unscaled heads (dot-product, "general") or post-norm
// models of 3 layers or more or with an FFN. At 5e-3, d_model 128 never learned (18% of the repeats
// after 3,000 steps; at 2.5e-3 an induction head in 425 steps), general heads stalled (88%, no head;
// halved, one in 1,175 steps), so did 8 dot-product heads at d_model 64 × 3 layers (27%; halved, a
// head in 1,000 steps) and one head at d_model 64 × 3 post-norm layers (3%; halved, a head in 1,100
// steps). Halving 2-layer post-norm models without an FFN or deep pre-norm models slowed them (1,650
// → 2,950 and 925 → 1,325 steps; bench/README.md, twelfth session). With an FFN, 2-layer post-norm
// models of scaled dot-product heads met the target in none of 6 architectures (five at 10-54% of
// the repeats); halved, in 5 of 6, in 825-1,750 steps (thirteenth session).
float induction_learning_rate(const InductionTrainOptions& options);

// The options' architecture and seed, options with them (every other option its default), and the
// architecture's key ("heads2_dmodel32" for the shipped shape, see demo_arch_key).
DemoArch induction_arch(const InductionTrainOptions& options);
InductionTrainOptions induction_options(const DemoArch& arch);
std::string induction_arch_key(const InductionTrainOptions& options);

// The fixed held-out set for a seed: `count` sequences of options.length tokens, drawn from a
// stream of their own, so training never sees them.
Result<std::vector<InductionSequence>> induction_heldout(const InductionTrainOptions& options, int count);

// Next-token targets on the second copy only: position t predicts ids[t + 1] for t + 1 in the
// repeat, except its first token (nothing before it says which segment comes back). Causal mask.
TrainExample induction_train_example(const InductionSequence& sequence);

// Share of the repeat's predictable tokens (all but its first) that the model predicts exactly.
float induction_evaluate(const Model& model, const std::vector<InductionSequence>& sequences);

// The detector grids of every head, each score averaged over held-out sequences run through
// trace_run on their induction_text with a causal mask, and how each head copies on the repeat.
// The induction detector reads every token that came before, the filler's chance repeats too (about
// a quarter of the tokens it reads), which the model is never asked to predict; on the repeat, the
// one place the task needs the head, the same attention is higher: the shipped shape's head reads
// 0.91 as a detector and 0.95 on the repeat after 750 steps, and it took 575 more steps, with every
// answer already right, to reach 0.95 as a detector (bench/README.md, thirteenth session).
struct InductionScores {
  DetectorGrid induction;       // [L][NH]
  DetectorGrid previous_token;  // [L][NH]
  // [L][NH] the mean attention from each repeated token that has a next token to predict (all but
  // the repeat's last) to the token after its first copy: the one it must copy.
  std::vector<std::vector<float>> on_repeat;
  float best_on_repeat = 0;  // the best head past layer 0 on the repeat: the induction head
  int best_on_repeat_layer = -1, best_on_repeat_head = -1;
  float best_on_repeat_general = 0;  // that head's induction detector score
  float best_previous = 0;      // the best head of layer 0
  int best_previous_head = -1;
};
Result<InductionScores> induction_scores(const Model& model, uint64_t seed, int length = kInductionLength,
                                         int segment_length = kInductionSegment);

// on_progress is called every report_every steps and after every evaluation (see TrainCallback);
// TrainProgress.heldout_accuracy is induction_evaluate on the held-out set.
Result<TrainRun> induction_train(const InductionTrainOptions& options, const TrainCallback& on_progress = {});

}  // namespace attnviz
