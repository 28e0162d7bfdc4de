// One Transformer layer (nn.TransformerEncoderLayer semantics) with every intermediate kept:
// post-norm  x = LN1(x + SA(x));      x = LN2(x + FFN(x))      (the 2017 paper, BERT)
// pre-norm   x = x + SA(LN1(x));      x = x + FFN(LN2(x))      (GPT, ViT)
// In cross-attention the keys and values come from `memory` instead of the layer's own input.
// With d_ff == 0 the layer is attention only: post x = LN1(x + SA(x)), pre x = x + SA(LN1(x)).
// GPT-NeoX's parallel residual: x = x + SA(LN1(x)) + FFN(LN2(x)). Gemma's sublayer norms:
// x = x + N_a(SA(LN1(x)));  x = x + N_f(FFN(LN2(x))). The norms are LayerNorm or RMSNorm
// (config.norm_kind); the FFN may be gated (SwiGLU, config.gated_ffn).
#pragma once
#include <functional>

#include "model/attention.h"
#include "model/model.h"

namespace attnviz {

// trace_reuse.cpp's layer_join lists every (T, ·) field below: a new field must be added there too.
struct LayerTrace {
  Mat x_in;        // (T, C) the layer's input
  Mat attn_in;     // (T, C) what attention reads: x_in (post-norm) or LN1(x_in) (pre-norm)
  AttentionTrace attn;
  Mat resid1;      // (T, C) after the attention residual (and LN1 in post-norm)
  Mat ffn_in;      // (T, C) what the FFN reads: resid1 (post) or LN2(resid1) (pre), LN2(x_in) (parallel
                   // residual); empty when F = 0
  Mat ffn_hidden;  // (T, F) activation(ffn_in · W1ᵀ + b1), or gated act(ffn_in · W_gateᵀ) ⊙ (ffn_in · W1ᵀ);
                   // empty when F = 0
  Mat ffn_out;     // (T, C) ffn_hidden · W2ᵀ + b2; empty when F = 0
  // With config.sublayer_norm (Gemma 2/3): each sublayer's output after its own RMSNorm, what the
  // residual adds (resid1 = x_in + attn_normed, out = resid1 + ffn_normed); empty otherwise.
  Mat attn_normed;  // (T, C)
  Mat ffn_normed;   // (T, C); empty when F = 0 too
  Mat out;         // (T, C) the layer's output (resid1 when F = 0)
};

// memory == nullptr: self-attention over x. mask: (T, Tk) additive. kept and ablate: see
// attention_forward. Every product uses `products`' kernels (the translation demo passes
// Products::portable: its models then translate, and retrain, alike on every CPU).
LayerTrace layer_forward(const LayerWeights& w, const ModelConfig& config, const Mat& x, const Mat* memory,
                         const Mat& mask, MapsKept kept = MapsKept::all, const LayerAblation& ablate = {},
                         Products products = Products::fastest);
// layer_forward with the attention step supplied by the caller: it gets the layer's attention
// input (T, C) and returns its AttentionTrace, whose `out` (T, C) feeds the residual. The norms,
// residuals and FFN around it are layer_forward's own, so a caller cannot drift from them;
// trace_run_reusing passes attention that computes only the rows of an edit.
// Its FFN's products use `products`' kernels (training passes Products::portable).
using LayerAttention = std::function<AttentionTrace(const Mat& attn_in)>;
LayerTrace layer_forward_with(const LayerWeights& w, const ModelConfig& config, const Mat& x,
                              const LayerAttention& attend, Products products = Products::fastest);
LayerTrace layer_forward_naive(const LayerWeights& w, const ModelConfig& config, const Mat& x, const Mat* memory,
                               const Mat& mask, const LayerAblation& ablate = {});

}  // namespace attnviz
