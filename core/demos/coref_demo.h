// The coreference demo, there to show one head resolving "it": a small bidirectional encoder
// trained, on the Winograd-style sentences of core/demos/coref_data.h, to name at the pronoun the
// word "it" refers to. Model set-up, the training loop (single-threaded, deterministic for a seed),
// held-out evaluation and prediction for typed text. The loop reports progress through a callback
// that may also stop it (pause / cancel).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "demos/coref_data.h"
#include "demos/demo_arch.h"
#include "model/model.h"
#include "train/train.h"

namespace attnviz {

// The defaults are the shipped demo (assets/demo_coref): attention only (no feed-forward block),
// so the referent's word can reach the pronoun only through attention. 4 heads of size 8 (d_model 32)
// and seed 78: its layer-2 heads 1 and 4 look from "it" at the referent in the famous pair, and one
// layer-1 head (head 3), which reads "tired" into "it", decides the answer: switched off, "it"
// turns to "street". Of seeds 1-96, 9 train a model where one head alone decides "tired"; 78's
// decides by the widest margin. At d_model 64 every seed tried resolves redundantly (no single
// head, nor the heads that look at the referent, changes the answer); see bench/README.md.
inline constexpr uint64_t kCorefDemoSeed = 78;
struct CorefTrainOptions {
  uint64_t seed = kCorefDemoSeed;  // weights, data order and held-out split order
  int d_model = 32, n_heads = 4, n_layers = 2, d_ff = 0;
  ScoreKind score = ScoreKind::scaled_dot;
  NormPlacement norm = NormPlacement::pre;
  PositionEncoding positions = PositionEncoding::learned;
  int batch = 0;  // examples per step; 0: coref_batch_size's choice for the architecture
  int max_steps = 3000;
  float target_accuracy = 0.99f;  // stop once the held-out accuracy reaches it
  int eval_every = 0;             // steps between held-out evaluations; 0: coref_eval_every's choice
  int report_every = 0;           // steps between callbacks; 0: at every evaluation
  float lr = 0;  // AdamW's learning rate; 0: coref_learning_rate's choice for the architecture
  float weight_decay = 0.01f;
};

// The architecture as a folder-safe key, "heads4_dmodel32" for the shipped shape (2 layers,
// attention only, scaled dot, pre-norm, learned positions: the demo grid's folders), with the
// differing parts appended otherwise ("..._layers3_ffn128_dot_post_sinusoidal"); the seed is not part
// of it. Caches of trained models are keyed by it and the seed.
std::string coref_arch_key(const CorefTrainOptions& options);
// The options' architecture and seed, and options with them (every other option its default).
DemoArch coref_arch(const CorefTrainOptions& options);
CorefTrainOptions coref_options(const DemoArch& arch);
// The learning rate a run uses: options.lr when set, else 3e-3 for the shipped shape, scaled by
// 64 / d_model above 64 (wider models diverged or crawled at 3e-3: heads2_dmodel128 needed 2,500
// steps, at 1.5e-3 it needs 300), halved again for a single layer wider than 64 (1 or 2 heads at
// d_model 96 or 128 stalled at 54-94% after 3,000 steps; halved they reach 99% in 400-1,000), and
// halved for the scores not divided by √d_k (dot, general), whose larger raw scores saturate
// softmax early (unscaled dot: 2,900 steps at 3e-3, 500 at 1.5e-3). Re-measured after those heads
// started with small scores (coref_model_init): without the halving, 3 of 22 dot and general
// architectures no longer reached 99% in 3,000 steps (88-98%), though most took 100-200 fewer.
// Scaled dot-product and additive heads are halved instead when the model is deep and wide (3 or 4
// layers at d_model 64 or more): at the full rate their training loss spiked and held-out accuracy
// swung between 80% and 98.6% (one head at d_model 64 x 4 layers x FFN 256, post-norm: 93.40%
// after 3,000 steps; halved, 99% after 400). Over five random draws of the Model panel it ended
// every run that never reached 99% (3 -> 0) and took 144 -> 154 of 170 under 2 s. Unscaled heads,
// halved already, are not halved twice: of 27 such deep and wide runs, a second halving made 12
// slower by 100-300 steps and one faster (bench/README.md, "Coreference training: deep and wide
// models at half the learning rate").
float coref_learning_rate(const CorefTrainOptions& options);
// The examples per step a run uses: options.batch when set, else 16, and 32 for 3 layers or more. With
// 16, deeper stacks took many more steps or never reached 99%. With 32, over two random draws of
// architectures with 3 and 4 layers (17 and 30), the median steps to 99% went from 600 to 300 and
// from 650 to 400, and the runs that never got there from 4 to 2 (a 4-head, 3-layer model stuck at
// 5.8% reached 99% in 800 steps).
// At 1 and 2 layers it made no difference in steps, at twice the cost of a step (bench/README.md,
// "Coreference training: 32 examples a step for deeper models"). The shipped models have 2 layers.
int coref_batch_size(const CorefTrainOptions& options);

// The steps between held-out evaluations, where a run can stop: options.eval_every when set, else
// 100, and 50 for deep and wide models (3 or 4 layers at d_model 64 or more). Those take 150-300
// steps at 8-20 ms each, so stopping 50 steps sooner is worth 0.4-1 s, more than the extra
// evaluations cost: of the 76 such architectures in five random draws of the Model panel, 46 stopped
// 50 steps sooner and none later (bench/README.md, "Coreference training: deep and wide models
// evaluated every 50 steps"). Narrow models take 300-1,500 cheap steps, where the extra evaluations
// cost about what they save. The shipped models have 2 layers.
int coref_eval_every(const CorefTrainOptions& options);

// True when the options differ from the grid's only in heads and d_model.
bool coref_arch_in_grid(const CorefTrainOptions& options);

// A fresh model for the options (vocabulary from coref_vocabulary()); errors for invalid sizes.
// Unscaled dot-product and "general" heads start with small scores (coref_demo.cpp says why).
Result<Model> coref_model_init(const CorefTrainOptions& options);

// The example as token ids with one target: the referent's word at the pronoun.
Result<TrainExample> coref_train_example(const Model& model, const CorefExample& example);

// Share of examples whose prediction at the pronoun is the referent's word.
float coref_evaluate(const Model& model, const std::vector<CorefExample>& examples);
// The held-out check a training run makes: stops early, exactly, once so many examples are wrong
// that the target cannot be reached any more. `accuracy` is then over the examples seen so far (a
// prefix of the shuffled held-out set), and `complete` is false.
struct CorefEvaluation {
  float accuracy = 0;
  int examples = 0;       // how many examples were scored
  bool complete = true;   // every example was scored
  bool reached = false;   // complete and accuracy >= target
};
CorefEvaluation coref_evaluate_for_target(const Model& model, const std::vector<CorefExample>& examples, float target);

// on_progress is called every report_every steps and after every evaluation (see TrainCallback).
Result<TrainRun> coref_train(const CorefTrainOptions& options, const TrainCallback& on_progress = {});

struct CorefPrediction {
  int pronoun = -1;           // token index
  int referent = -1;          // token index of the chosen candidate
  std::string referent_text;
  float probability = 0;      // of the chosen candidate, among the two candidates
};
// The choice between the two candidates from their logits at the pronoun (softmax over the two).
CorefPrediction coref_choose(const CorefExample& example, float logit_a, float logit_b);

// Finds "it" and two candidate nouns (coref_make) and asks the model which one "it" is.
Result<CorefPrediction> coref_predict(const Model& model, std::string_view text);

}  // namespace attnviz
