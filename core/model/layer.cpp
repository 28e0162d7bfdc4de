// The residual/LayerNorm/FFN plumbing around attention_forward. One template serves the fast and
// naive paths so they cannot drift apart in structure, only in their kernels.
#include "model/layer.h"

#include "model/kernels.h"

namespace attnviz {

namespace {

struct FastKernels {
  Products products = Products::fastest;
  Mat linear(const Mat& x, MatRef w, const Vec& b) const { return attnviz::linear(x, w, b, products); }
  static Mat norm(const Mat& x, const Vec& w, const Vec& b, const ModelConfig& c) { return norm_apply(x, w, b, c); }
  static void act(Mat& x, Activation a) { activation_apply(x, a); }
};

struct NaiveKernels {
  static Mat linear(const Mat& x, MatRef w, const Vec& b) { return linear_naive(x, w, b); }
  static Mat norm(const Mat& x, const Vec& w, const Vec& b, const ModelConfig& c) { return norm_apply_naive(x, w, b, c); }
  static void act(Mat& x, Activation a) {
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = activation_naive(x.data()[i], a);
  }
};

// The feed-forward block on ffn_in: act(ffn_in · W1ᵀ + b1) · W2ᵀ + b2, or gated (SwiGLU)
// act(ffn_in · W_gateᵀ) ⊙ (ffn_in · W1ᵀ + b1) · W2ᵀ + b2.
template <class K>
void ffn_run(const K& k, const LayerWeights& w, const ModelConfig& c, LayerTrace& t) {
  t.ffn_hidden = k.linear(t.ffn_in, w.ff1_w, w.ff1_b);
  if (c.gated_ffn) {
    Mat gate = k.linear(t.ffn_in, w.ff_gate_w, Vec::Zero(c.d_ff));
    K::act(gate, c.activation);
    t.ffn_hidden = (gate.array() * t.ffn_hidden.array()).matrix();
  } else {
    K::act(t.ffn_hidden, c.activation);
  }
  t.ffn_out = k.linear(t.ffn_hidden, w.ff2_w, w.ff2_b);
}

// attend(attn_in) -> AttentionTrace: the attention step, which the callers choose.
template <class K, class Attend>
LayerTrace layer_run(const K& k, const LayerWeights& w, const ModelConfig& c, const Mat& x, const Attend& attend) {
  const bool pre = c.norm == NormPlacement::pre;
  LayerTrace t;
  t.x_in = x;
  t.attn_in = pre ? K::norm(x, w.norm1_w, w.norm1_b, c) : x;
  t.attn = attend(t.attn_in);
  if (c.sublayer_norm) {
    t.attn_normed = K::norm(t.attn.out, w.attn_out_norm_w, Vec::Zero(c.d_model), c);
    t.resid1 = x + t.attn_normed;
  } else {
    t.resid1 = x + t.attn.out;
  }
  if (!pre) t.resid1 = K::norm(t.resid1, w.norm1_w, w.norm1_b, c);
  if (c.d_ff == 0) {  // attention-only: the FFN fields stay empty rather than pretend to be zeros
    t.out = t.resid1;
    return t;
  }
  if (c.parallel_residual) {  // GPT-NeoX: both blocks read x; out = x + SA(LN1(x)) + FFN(LN2(x))
    t.ffn_in = K::norm(x, w.norm2_w, w.norm2_b, c);
    ffn_run(k, w, c, t);
    t.out = t.ffn_out + t.attn.out + x;  // transformers' order of the sum
    return t;
  }
  t.ffn_in = pre ? K::norm(t.resid1, w.norm2_w, w.norm2_b, c) : t.resid1;
  ffn_run(k, w, c, t);
  if (c.sublayer_norm) {
    t.ffn_normed = K::norm(t.ffn_out, w.ffn_out_norm_w, Vec::Zero(c.d_model), c);
    t.out = t.resid1 + t.ffn_normed;
    return t;
  }
  t.out = t.resid1 + t.ffn_out;
  if (!pre) t.out = K::norm(t.out, w.norm2_w, w.norm2_b, c);
  return t;
}

}  // namespace

LayerTrace layer_forward(const LayerWeights& w, const ModelConfig& c, const Mat& x, const Mat* memory,
                         const Mat& mask, MapsKept kept, const LayerAblation& ablate, Products products) {
  return layer_run(FastKernels{products}, w, c, x, [&](const Mat& attn_in) {
    return attention_forward(w.attn, c, attn_in, memory ? *memory : attn_in, mask, kept, ablate, products);
  });
}

LayerTrace layer_forward_with(const LayerWeights& w, const ModelConfig& c, const Mat& x, const LayerAttention& attend,
                              Products products) {
  return layer_run(FastKernels{products}, w, c, x, attend);
}

LayerTrace layer_forward_naive(const LayerWeights& w, const ModelConfig& c, const Mat& x, const Mat* memory,
                               const Mat& mask, const LayerAblation& ablate) {
  // The reference keeps every score and weight: it has no MapsKept.
  return layer_run(NaiveKernels{}, w, c, x, [&](const Mat& attn_in) {
    return attention_forward_naive(w.attn, c, attn_in, memory ? *memory : attn_in, mask, ablate);
  });
}

}  // namespace attnviz
