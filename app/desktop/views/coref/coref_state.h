// What the Coreference view remembers between frames, and its two sentence actions, which --script
// shares (verb coref_swap). Lives in AppState; headless. The cache holds what the view reads off
// the traces, rebuilt only when a trace, a sentence or the model changes (coref_cache_refresh).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/coref_readout.h"

namespace attnviz {

struct AppState;

// One sentence as the view shows it: parsed, scored per head, answered.
struct CorefSide {
  std::string text;                       // the sentence it was built from
  CorefExample example;
  bool fits = false;                      // coref_check passed: the trace is of this sentence
  std::optional<NoAnswer> why;            // coref_check's reason when !fits
  std::vector<CorefHeadScore> heads;      // layer * NH + head
  int best = -1;                          // index into heads
  std::optional<CorefPrediction> answer;  // the model's answer, when it can give one
  std::optional<NoAnswer> answer_error;   // ...or why not
};

struct CorefState {
  int pair_layer = -1, pair_head = -1;  // the head whose minimal-pair heatmaps are shown; -1: the best head

  // Cache, keyed by the trace version, both sentences and the model.
  bool cached = false;
  uint64_t cache_version = 0;
  const Model* cache_model = nullptr;
  CorefSide a, b;
  std::string minimal_pair;  // coref_minimal_pair(a.example); empty without a property word
  std::string partner;       // the property word of the minimal pair ("wide" for "tired")

  void reset() { *this = CorefState{}; }
};

// Rebuilds the cache when the traces, the sentences or the model changed since the last call.
void coref_cache_refresh(AppState& app);

// True when sentence B is the Compare view's second sentence (the minimal pair can be shown).
bool coref_b_shown(const AppState& app);

// Sentence B := sentence A's minimal pair, Compare mode := sentence B, B recomputed. Returns false
// and changes nothing when sentence A has no property word to swap.
bool coref_use_minimal_pair(AppState& app);

// Swaps sentences A and B (B becomes the main sentence); both are recomputed.
void coref_swap_sentences(AppState& app);

}  // namespace attnviz
