// One English sentence through the translation demo, as the app's Translation view shows it: the
// grammar's parse (the one right Korean and its gold alignment), the model's greedy translation,
// and that translation read back by teacher forcing so that every cross-attention row is the one
// the decoder saw when it chose the token (row i produced token i; the last row produced [EOS]),
// with each step's probabilities. Also, per cross-attention head, what switching it off does: the
// translation without it and how much less likely the right Korean becomes. Runs no UI.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "demos/translate_model.h"

namespace attnviz {

struct TranslateCandidate {
  int token = 0;       // target vocabulary id
  float probability = 0;
};

struct TranslateReadout {
  TranslatePair pair;                 // the grammar's: source tokens, the right Korean and its gold alignment
  std::vector<int> source_ids;
  std::vector<int> output_ids;        // the greedy translation, without [BOS] / [EOS]
  std::vector<std::string> output;    // its tokens
  bool finished = false;              // [EOS] came within the step limit
  bool exact = false;                 // output == the grammar's translation
  Ablation cross_off;                 // the heads that were off
  TranslateForward forward;           // on [BOS] + output: rows 0..n-1 produced output 0..n-1, row n [EOS]
  std::vector<std::vector<TranslateCandidate>> top;  // per row, the 3 likeliest next tokens, best first
  // Per cross head (layer * NH + head): the share of the right Korean's content tokens whose row has
  // its maximum on the gold source token, by teacher forcing on the right Korean (the demo's score,
  // for this sentence); empty for the bottleneck model. best_head: the highest (-1: none).
  std::vector<float> head_aligned;
  int best_head = -1;
  int content_tokens = 0;             // of the right Korean
  float gold_logprob = 0;             // log p(the right Korean + [EOS] | source), teacher forcing

  int rows() const { return static_cast<int>(output_ids.size()) + 1; }
};

// Errors: the sentence outside the grammar (translate_parse's message, naming the unknown words), a
// head outside the cross-attention.
Result<TranslateReadout> translate_readout(const TranslateModel& model, std::string_view english, const Ablation& cross_off = {});

// The token at row `row` of the readout: output[row], or "[EOS]" past the output.
std::string translate_row_token(const TranslateModel& model, const TranslateReadout& r, int row);

// A Korean token the grammar writes joined to the word before it (이 가 을 를 에서, and "."): the
// Translation view draws such rows joined to their word's row.
bool translate_joined_token(std::string_view token);
// A particle (이 가 을 를 에서): a token of its own that belongs to the noun before it.
bool translate_particle_token(std::string_view token);
// Tokens as Korean is written: particles and "." joined to the word before, else spaces between.
std::string translate_written(const std::vector<std::string>& tokens);

// What one cross-attention head does for this sentence: the translation with it switched off (the
// heads the readout had off stay off) and the drop in log p(right Korean) it costs.
struct TranslateHeadEffect {
  HeadRef head;
  std::vector<std::string> output;
  bool changed = false;      // differs from the readout's translation
  bool exact = false;        // still the right Korean
  float logprob_drop = 0;    // readout.gold_logprob − with the head off (positive: the head helps)
};
// One per cross head not already off, layer-major; empty for the bottleneck model.
Result<std::vector<TranslateHeadEffect>> translate_head_effects(const TranslateModel& model, const TranslateReadout& r);

// Per pair, whether greedy decoding gives exactly the grammar's translation (1) or not (0); the
// pairs are shared among the training shards' threads (as translate_score does).
std::vector<char> translate_exact_each(const TranslateModel& model, const std::vector<TranslatePair>& pairs);

}  // namespace attnviz
