// Per-head statistics over an attention map (rows = queries): how spread out, how far, how much on
// the first token and on punctuation, and the strongest keys of a query. Rows whose every key is
// hidden (all-zero weights) are left out of the averages.
#pragma once
#include <utility>
#include <vector>

#include "base/tensor.h"

namespace attnviz {

struct HeadStats {
  float entropy = 0;            // mean over queries of -Σ w ln w (nats); 0 = one key, ln(Tk) = uniform
  float max_weight = 0;         // mean over queries of the largest weight in the row
  float mean_distance = 0;      // mean over queries of Σ_j w_ij |i - j| (in tokens)
  float first_token_share = 0;  // mean over queries of w_i0 (the "attention sink")
  float punct_share = 0;        // mean over queries of the weight on punctuation keys
};

// is_punct has one flag per key (column).
HeadStats head_stats(const Mat& weights, const std::vector<bool>& is_punct);

struct KeyWeight {
  int key = 0;
  float weight = 0;
};
// Keeps the k strongest of `candidates`, strongest first, ties in key order.
std::vector<KeyWeight> key_weights_strongest(std::vector<KeyWeight> candidates, int k);

// The k keys with the largest weight for one query, strongest first; ties keep key order.
// Keys with zero weight (hidden by a mask) are never listed, so fewer than k may come back.
std::vector<KeyWeight> top_keys(const Mat& weights, int query, int k);

}  // namespace attnviz
