// The residual/LayerNorm/FFN plumbing around attention_forward. One template serves the fast and
// naive paths so they cannot drift apart in structure, only in their kernels.
#include "model/layer.h"

#include "model/kernels.h"

namespace attnviz {

namespace {

struct FastKernels {
  static AttentionTrace attention(const AttentionWeights& w, const ModelConfig& c, const Mat& q, const Mat& kv,
                                  const Mat& m, bool keep_scores, const LayerAblation& ablate) {
    return attention_forward(w, c, q, kv, m, keep_scores, ablate);
  }
  static Mat linear(const Mat& x, const Mat& w, const Vec& b) { return attnviz::linear(x, w, b); }
  static Mat norm(const Mat& x, const Vec& w, const Vec& b, float eps) { return layer_norm(x, w, b, eps); }
  static void act(Mat& x, Activation a) { activation_apply(x, a); }
};

struct NaiveKernels {
  static AttentionTrace attention(const AttentionWeights& w, const ModelConfig& c, const Mat& q, const Mat& kv,
                                  const Mat& m, bool /*keep_scores: the reference keeps everything*/,
                                  const LayerAblation& ablate) {
    return attention_forward_naive(w, c, q, kv, m, ablate);
  }
  static Mat linear(const Mat& x, const Mat& w, const Vec& b) { return linear_naive(x, w, b); }
  static Mat norm(const Mat& x, const Vec& w, const Vec& b, float eps) { return layer_norm_naive(x, w, b, eps); }
  static void act(Mat& x, Activation a) {
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = activation_naive(x.data()[i], a);
  }
};

template <class K>
LayerTrace layer_run(const LayerWeights& w, const ModelConfig& c, const Mat& x, const Mat* memory, const Mat& mask,
                     bool keep_scores, const LayerAblation& ablate) {
  const bool pre = c.norm == NormPlacement::pre;
  LayerTrace t;
  t.x_in = x;
  t.attn_in = pre ? K::norm(x, w.norm1_w, w.norm1_b, c.ln_eps) : x;
  t.attn = K::attention(w.attn, c, t.attn_in, memory ? *memory : t.attn_in, mask, keep_scores, ablate);
  t.resid1 = x + t.attn.out;
  if (!pre) t.resid1 = K::norm(t.resid1, w.norm1_w, w.norm1_b, c.ln_eps);
  if (c.d_ff == 0) {  // attention-only: the FFN fields stay empty rather than pretend to be zeros
    t.out = t.resid1;
    return t;
  }
  t.ffn_in = pre ? K::norm(t.resid1, w.norm2_w, w.norm2_b, c.ln_eps) : t.resid1;
  t.ffn_hidden = K::linear(t.ffn_in, w.ff1_w, w.ff1_b);
  K::act(t.ffn_hidden, c.activation);
  t.ffn_out = K::linear(t.ffn_hidden, w.ff2_w, w.ff2_b);
  t.out = t.resid1 + t.ffn_out;
  if (!pre) t.out = K::norm(t.out, w.norm2_w, w.norm2_b, c.ln_eps);
  return t;
}

}  // namespace

LayerTrace layer_forward(const LayerWeights& w, const ModelConfig& c, const Mat& x, const Mat* memory,
                         const Mat& mask, bool keep_scores, const LayerAblation& ablate) {
  return layer_run<FastKernels>(w, c, x, memory, mask, keep_scores, ablate);
}

LayerTrace layer_forward_naive(const LayerWeights& w, const ModelConfig& c, const Mat& x, const Mat* memory,
                               const Mat& mask, const LayerAblation& ablate) {
  return layer_run<NaiveKernels>(w, c, x, memory, mask, true, ablate);
}

}  // namespace attnviz
