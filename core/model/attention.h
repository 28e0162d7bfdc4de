// Multi-head attention for one layer, keeping every intermediate: per head Q, K, V, the raw and
// scaled scores, softmax weights and output; then the concat and W_O. Self-attention passes the same
// matrix as queries and keys; cross-attention passes the target as xq and the source as xkv.
#pragma once
#include <vector>

#include "base/tensor.h"
#include "model/ablation.h"
#include "model/config.h"
#include "model/kernels.h"
#include "model/model.h"

namespace attnviz {

// How much of its (Tq, Tk) matrices a dot-product head keeps (heads of other scoring functions
// always keep everything). The trace chooses by its size (trace_maps_kept).
enum class MapsKept {
  all,      // the raw and scaled scores and the weights
  weights,  // the weights only: head_scores recomputes the scores from Q and K (kKeepScoresCells)
  none,     // neither: head_map (model/head_map.h) forms the weights from Q, K and the mask when a view,
            // a statistic or an export asks for them (kKeepMapsCells); memory grows as L·T·d, not L·H·T²
};

// trace_reuse.cpp's head_extend builds every field below: a new field must be added there too.
struct HeadTrace {
  ScoreKind score = ScoreKind::scaled_dot;
  Mat q;              // (Tq, HS) as the scores read it: rotated by position with rotary positions
  Mat k;              // (Tk, HS) likewise; with grouped key/value heads, the shared head's
  Mat v;              // (Tk, HS)
  Mat q_unrotated;    // (Tq, HS) Q before the rotation; rotary positions only, empty otherwise
  Mat k_unrotated;    // (Tk, HS) K before the rotation; likewise
  // Empty for a dot-product head of a long input, whose trace keeps only the weights: head_scores
  // and head_score_at recompute them from Q and K (see kKeepScoresCells).
  Mat scores_raw;     // (Tq, Tk) QKᵀ, or the head's scoring function, before any scaling
  Mat scores_scaled;  // (Tq, Tk) ÷√HS (scaled_dot only), ÷τ, soft-capped (Gemma 2); before the mask
  // (Tq, Tk) softmax(scores_scaled + mask); rows sum to 1, or are all 0. Empty when the trace forms
  // its maps on demand (MapsKept::none): read a head's weights through head_map (model/head_map.h).
  Mat weights_kept;
  Mat out;            // (Tq, HS) weights · V: what the head computes, even when switched off
  bool ablated = false;  // switched off: concat holds zeros or this head's mean output instead of `out`
};

struct AttentionTrace {
  std::vector<HeadTrace> heads;  // NH (the trainer's stacked examples: NH per example, core/train/stacked_forward.h)
  Mat concat;                    // (Tq, NH·HS) the heads' outputs side by side (ablated heads replaced)
  Mat out;                       // (Tq, C) concat · W_Oᵀ + b_O
};

// Every head's Q, K and V, as the heads read them. Queries at positions q_first, q_first + 1, ...
// and keys at k_first, ... (rotary positions; a continued trace starts past its reused rows). The
// projections use `products`' kernels (training passes Products::portable).
struct Projections {
  Mat q;            // (Tq, NH·HS) the NH query heads side by side
  Mat k, v;         // (Tk, NKV·HS) the key/value heads side by side
  Mat q_unrotated;  // (Tq, NH·HS) before the rotation (after qk_norm); rotary positions only, empty otherwise
  Mat k_unrotated;  // (Tk, NKV·HS) likewise
};
Projections attention_project(const AttentionWeights& w, const ModelConfig& config, const Mat& xq, const Mat& xkv,
                              bool self_attention, int q_first = 0, int k_first = 0,
                              Products products = Products::fastest);
// Head h of the projections: its Q, its key/value group's K and V (and the unrotated Q and K).
HeadTrace head_forward_from(const AttentionWeights& w, const ModelConfig& config, int h, const Projections& p,
                            const Mat& mask, MapsKept kept);

// xq (Tq, C), xkv (Tk, C), mask (Tq, Tk) additive 0 / -inf, shared by all heads. `kept`: what
// dot-product heads (dot, scaled_dot) keep of their (Tq, Tk) matrices (MapsKept). The
// heads `ablate` switches off are replaced in the concat before W_O (see model/ablation.h). The
// projections use `products`' kernels (the heads' own products are always the portable ones).
AttentionTrace attention_forward(const AttentionWeights& w, const ModelConfig& config, const Mat& xq,
                                 const Mat& xkv, const Mat& mask, MapsKept kept = MapsKept::all,
                                 const LayerAblation& ablate = {}, Products products = Products::fastest);
// Plain loops, one head at a time: the reference the fast version is tested against.
AttentionTrace attention_forward_naive(const AttentionWeights& w, const ModelConfig& config, const Mat& xq,
                                       const Mat& xkv, const Mat& mask, const LayerAblation& ablate = {});

// One head given its Q (Tq, HS), K and V (Tk, HS): scores, weights and output (head index h picks
// the head's block of the scoring parameters). attention_forward runs this for every head. Q, K and V
// become the trace's own: pass blocks or temporaries (one copy each), or std::move a matrix.
HeadTrace head_forward(const AttentionWeights& w, const ModelConfig& config, int h, Mat q, Mat k, Mat v,
                       const Mat& mask, MapsKept kept = MapsKept::all);
// Whether a head of this scoring function may drop its scores and weights (dot and scaled_dot:
// Q and K make them again).
bool head_scores_recomputable(ScoreKind score);
// A dot-product head's weights (Tq, Tk) from its Q and K and the mask: exactly what head_forward
// computes when it does not keep the scores, so bit for bit the forward pass's.
Mat head_weights_from_qk(const HeadTrace& head, const ModelConfig& config, const Mat& mask);
// Rows [first, first + n) of them: the same bits as those rows of head_weights_from_qk.
Mat head_weights_rows_from_qk(const HeadTrace& head, const ModelConfig& config, const Mat& mask, Eigen::Index first,
                              Eigen::Index n);

// One head's (HS, HS) block of a scoring function's stacked parameters (general_w, additive_wq,
// additive_wk); empty when the model has none (a loaded file's model makes them only for a scoring
// function it uses).
Mat head_block(MatRef stacked, int head, int head_size);

// Head h's raw scores (before any scaling) of queries q (Tq, HS) against keys k (Tk, HS): (Tq, Tk).
Mat head_raw_scores(const AttentionWeights& w, const ModelConfig& config, int h, const Mat& q, const Mat& k);

// Replaces the concat blocks of the heads `ablate` switches off (zeros, or their mean over the
// concat's rows) and marks those heads ablated; attention_forward calls it before W_O.
void attention_ablate(AttentionTrace& t, const LayerAblation& ablate, int head_size);

// A head's raw and scaled scores: copies of the stored ones, or recomputed from Q and K when the
// trace dropped them (equal to the forward pass's to float rounding).
struct HeadScores {
  Mat raw, scaled;
};
HeadScores head_scores(const HeadTrace& head, const ModelConfig& config);
// One cell (query q, key k) of them, without building the matrices: for tooltips.
struct HeadScoreCell {
  float raw = 0, scaled = 0;
};
HeadScoreCell head_score_at(const HeadTrace& head, const ModelConfig& config, int q, int k);

// Divides raw scores as the head's scoring function prescribes: ÷√HS for scaled_dot (or the
// model's own scale, config.scaled_dot_scale), then ÷τ.
float score_scale(const ModelConfig& config, ScoreKind kind);
// A soft cap (Gemma 2's on scaled scores, config.attn_softcap, and on logits, config.logit_softcap):
// x -> cap·tanh(x / cap), nothing when cap is 0. Scores are capped after score_scale, before the mask.
float soft_cap(float x, float cap);
void scores_soft_cap(Mat& scores, float cap);

}  // namespace attnviz
