// What the Translation view remembers and computes (headless; the drawing is translate_view.cpp):
// the English sentence, which shipped translation model is shown, the head and the decoding step
// looked at, the cross-attention heads switched off; and, derived from those, the readout of the
// sentence (core/demos/translate_readout.h), what each head does when switched off, the same
// sentence through every scoring function, and — measured off the UI thread — the exact-match rate
// by sentence length of the attention model and of the bottleneck. A sentence outside the grammar
// keeps the last good readout on screen beside the message that names what is wrong.
#pragma once
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "asset_paths.h"
#include "base/no_copy.h"
#include "state/background_job.h"
#include "demos/translate_demo.h"
#include "demos/translate_readout.h"
#include "shell/strings.h"

namespace attnviz {

// The shipped models, in the order the view lists them: demo:translate (scaled dot-product), Luong's
// dot and general scores, Bahdanau's additive score, and the bottleneck (no cross-attention).
struct TranslateVariant {
  const char* id;    // "translate", "score_dot", ...: scripts and sessions
  const char* demo;  // "demo:translate", "demo:translate/score_dot", ...
  Str label;
};
inline constexpr int kTranslateVariants = 5;
inline constexpr int kTranslateBottleneck = 4;  // the variant without cross-attention
const std::array<TranslateVariant, kTranslateVariants>& translate_variants();
// -1 when no variant has that id.
int translate_variant_from_id(std::string_view id);

enum class TranslateTab { alignment, steps, scores, bottleneck, train };
const char* translate_tab_id(TranslateTab tab);
std::optional<TranslateTab> translate_tab_from_id(std::string_view id);

// Exact-match rate against source length (tokens, "." included), held-out sentences grouped by
// length in bins: the attention model's and the bottleneck's, on the same sentences.
struct TranslateLengthBin {
  int shortest = 0, longest = 0;  // source tokens
  int sentences = 0;
  int exact_attention = 0, exact_bottleneck = 0;
};
struct TranslateLengthCurve {
  std::vector<TranslateLengthBin> bins;
  int per_clause_count = 0;  // held-out sentences of 1, 2 and 3 clauses each
  int exact_attention[kTranslateMaxClauses + 1] = {}, exact_bottleneck[kTranslateMaxClauses + 1] = {};
  int sentences[kTranslateMaxClauses + 1] = {};  // [0]: all; [k]: of k clauses
  double seconds = 0;
};
// Bins of `width` tokens from the shortest sentence's length up; both exact lists are per pair.
TranslateLengthCurve translate_length_curve(const std::vector<TranslatePair>& pairs, const std::vector<char>& exact_attention,
                                            const std::vector<char>& exact_bottleneck, int width);

// Both models translate every held-out sentence (seed 1's, per_clause_count of each length); run on
// a BackgroundJob.
TranslateLengthCurve translate_measure_curve(const TranslateModel& attention, const TranslateModel& bottleneck,
                                             int per_clause_count);

// Retrains one of the variants (its scoring function, or the bottleneck) on a thread of its own at
// a lower priority, as `attnviz-cli train translate` does, reporting every evaluation; a stop ends
// it at the next step, keeping nothing.
struct TranslateTrainSettings {
  int seed = 1, n_heads = 4, d_model = 64, max_steps = 700;
  int heldout_per_length = 100;  // the held-out sentences of each length every evaluation translates
};
struct TranslateTrainPoint {
  int step = 0;
  float loss = 0;
  float exact = -1;    // held-out exact-match rate at an evaluation, else -1
  float aligned = -1;  // the best head's share of content tokens aligned, at an evaluation (-1: none)
};
struct TranslateTrainSnapshot {
  bool running = false;
  int variant = -1, max_steps = 0;
  TranslateTrainSettings settings;
  std::vector<TranslateTrainPoint> points;
};
class TranslateTrainJob : NoCopy {
 public:
  ~TranslateTrainJob() { stop(); }  // a run still going ends at its next step
  void start(const TranslateTrainOptions& options, int variant, const TranslateTrainSettings& settings);
  void stop();  // ends a run at its next step and waits for it (its model is dropped)
  TranslateTrainSnapshot snapshot() const;
  std::optional<Result<TranslateRun>> poll() { return job_.poll(); }  // the finished run, once
  bool busy() const { return job_.busy(); }                           // until poll() has taken it

