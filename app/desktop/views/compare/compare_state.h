// What the Compare view remembers: the mode, sentence B, and the maps derived from traces A and B
// for the chosen layer. The job for B (A's job with one thing changed) and the maps are built here,
// headless, by app_update; the view only draws them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"
#include "state/compute_worker.h"

namespace attnviz {

// What the Compare view puts beside the main trace (A). B is computed only while Compare is shown.
enum class CompareMode {
  sentence_b,          // the same model on a second sentence ("tired" vs "wide")
  single_vs_multi,     // one head at the same d_model vs the configured heads (and their average)
  masked_vs_unmasked,  // the masks as set vs none (or causal, when none is set)
  scaled_vs_unscaled,  // ÷√d_k on vs off
};
inline constexpr CompareMode kAllCompareModes[] = {CompareMode::sentence_b, CompareMode::single_vs_multi,
                                                   CompareMode::masked_vs_unmasked, CompareMode::scaled_vs_unscaled};

// Names for sessions and scripts ("sentence_b", "single_vs_multi", ...).
std::string_view compare_mode_name(CompareMode m);
std::optional<CompareMode> compare_mode_from_name(std::string_view name);

// Maps derived from A and B for the chosen layer, rebuilt when either changes.
struct CompareMaps {
  std::vector<Mat> a;        // per head of A, plus (single_vs_multi) the average of A's heads last
  std::vector<Mat> b;        // per head of B
  std::vector<Mat> diff;     // a[i] - b[i] where shapes match (single_vs_multi: each of A's heads, then
                             // their average, minus B's one head)
  std::vector<std::string> a_titles, b_titles, diff_titles;
  std::string note;          // why a difference could not be drawn (different token counts), else empty
  uint64_t key = 0;          // (trace version, layer) these maps were built for
};

struct CompareState {
  CompareMode mode = CompareMode::sentence_b;
  std::string sentence = "The animal didn't cross the street because it was too wide.";
  std::string a_pair;  // the minimal pair of the last sentence A sent that has one (compare_follow_sentence_a)
  // single_vs_multi: B's one head beside the average of A's heads, not beside each head (the default)
  bool average = false;
  CompareMaps maps;

  void reset() { *this = CompareState{}; }
};

// B's job for the chosen mode: A's job with one thing changed.
ComputeJob compare_job(CompareMode mode, const std::string& sentence_b, const ComputeJob& a);

// Called with sentence A whenever an edit is sent: while B is the minimal pair of the A before
// ("... too wide." for "... too tired."), B becomes the new A's pair, so typing "wide" into A does
// not leave A and B the same sentence, even when the word is typed a letter at a time (the A before
// is the last one that had a pair). A B typed by hand stays.
void compare_follow_sentence_a(CompareState& s, const std::string& sentence_a);

// Rebuilds `maps` for `layer` unless they were built for this (version, layer) already.
void compare_maps_update(CompareState& s, const Trace* a, const Trace* b, int layer, uint64_t trace_version);

}  // namespace attnviz
