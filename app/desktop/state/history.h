// Undo and redo (Ctrl+Z / Ctrl+Shift+Z) for what the user asked for: the sentences, every
// architecture, mask and measure toggle, the heads switched off, the word toggles, Compare's mode
// and sentence, the colour map. app_update records a step whenever these differ from the last
// recorded ones; typing within kHistoryTypingSeconds of the last keystroke joins one step, so one
// undo takes back a word being typed, not a letter. Which model is shown, the view and the
// selection are not steps (opening a model is File's business; looking around changes nothing).
// Headless: lives in AppState, driven by app_update.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/measures.h"
#include "analysis/word_view.h"
#include "base/rng.h"
#include "demos/demo_arch.h"
#include "model/ablation.h"
#include "model/config.h"
#include "render/colormap.h"
#include "views/compare/compare_state.h"

namespace attnviz {

struct AppState;

inline constexpr double kHistoryTypingSeconds = 1.0;
inline constexpr size_t kHistoryMaxSteps = 200;

// One recorded state.
struct Edit {
  std::string sentence, source_sentence, sentence_b;
  bool cross = false;
  ModelConfig config;
  uint64_t seed = 1;
  RngGenerator generator = kRngNewest;
  MaskSpec mask;
  Ablation ablation;
  AttentionMeasure measure = AttentionMeasure::weights;
  WordViewOptions word_view;
  CompareMode compare_mode = CompareMode::sentence_b;
  std::string compare_sentence;
  Colormap cmap = Colormap::viridis;
  bool annotate = true;
  DemoArch coref_arch, induction_arch;  // the trained demos' live architectures
};

struct History {
  std::vector<Edit> undo, redo;  // oldest first; the top is the newest
  Edit current;                  // what app_update last saw
  bool started = false;          // `current` holds something
  double last_typing = -1e9;     // when the last step that only changed a sentence was recorded
};

// Records a step when the state differs from the last one seen (app_update calls it every frame
// with a steady clock in seconds). A new step clears what could be redone.
void history_track(AppState& app, double now_seconds);
// Takes back the newest step / puts back the newest undone one; false when there is none.
bool history_undo(AppState& app);
bool history_redo(AppState& app);

}  // namespace attnviz
