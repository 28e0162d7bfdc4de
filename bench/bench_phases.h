// Where trace_run's time goes: a copy of the fast forward path (trace.cpp, layer.cpp,
// attention.cpp for self-attention with scaled_dot heads) built from core's public kernels, with a
// stopwatch around every step. It is a benchmark aid, not a second engine: the caller checks that
// its output matches trace_run and that its total is close to trace_run's time.
#pragma once
#include <array>
#include <string_view>

#include "base/tensor.h"
#include "model/config.h"
#include "model/model.h"

namespace attnviz::bench {

enum class Phase {
  setup,       // model_check (every weight checked finite), input check, mask_build, embed copy
  layer_norm,  // LN1, LN2 (and the final LayerNorm)
  qkv_proj,    // the (T, C) x (C, 3C) GEMM + bias
  qkv_split,   // copying the (T, 3C) result into Q, K, V
  head_copy,   // per head: copying its Q, K, V columns into the HeadTrace
  scores,      // per head: Q Kᵀ
  scale,       // per head: scores_raw -> scores_scaled
  softmax,     // per head: scores + mask, row softmax
  attn_v,      // per head: weights · V
  concat,      // per head: copying its output into the concat
  out_proj,    // concat · W_Oᵀ + b
  residual,    // the two residual adds
  ffn1,        // (T, C) x (C, F) + bias
  activation,  // GELU / ReLU over (T, F)
  ffn2,        // (T, F) x (F, C) + bias
  trace_copy,  // x_in, attn_in / ffn_in copies kept in the trace (post-norm: attn_in, pre: x_in)
  free_trace,  // destroying the Trace (every intermediate) at the end
  count
};
inline constexpr int kPhaseCount = static_cast<int>(Phase::count);

std::string_view phase_name(Phase p);

struct PhaseProfile {
  std::array<double, kPhaseCount> seconds{};  // wall seconds per phase
  double total = 0;                           // wall seconds of the whole mirrored forward
  Mat final;                                  // (T, C) the forward's output, to compare with trace_run
};

// x: (T, C) embeddings; the model must use scaled_dot heads and pass model_check.
PhaseProfile phases_run(const Model& model, const Mat& x, const MaskSpec& mask);

}  // namespace attnviz::bench
