// Training and judging the translation demo (core/demos/translate_model.h) on the grammar's data
// (core/demos/translate_data.h): AdamW on batches by teacher forcing, and on held-out sentences the
// exact-match rate of greedy translations (by number of clauses) and, for every cross-attention
// head, how often its strongest source token is the gold one (TRANSLATION.md's table) for the
// content tokens (adjectives, nouns, places, verbs) and for all tokens.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "demos/translate_model.h"
#include "train/train.h"

namespace attnviz {

struct TranslateTrainOptions {
  TranslateArch arch;
  uint64_t seed = 1;
  int n_train = 24000;          // training sentences, a third of each length
  int heldout_per_length = 100;  // held-out sentences of 1, 2 and 3 clauses each
  int batch = 64;
  int max_steps = 700;
  float lr = 1e-3f;
  int eval_every = 100;
  float target_exact = 0.97f;  // stop once the held-out exact-match rate reaches it (0: never stop early)
};

struct TranslateScores {
  int exact[kTranslateMaxClauses + 1] = {};    // [0]: all; [k]: sentences of k clauses
  int counted[kTranslateMaxClauses + 1] = {};
  float exact_rate(int clauses = 0) const { return counted[clauses] ? static_cast<float>(exact[clauses]) / static_cast<float>(counted[clauses]) : 0.0f; }
  // Per (decoder layer, head), layer-major: the share of content tokens (and of all tokens) whose
  // cross-attention row has its maximum on the gold source token, with teacher forcing on the gold
  // translation (row i: the position that produces target token i).
  std::vector<float> content_aligned, all_aligned;  // empty for the bottleneck model (no cross-attention)
  int best_head = 0;  // layer * NH + head with the highest content_aligned
};
TranslateScores translate_score(const TranslateModel& model, const std::vector<TranslatePair>& pairs);

// Adds, per cross-attention head (layer-major: content_hits and all_hits hold L·NH counts), the pair's
// target tokens whose row has its maximum on the gold source token: all of them, and the content ones.
// `f` is decoded by teacher forcing on [BOS] + the pair's target (row i produces token i); the
// bottleneck's forward has no cross-attention and adds nothing.
void translate_count_aligned(const TranslateForward& f, const TranslatePair& pair, std::vector<int>& content_hits,
                             std::vector<int>& all_hits);

struct TranslateProgress {
  int step = 0;
  float loss = 0;          // the last batch's mean
  double seconds = 0;
  bool evaluated = false;  // scores were measured at this step
  TranslateScores scores;
};
using TranslateCallback = std::function<bool(const TranslateProgress&, const TranslateModel&)>;

struct TranslateRun {
  TranslateModel model;
  std::vector<TranslateProgress> history;  // one entry per evaluation
  bool stopped = false;
};
Result<TranslateRun> translate_train(const TranslateTrainOptions& options, const TranslateCallback& on_progress = {});

}  // namespace attnviz
