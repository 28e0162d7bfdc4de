// Multi-head attention for one layer, keeping every intermediate: per head Q, K, V, the raw and
// scaled scores, softmax weights and output; then the concat and W_O. Self-attention passes the same
// matrix as queries and keys; cross-attention passes the target as xq and the source as xkv.
#pragma once
#include <vector>

#include "core/config.h"
#include "core/model.h"
#include "core/tensor.h"

namespace attnviz {

struct HeadTrace {
  ScoreKind score = ScoreKind::scaled_dot;
  Mat q;              // (Tq, HS)
  Mat k;              // (Tk, HS)
  Mat v;              // (Tk, HS)
  Mat scores_raw;     // (Tq, Tk) QKᵀ, or the head's scoring function, before any scaling
  Mat scores_scaled;  // (Tq, Tk) ÷√HS (scaled_dot only), ÷τ; before the mask
  Mat weights;        // (Tq, Tk) softmax(scores_scaled + mask); rows sum to 1, or are all 0
  Mat out;            // (Tq, HS) weights · V
};

struct AttentionTrace {
  std::vector<HeadTrace> heads;  // NH
  Mat concat;                    // (Tq, C) the heads' outputs side by side
  Mat out;                       // (Tq, C) concat · W_Oᵀ + b_O
};

// xq (Tq, C), xkv (Tk, C), mask (Tq, Tk) additive 0 / -inf, shared by all heads.
AttentionTrace attention_forward(const AttentionWeights& w, const ModelConfig& config, const Mat& xq,
                                 const Mat& xkv, const Mat& mask);
// Plain loops, one head at a time: the reference the fast version is tested against.
AttentionTrace attention_forward_naive(const AttentionWeights& w, const ModelConfig& config, const Mat& xq,
                                       const Mat& xkv, const Mat& mask);

// One head given its Q (Tq, HS), K and V (Tk, HS): scores, weights and output (head index h picks
// the head's block of the scoring parameters). attention_forward runs this for every head.
HeadTrace head_forward(const AttentionWeights& w, const ModelConfig& config, int h, const Mat& q, const Mat& k,
                       const Mat& v, const Mat& mask);

// Divides raw scores as the head's scoring function prescribes: ÷√HS for scaled_dot, then ÷τ.
float score_scale(ScoreKind kind, int head_size, float temperature);

}  // namespace attnviz
