// What the Model panel's controls set for a trained demo (coreference, induction): its architecture
// and seed, one struct for both, and the starting-weight adjustments both demos make to the engine's
// default draw. Each demo's options convert to and from it (coref_arch, induction_arch, ...).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/config.h"
#include "model/model.h"

namespace attnviz {

// What the demos' trainers (coref_train, induction_train) make of an architecture and seed, by
// number: raised whenever a change to the initial weights, the data or the training would give a
// model other bits, so that a cache of trained models (the app's, on disk) does not take an older
// trainer's model for this one's. 2: deep models' residual branches start smaller. 3: the induction
// demo stops once its head copies on the repeat (InductionScores::best_on_repeat), and halves its
// learning rate for post-norm models with an FFN. 4: training's arithmetic is the same on every CPU
// (model/products.h, model/portable_math.h), and the shipped demos were retrained with it.
inline constexpr int kDemoTrainerRevision = 4;

struct DemoArch {
  uint64_t seed = 0;
  int d_model = 32, n_heads = 4, n_layers = 2, d_ff = 0;
  ScoreKind score = ScoreKind::scaled_dot;
  NormPlacement norm = NormPlacement::pre;
  PositionEncoding positions = PositionEncoding::learned;
};

bool operator==(const DemoArch& a, const DemoArch& b);

// A demo's training options (CorefTrainOptions, InductionTrainOptions: the same field names) to
// their architecture and seed, and options with an architecture and seed, every other field the
// options' default.
template <class Options>
DemoArch demo_arch_of(const Options& o) {
  return DemoArch{o.seed, o.d_model, o.n_heads, o.n_layers, o.d_ff, o.score, o.norm, o.positions};
}
template <class Options>
Options demo_options_for(const DemoArch& a) {
  Options o;
  o.seed = a.seed;
  o.d_model = a.d_model;
  o.n_heads = a.n_heads;
  o.n_layers = a.n_layers;
  o.d_ff = a.d_ff;
  o.score = a.score;
  o.norm = a.norm;
  o.positions = a.positions;
  return o;
}

// "heads=4 d_model=32 layers=2 ffn=0 score=scaled_dot norm=pre positions=learned seed=78": every
// field as key=value, for scripts and saved sessions.
std::string demo_arch_format(const DemoArch& arch);
// Reads key=value words (those demo_arch_format writes, any of them, in any order) over `base`.
// Errors name an unknown key, a bad value, or heads that do not divide d_model; nothing is guessed.
Result<DemoArch> demo_arch_parse(std::string_view text, DemoArch base);

// The architecture as a folder-safe key: "heads{NH}_dmodel{C}", then each part that differs from
// the demo's shipped architecture ("_layers3_ffn128_dot_post_sinusoidal"); the seed is not part of it.
std::string demo_arch_key(const DemoArch& arch, const DemoArch& shipped);

// The model config of a demo architecture: its sizes, scoring, norm placement and positions, a
// final norm, `max_positions` rows of positions, and the GELU the coreference demo's FFN uses when
// there is an FFN (attention-only models keep the config's default activation, which shipped files
// record). The induction and gather demos build theirs with it; errors are config_validate's.
Result<ModelConfig> demo_model_config(const DemoArch& arch, int max_positions);

// Heads whose scores are not divided by √HS (unscaled dot-product, "general") start with scores
// 1/HS the size the default draw gives them; see the .cpp. Scaled dot-product and additive heads
// keep the default draw.
void start_unscaled_scores_small(Model& model);
// Models of 3 layers or more start with each residual branch's last projection (attention's W_O,
// the FFN's second linear) 0.5/√(2L) the size of the default draw; see the .cpp. 1–2 layers keep it.
void start_deep_residual_branches_small(Model& model);

}  // namespace attnviz
