// Gradients of the forward kernels (core/model/kernels.h) and of one attention head (core/model/attention.h),
// for the trainer. Each takes what its forward saw (and, where cheaper, what it produced) plus the
// gradient of the loss with respect to its output. Tests check every one against central finite
// differences. Nothing here updates weights; that is the optimiser's job.
#pragma once
#include <functional>
#include <vector>

#include "base/tensor.h"
#include "model/attention.h"
#include "model/config.h"
#include "model/layer.h"
#include "model/model.h"

namespace attnviz {

struct LinearGrads {
  Mat dx;  // (T, in)
  Mat dw;  // (out, in)
  Vec db;  // (out)
};
// y = x · wᵀ + b
LinearGrads linear_backward(const Mat& x, MatRef w, const Mat& dy);

// Row-wise softmax, given its output `weights` (T, Tk): dS = W ⊙ (dW − rowsum(dW ⊙ W)). Hidden cells
// (weight 0) and fully masked rows get zero gradient, as they should.
Mat softmax_backward(const Mat& weights, const Mat& dweights);

struct LayerNormGrads {
  Mat dx;  // (T, C)
  Vec dw;  // (C)
  Vec db;  // (C)
};
LayerNormGrads layer_norm_backward(const Mat& x, const Vec& w, float eps, const Mat& dy);

// `pre` is the activation's input.
Mat activation_backward(const Mat& pre, Activation a, const Mat& dy);

struct CrossEntropy {
  float loss = 0;  // mean over rows with a target
  Mat dlogits;     // (N, V)
};
// Softmax cross-entropy per row; rows whose target is negative are ignored (and get zero gradient).
CrossEntropy cross_entropy(const Mat& logits, const std::vector<int>& targets);

// One head's scores -> weights -> output, backwards. Inputs are the head's forward values.
struct HeadGrads {
  Mat dq;  // (Tq, HS)
  Mat dk;  // (Tk, HS)
  Mat dv;  // (Tk, HS)
  Mat dgeneral;      // (HS, HS) for ScoreKind::general, else empty
  Mat dadditive_wq;  // (HS, HS) for ScoreKind::additive, else empty
  Mat dadditive_wk;  // (HS, HS)
  RowVec dadditive_v;  // (HS)
};
struct HeadInputs {
  ScoreKind score = ScoreKind::scaled_dot;
  float scale = 1.0f;        // score_scale(kind, HS, τ)
  const Mat* q = nullptr;    // (Tq, HS)
  const Mat* k = nullptr;    // (Tk, HS)
  const Mat* v = nullptr;    // (Tk, HS)
  const Mat* weights = nullptr;  // (Tq, Tk) softmax output
  const Mat* general_w = nullptr;                                  // (HS, HS) for general
  const Mat* additive_wq = nullptr, *additive_wk = nullptr;        // (HS, HS) for additive
  const RowVec* additive_v = nullptr;                              // (HS)
};
HeadGrads head_backward(const HeadInputs& in, const Mat& dout);

// Gradients of a whole attention block (core/model/attention.h attention_forward): with respect to the
// query input, the key/value input (the same matrix in self-attention: add the two) and every
// parameter. Parameter gradients use the weights' own layout, in an AttentionWeights.
struct AttentionGrads {
  Mat dxq;   // (Tq, C)
  Mat dxkv;  // (Tk, C)
  AttentionWeights dw;
};
AttentionGrads attention_backward(const AttentionWeights& w, const ModelConfig& config, const Mat& xq, const Mat& xkv,
                                  const AttentionTrace& forward, const Mat& dout);

// Several independent sequences stacked row-wise (the trainer stacks a shard's examples so that each
// weight product runs once for all of them): segment s's queries are rows [q_first, q_first + q_rows)
// of xq, its keys and values rows [k_first, k_first + k_rows) of xkv, and forward.heads[s·NH + h] is
// its head h. Attention never crosses a segment; the parameter gradients are summed over segments.
struct RowSegment {
  Eigen::Index q_first = 0, q_rows = 0;
  Eigen::Index k_first = 0, k_rows = 0;
};
AttentionGrads attention_backward_segments(const AttentionWeights& w, const ModelConfig& config, const Mat& xq,
                                           const Mat& xkv, const AttentionTrace& forward,
                                           const std::vector<RowSegment>& segments, const Mat& dout);

// The two ends of an attention block's backward, around its heads (attention_backward_segments and
// train/fused_heads.h share them). Start: every parameter gradient zero but W_O's and b_O's, which it
// fills; dconcat gets d loss / d concat. Projections: d loss / d Q, K, V (as attention_project lays
// them out) into in_proj's gradients, dxq and dxkv.
AttentionGrads attention_backward_start(const AttentionWeights& w, const Mat& concat, const Mat& dout, Mat& dconcat);
void attention_backward_projections(const AttentionWeights& w, int d_model, const Mat& xq, const Mat& xkv,
                                    const Mat& dq, const Mat& dk, const Mat& dv, AttentionGrads& g);

// Gradients of one layer (core/model/layer.h layer_forward), from its trace. memory is the cross-attention
// source (nullptr for self-attention); its gradient lands in dmemory. An attention-only layer
// (d_ff == 0) gets empty FFN and norm2 gradients, like its weights.
struct LayerGrads {
  Mat dx;       // (T, C)
  Mat dmemory;  // (Tk, C) cross-attention only
  LayerWeights dw;
};
LayerGrads layer_backward(const LayerWeights& w, const ModelConfig& config, const LayerTrace& forward, const Mat* memory,
                          const Mat& dout);
// layer_backward with the attention step's gradients supplied by the caller (the counterpart of
// layer_forward_with): it gets d loss / d attention output (T, C) and returns the attention's
// gradients; the norms, residuals and FFN around it are layer_backward's own.
using LayerAttentionBackward = std::function<AttentionGrads(const Mat& dattn_out)>;
LayerGrads layer_backward_with(const LayerWeights& w, const ModelConfig& config, const LayerTrace& forward,
                               const Mat* memory, const Mat& dout, const LayerAttentionBackward& attend_backward);

}  // namespace attnviz
