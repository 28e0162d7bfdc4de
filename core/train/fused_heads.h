// The trainer's attention for narrow heads (4 values or fewer; "general" and additive heads of up
// to 8): every head of an example in one pass of plain loops over flat buffers. The general path
// (stacked_forward.cpp, backward.cpp) builds a HeadTrace and runs five Eigen products per example
// and head; at 16 heads of 2 values those fixed costs, not arithmetic, were half of a training step.
// Same formulas, same gradients, other summation orders (so other rounding). Measured per scoring
// function (bench/README.md): faster up to heads of 4 values, and of 8 for the scores with their own
// parameters; slower beyond, where Eigen's products pay for themselves. Of the shipped models only
// the 8-head, d_model 32 grid cell has heads this narrow; it was retrained with this path (the same
// steps and held-out accuracy).
#pragma once
#include <vector>

#include "base/tensor.h"
#include "model/attention.h"
#include "model/config.h"
#include "model/model.h"
#include "train/backward.h"

namespace attnviz {

// Whether the trainer takes this path: heads of at most kFusedHeadsMaxSize values, and heads of up
// to kFusedMappedHeadsMaxSize when every head is "general" or additive. Those heads' features (q·G,
// q·W_qᵀ and k·W_kᵀ) are one product per head over every stacked row here, where the per-head path
// runs three small products per example and head: at heads of 8 values this path took 20-25% less
// CPU (8 additive heads at d_model 64, 16 at 128 x 4 layers; 8 and 16 "general" heads), at 16 the
// same within noise, at 32 more. Dot-product heads of 8 values gained nothing; they stay on the
// per-head path, and with them every shipped model's bits (bench/README.md).
inline constexpr int kFusedHeadsMaxSize = 4;
inline constexpr int kFusedMappedHeadsMaxSize = 8;
bool fused_heads_fit(const ModelConfig& config);

// What the backward pass reads, for every segment (example) and head.
struct FusedHeads {
  Mat q, k, v;  // (rows, C) the projections: queries of xq's rows, keys and values of xkv's
  // (rows, C) the features the scores read, head by head in the same columns: q·G ("general") or
  // q·W_qᵀ, and k·W_kᵀ (additive); a dot-product head's columns are Q's and K's. Empty when no head needs them.
  Mat qf, kf;
  // Segment s, head h: its (q_rows, k_rows) softmax weights, row-major, at offsets[s] + h·q_rows·k_rows;
  // additive heads also their tanh terms, (q_rows, k_rows, HS) at tanh_offsets[s] + h·q_rows·k_rows·HS.
  std::vector<float> weights, tanh_terms;
  std::vector<size_t> offsets, tanh_offsets;
};

// Attention over stacked segments (queries: rows of xq; keys and values: rows of xkv; attention
// never crosses a segment; masks[s] is segment s's (q_rows, k_rows) additive mask). Returns the
// trace's concat and out; its heads stay empty: `keep` holds what the backward needs.
AttentionTrace fused_heads_forward(const AttentionWeights& w, const ModelConfig& config, const Mat& xq, const Mat& xkv,
                                   bool self_attention, const std::vector<RowSegment>& segments,
                                   const std::vector<Mat>& masks, FusedHeads& keep);

// attention_backward_segments for a forward of fused_heads_forward.
AttentionGrads fused_heads_backward(const AttentionWeights& w, const ModelConfig& config, const Mat& xq, const Mat& xkv,
                                    const AttentionTrace& forward, const FusedHeads& kept,
                                    const std::vector<RowSegment>& segments, const Mat& dout);

}  // namespace attnviz