 private:
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  TranslateTrainSnapshot snapshot_;
  BackgroundJob<Result<TranslateRun>> job_;  // last: its thread reads the members above
};

struct TranslateModelSlot {
  bool tried = false;  // loading was attempted (once: the files do not change while the app runs)
  std::shared_ptr<const TranslateModel> model;
  std::string error;
  std::string retrained;  // empty: the shipped model; else what this app trained ("seed 3 · 4 heads · …")
};

struct TranslateState {
  // What the user asked for / looks at.
  std::string text = "the big cat chased the small dog in the park .";
  int variant = 0;                 // index into translate_variants()
  TranslateTab tab = TranslateTab::alignment;
  bool tab_request = false;        // select `tab` in the tab bar on the next frame
  int head = -1;                   // layer * NH + head shown; -1: the sentence's best aligning head; -2: the mean of the heads
  int step = 0;                    // the decoding step (readout row) the Step by step tab shows
  Ablation cross_off;              // the shown model's cross-attention heads switched off
  int curve_per_clause_count = 60; // held-out sentences of each length the bottleneck plot measures
  uint64_t random_draws = 0;       // sentences the Random button drew (the next one's stream)

  // Derived (translate_refresh).
  std::array<TranslateModelSlot, kTranslateVariants> models;
  std::optional<TranslateReadout> readout;  // the newest good one
  std::string readout_text;                 // the text it is of, its variant and heads off
  int readout_variant = -1;
  std::vector<HeadRef> readout_off;
  AblationMode readout_mode = AblationMode::zero;
  std::string error;                        // why the newest text or switch failed (the readout stays)
  std::string computed_text;                // the text last tried, good or not
  std::vector<TranslateHeadEffect> effects;  // per head not off: the translation without it
  std::array<std::optional<TranslateReadout>, kTranslateVariants> side;  // the readout's text through every model, no head off
  std::array<std::string, kTranslateVariants> side_error;
  BackgroundJob<Result<TranslateLengthCurve>> curve_job;
  std::optional<TranslateLengthCurve> curve;
  std::string curve_error;
  TranslateTrainSettings train_settings;
  TranslateTrainJob train_job;
  std::string train_error;   // why the last run could not start or failed
  std::string train_result;  // the last finished run's figures
  uint64_t version = 0;                     // bumped whenever readout, effects or side change

  // Back to how the view first opens; the loaded models and the measured curve stay.
  void reset();
};

struct AppState;

// Loads what the shown variants need, rebuilds the readouts when the text, the variant or the heads
// off changed, and installs the curve once measured. Called once a frame while the view is shown
// (and by scripts).
void translate_refresh(AppState& app);
// Starts measuring the bottleneck plot (a no-op while it runs or once measured).
void translate_curve_start(AppState& app);
// The shown variant's model, or null (its error in models[variant].error).
const TranslateModel* translate_shown_model(const AppState& app);
// The shown model when the readout is of it (the tabs draw from both), else null.
const TranslateModel* translate_readout_model(const AppState& app);
// The head the alignment and the steps show: state.head while it exists, else the readout's best;
// -1 for the bottleneck.
int translate_shown_head(const AppState& app);

// Retrains the shown variant with app.translate.train_settings (its scoring function, or the
// bottleneck); the result replaces it in every tab when done. Errors: a run is already going, or the
// settings are not a model (d_model not divisible by the heads, ...).
Status translate_train_start(AppState& app);
// The shipped model back for the shown variant, after a retrain.
Status translate_use_shipped(AppState& app);

// Actions (the view's controls and the script verbs share them). Each returns an error naming what
// is wrong and changes nothing then.
Status translate_set_variant(AppState& app, std::string_view id);
Status translate_toggle_head(AppState& app, int layer, int head);
Status translate_set_step(AppState& app, int step);

}  // namespace attnviz
