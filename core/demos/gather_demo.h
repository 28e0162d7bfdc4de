// The gather demo, there to show why several heads help: a one-layer attention-only encoder trained
// so that "its" names four words of its sentence at once (core/demos/gather_data.h). One head must
// share its attention among the four; h heads can each take one. Model set-up, training (the shared
// train_loop, deterministic for a seed), held-out accuracy, prediction for typed text, which word
// each head takes, and the 1-head vs h-head pair over seeds that bench/README.md tabulates.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "demos/demo_arch.h"
#include "demos/gather_data.h"
#include "model/model.h"
#include "model/trace.h"
#include "train/train.h"

namespace attnviz {

inline constexpr float kGatherTarget = 0.99f;

// The shipped demo's seed: its 4 heads look from "its" at "just", "law", "perfect" and "application"
// in seed 003's sentence, each with 0.91-1.00 of its attention. Of seeds 1-30, three (4, 7, 30) give
// each of that sentence's four words a head of its own; most give three of them one (the fourth is
// read by elimination: a head that finds no "meaning" knows it is "application"). bench/README.md,
// "Why several heads help: the gather demo".
inline constexpr uint64_t kGatherDemoSeed = 7;

struct GatherTrainOptions {
  uint64_t seed = kGatherDemoSeed;  // weights, data order and the held-out split
  int d_model = 32, n_heads = 4, n_layers = 1, d_ff = 0;
  ScoreKind score = ScoreKind::scaled_dot;
  NormPlacement norm = NormPlacement::pre;
  PositionEncoding positions = PositionEncoding::learned;
  int batch = 32;
  int max_steps = 1500;
  float target_accuracy = kGatherTarget;  // stop once the held-out accuracy reaches it
  int eval_every = 25;
  int report_every = 0;  // steps between callbacks; 0: at every evaluation
  float lr = 0;          // AdamW's learning rate; 0: gather_learning_rate's choice
};

// options.lr when set, else 3e-3, scaled by 64 / d_model above 64 and halved for unscaled scores.
float gather_learning_rate(const GatherTrainOptions& options);
DemoArch gather_arch(const GatherTrainOptions& options);
GatherTrainOptions gather_options(const DemoArch& arch);
// "heads4_dmodel32" for the shipped shape, then what differs (see demo_arch_key).
std::string gather_arch_key(const GatherTrainOptions& options);

// A fresh model (vocabulary from gather_vocabulary()); errors for invalid options.
Result<Model> gather_model_init(const GatherTrainOptions& options);

// The example's ids with one target: the answer token at "its". Errors: no answer, unknown words.
Result<TrainExample> gather_train_example(const Model& model, const GatherExample& example);

// Share of examples whose prediction at "its" is their answer token.
float gather_evaluate(const Model& model, const std::vector<GatherExample>& examples);

Result<TrainRun> gather_train(const GatherTrainOptions& options, const TrainCallback& on_progress = {});

struct GatherPrediction {
  int query = -1;          // token index of "its"
  int answer = -1;         // 0..15, the arg-max among the 16 answer tokens
  std::string answer_text;
  float probability = 0;   // of that answer, softmax over the 16 answer tokens
  int expected = -1;       // the sentence's own answer (gather_make), -1 when a slot's word is missing
};
// Errors: no "its" in the text, or a model without the answer tokens.
Result<GatherPrediction> gather_predict(const Model& model, std::string_view text);

// What each head of the last layer does from "its" in one sentence: the token it gives the most
// attention, that weight, and the slot that token fills (-1: not one of the four words). Measured,
// the trained heads choose by word, not by slot: in seed 1's 4-head model one head takes "law" in one
// sentence and "simple" in another, and a head whose word is absent rests on "be" (the other word
// of a pair needs no look: it is the one not seen).
struct GatherHeadLook {
  int token = -1;
  float weight = 0;
  int slot = -1;
};
std::vector<GatherHeadLook> gather_head_looks(const Trace& trace, const GatherExample& example);

// The mean, over the examples and the last layer's heads, of the largest attention weight from
// "its": how much of its 100% a head gives one word. One head must share it among the words it
// reads; each of several heads can give one word nearly all of it.
Result<float> gather_focus(const Model& model, const std::vector<GatherExample>& examples);

// One seed's pair: a 1-head and an n_heads-head model, the same d_model, data and step budget.
struct GatherPairSide {
  int steps_to_target = -1;  // the first evaluation at or above the target; -1: not within max_steps
  float held_out = 0;        // the last evaluation's held-out accuracy
  float focus = 0;           // gather_focus on the held-out sentences after training
};
struct GatherPairResult {
  uint64_t seed = 0;
  GatherPairSide one_head, n_heads;
};
// True when the n-head model reached the target in fewer steps, or neither reached it and the
// n-head model's held-out accuracy is higher.
bool gather_n_heads_ahead(const GatherPairResult& pair);
Result<GatherPairResult> gather_train_pair(const GatherTrainOptions& options);

}  // namespace attnviz
