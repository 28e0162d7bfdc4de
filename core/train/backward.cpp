// Straightforward matrix calculus; each formula is the derivative of the matching forward in
// kernels.cpp / attention.cpp, with the forward's own accumulation order where it matters. Every
// product, sum and transcendental function is products.h's or portable_math.h's, so a gradient has
// the same bits on every CPU.
#include "train/backward.h"

#include <cmath>
#include <utility>

#include "base/rng.h"
#include "model/kernels.h"
#include "model/portable_math.h"
#include "model/products.h"

namespace attnviz {

LinearGrads linear_backward(const Mat& x, MatRef w, const Mat& dy) {
  LinearGrads g;
  g.dx = product_ab(dy, w);
  g.dw = product_atb(dy, x);
  g.db = column_sums(dy);
  return g;
}

Mat softmax_backward(const Mat& weights, const Mat& dweights) {
  Mat ds(weights.rows(), weights.cols());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    const float dot = dot_portable(weights.row(i).data(), dweights.row(i).data(), static_cast<size_t>(weights.cols()));
    ds.row(i) = weights.row(i).array() * (dweights.row(i).array() - dot);
  }
  return ds;
}

LayerNormGrads layer_norm_backward(const Mat& x, const Vec& w, float eps, const Mat& dy) {
  LayerNormGrads g;
  const Eigen::Index C = x.cols();
  g.dx.resize(x.rows(), C);
  g.dw = Vec::Zero(C);
  g.db = Vec::Zero(C);
  const float n = static_cast<float>(C);
  const auto size = static_cast<size_t>(C);
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    // The forward's own steps (layer_norm in kernels.cpp), so that xhat is what it normalised.
    const float mean = sum_portable(x.row(t).data(), size) / n;
    const RowVec centred = x.row(t).array() - mean;
    const float inv = 1.0f / std::sqrt(dot_portable(centred.data(), centred.data(), size) / n + eps);
    const RowVec xhat = centred * inv;
    g.dw += (dy.row(t).array() * xhat.array()).matrix().transpose();
    g.db += dy.row(t).transpose();
    const RowVec dxhat = dy.row(t).array() * w.transpose().array();
    // dx = inv * (dxhat - mean(dxhat) - xhat * mean(dxhat ⊙ xhat))
    const float dxhat_mean = sum_portable(dxhat.data(), size) / n;
    const float dxhat_xhat = dot_portable(dxhat.data(), xhat.data(), size);
    g.dx.row(t) = inv * (dxhat.array() - dxhat_mean - xhat.array() * dxhat_xhat / n);
  }
  return g;
}

Mat activation_backward(const Mat& pre, Activation a, const Mat& dy) {
  constexpr float kInvSqrt2Pi = 0.39894228040143268f;
  const auto x = pre.array();
  const auto n = static_cast<size_t>(pre.size());
  Mat f(pre.rows(), pre.cols()), e(pre.rows(), pre.cols());  // transcendental parts, value by value
  switch (a) {
    case Activation::relu: return ((x > 0.0f).cast<float>() * dy.array()).matrix();  // 0 · NaN stays NaN
    case Activation::gelu:  // d/dx [x Φ(x)] = Φ(x) + x φ(x)
      f = pre * kInvSqrt2;
      erf_portable(f.data(), f.data(), n);
      e = (-0.5f * x.square()).matrix();
      exp_portable(e.data(), e.data(), n);
      return ((0.5f * (1.0f + f.array()) + x * kInvSqrt2Pi * e.array()) * dy.array()).matrix();
    case Activation::gelu_tanh: {
      f = (kSqrt2OverPi * (x + 0.044715f * x.cube())).matrix();
      tanh_portable(f.data(), f.data(), n);
      const auto th = f.array();
      return ((0.5f * (1.0f + th) + 0.5f * x * (1.0f - th.square()) * kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * x.square())) *
              dy.array()).matrix();
    }
    case Activation::silu: {  // d/dx [x σ(x)] = σ(x) (1 + x (1 - σ(x)))
      e = -pre;
      exp_portable(e.data(), e.data(), n);
      const auto s = 1.0f / (1.0f + e.array());
      return (s * (1.0f + x * (1.0f - s)) * dy.array()).matrix();
    }
  }
  return Mat::Zero(pre.rows(), pre.cols());
}

CrossEntropy cross_entropy(const Mat& logits, const std::vector<int>& targets) {
  CrossEntropy ce;
  ce.dlogits = Mat::Zero(logits.rows(), logits.cols());
  int counted = 0;
  double loss = 0;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    const int t = targets[static_cast<size_t>(i)];
    if (t < 0) continue;
    ++counted;
    const float max = logits.row(i).maxCoeff();
    RowVec e = logits.row(i).array() - max;
    exp_portable(e.data(), e.data(), static_cast<size_t>(e.size()));
    const float sum = sum_portable(e.data(), static_cast<size_t>(e.size()));
    loss -= log_portable(static_cast<double>(e(t) / sum));
    ce.dlogits.row(i) = e / sum;
    ce.dlogits(i, t) -= 1.0f;
  }
  if (counted > 0) {
    ce.loss = static_cast<float>(loss / counted);
    ce.dlogits /= static_cast<float>(counted);
  }
  return ce;
}

HeadGrads head_backward(const HeadInputs& in, const Mat& dout) {
  const Mat& q = *in.q;
  const Mat& k = *in.k;
  const Mat& v = *in.v;
  const Mat& w = *in.weights;
  HeadGrads g;
  g.dv = product_atb(w, dout);
  const Mat dweights = product_abt(dout, v);
  const Mat draw = softmax_backward(w, dweights) * in.scale;  // (Tq, Tk)
  switch (in.score) {
    case ScoreKind::scaled_dot:
    case ScoreKind::dot:
      g.dq = product_ab(draw, k);
      g.dk = product_atb(draw, q);
      break;
    case ScoreKind::general: {  // raw = Q G Kᵀ
      const Mat& G = *in.general_w;
      const Mat kg = product_abt(k, G);  // (Tk, HS): rows are G kⱼ
      g.dq = product_ab(draw, kg);
      g.dk = product_atb(draw, product_ab(q, G));
      g.dgeneral = product_ab(product_atb(q, draw), k);
      break;
    }
    case ScoreKind::additive: {  // raw_ij = Σ_a v_a tanh(pq_ia + pk_ja), pq = Q Wqᵀ, pk = K Wkᵀ
      const Mat& Wq = *in.additive_wq;
      const Mat& Wk = *in.additive_wk;
      const RowVec& va = *in.additive_v;
      const Mat pq = product_abt(q, Wq), pk = product_abt(k, Wk);
      const Eigen::Index A = va.size();
      Mat dpq = Mat::Zero(q.rows(), A), dpk = Mat::Zero(k.rows(), A);
      g.dadditive_v = RowVec::Zero(A);
      // Query row by query row, every key at once (in vector lanes): th_ja = tanh(pq_ia + pk_ja), and
      // d raw_ij / d pre_ija = v_a (1 - th_ja²), times d raw_ij. A hidden cell's d raw is 0: it adds 0.
      Mat th(k.rows(), A), dpre(k.rows(), A);
      for (Eigen::Index i = 0; i < q.rows(); ++i) {
        additive_tanh_block(pq, i, pk, th);
        g.dadditive_v += product_ab(draw.row(i), th);
        dpre = ((1.0f - th.array().square()).rowwise() * va.array()).colwise() * draw.row(i).transpose().array();
        dpq.row(i) += column_sums(dpre).transpose();
        dpk += dpre;
      }
      g.dq = product_ab(dpq, Wq);
      g.dk = product_ab(dpk, Wk);
      g.dadditive_wq = product_atb(dpq, q);
      g.dadditive_wk = product_atb(dpk, k);
      break;
    }
  }
  return g;
}

}  // namespace attnviz

namespace attnviz {

namespace {

// A zero gradient container shaped like w.
AttentionWeights zeros_like(const AttentionWeights& w) {
  AttentionWeights z;
  z.in_proj_w = Mat::Zero(w.in_proj_w.rows(), w.in_proj_w.cols());
  z.in_proj_b = Vec::Zero(w.in_proj_b.size());
  z.out_w = Mat::Zero(w.out_w.rows(), w.out_w.cols());
  z.out_b = Vec::Zero(w.out_b.size());
  z.general_w = Mat::Zero(w.general_w.rows(), w.general_w.cols());
  z.additive_wq = Mat::Zero(w.additive_wq.rows(), w.additive_wq.cols());
  z.additive_wk = Mat::Zero(w.additive_wk.rows(), w.additive_wk.cols());
  z.additive_v = Mat::Zero(w.additive_v.rows(), w.additive_v.cols());
  return z;
}

}  // namespace

AttentionGrads attention_backward(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                  const AttentionTrace& fwd, const Mat& dout) {
  return attention_backward_segments(w, c, xq, xkv, fwd, {RowSegment{0, xq.rows(), 0, xkv.rows()}}, dout);
}

AttentionGrads attention_backward_start(const AttentionWeights& w, const Mat& concat, const Mat& dout, Mat& dconcat) {
  AttentionGrads g;
  g.dw = zeros_like(w);
  LinearGrads out = linear_backward(concat, w.out_w, dout);
  g.dw.out_w = std::move(out.dw);
  g.dw.out_b = std::move(out.db);
  dconcat = std::move(out.dx);
  return g;
}

void attention_backward_projections(const AttentionWeights& w, int C, const Mat& xq, const Mat& xkv, const Mat& dq,
                                    const Mat& dk, const Mat& dv, AttentionGrads& g) {
  // The three projections: rows [0, C) of in_proj read xq, rows [C, 3C) read xkv.
  const LinearGrads pq = linear_backward(xq, w.in_proj_w.topRows(C), dq);
  const LinearGrads pk = linear_backward(xkv, w.in_proj_w.middleRows(C, C), dk);
  const LinearGrads pv = linear_backward(xkv, w.in_proj_w.bottomRows(C), dv);
  g.dw.in_proj_w << pq.dw, pk.dw, pv.dw;
  g.dw.in_proj_b << pq.db, pk.db, pv.db;
  g.dxq = pq.dx;
  g.dxkv = pk.dx + pv.dx;
}

AttentionGrads attention_backward_segments(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                           const AttentionTrace& fwd, const std::vector<RowSegment>& segments,
                                           const Mat& dout) {
  const int C = c.d_model, HS = c.head_size(), NH = c.n_heads;
  Mat dconcat;
  AttentionGrads g = attention_backward_start(w, fwd.concat, dout, dconcat);
  Mat dq(xq.rows(), C), dk(xkv.rows(), C), dv(xkv.rows(), C);
  for (int h = 0; h < NH; ++h) {
    const Mat G = head_block(w.general_w, h, HS), Wq = head_block(w.additive_wq, h, HS),
              Wk = head_block(w.additive_wk, h, HS);
    const RowVec va = w.additive_v.size() > 0 ? RowVec(w.additive_v.row(h)) : RowVec();
    for (size_t s = 0; s < segments.size(); ++s) {
      const RowSegment& seg = segments[s];
      if (seg.q_rows == 0) {  // no query: nothing reaches its keys and values
        dk.block(seg.k_first, h * HS, seg.k_rows, HS).setZero();
        dv.block(seg.k_first, h * HS, seg.k_rows, HS).setZero();
        continue;
      }
      const HeadTrace& head = fwd.heads[s * static_cast<size_t>(NH) + static_cast<size_t>(h)];
      const HeadInputs in{head.score, score_scale(c, head.score), &head.q, &head.k, &head.v,
                          &head.weights_kept, &G, &Wq, &Wk, &va};
      const HeadGrads hg = head_backward(in, dconcat.block(seg.q_first, h * HS, seg.q_rows, HS));
      dq.block(seg.q_first, h * HS, seg.q_rows, HS) = hg.dq;
      dk.block(seg.k_first, h * HS, seg.k_rows, HS) = hg.dk;
      dv.block(seg.k_first, h * HS, seg.k_rows, HS) = hg.dv;
      // Summed over segments in order; the first adds to zeros, which leaves its bits.
      if (hg.dgeneral.size() > 0) g.dw.general_w.block(h * HS, 0, HS, HS) += hg.dgeneral;
      if (hg.dadditive_wq.size() > 0) {
        g.dw.additive_wq.block(h * HS, 0, HS, HS) += hg.dadditive_wq;
        g.dw.additive_wk.block(h * HS, 0, HS, HS) += hg.dadditive_wk;
        g.dw.additive_v.row(h) += hg.dadditive_v;
      }
    }
  }
  attention_backward_projections(w, C, xq, xkv, dq, dk, dv, g);
  return g;
}

LayerGrads layer_backward(const LayerWeights& w, const ModelConfig& c, const LayerTrace& f, const Mat* memory,
                          const Mat& dout) {
  return layer_backward_with(w, c, f, memory, dout, [&](const Mat& dattn_out) {
    return attention_backward(w.attn, c, f.attn_in, memory ? *memory : f.attn_in, f.attn, dattn_out);
  });
}

LayerGrads layer_backward_with(const LayerWeights& w, const ModelConfig& c, const LayerTrace& f, const Mat* memory,
                               const Mat& dout, const LayerAttentionBackward& attend_backward) {
  const bool pre = c.norm == NormPlacement::pre;
  LayerGrads g;
  // FFN: hidden = act(ffn_in · W1ᵀ + b1); ffn_out = hidden · W2ᵀ + b2. The pre-activation is recomputed.
  auto ffn_backward = [&](const Mat& dffn_out) {
    const LinearGrads l2 = linear_backward(f.ffn_hidden, w.ff2_w, dffn_out);
    const Mat pre_act = linear(f.ffn_in, w.ff1_w, w.ff1_b, Products::portable);  // the forward's own product
    const LinearGrads l1 = linear_backward(f.ffn_in, w.ff1_w, activation_backward(pre_act, c.activation, l2.dx));
    g.dw.ff1_w = l1.dw;
    g.dw.ff1_b = l1.db;
    g.dw.ff2_w = l2.dw;
    g.dw.ff2_b = l2.db;
    return l1.dx;  // d ffn_in
  };
  auto attn_backward = [&](const Mat& dattn_out) {
    AttentionGrads a = attend_backward(dattn_out);
    g.dw.attn = std::move(a.dw);
    if (memory) {
      g.dmemory = std::move(a.dxkv);
      return a.dxq;
    }
    return Mat(a.dxq + a.dxkv);  // d attn_in
  };
  if (c.d_ff == 0) {
    // Attention only. The absent FFN and norm2 get zero-size gradients shaped like their weights,
    // so the optimiser's tensor list still lines up with the model's.
    g.dw.ff1_w = Mat::Zero(w.ff1_w.rows(), w.ff1_w.cols());
    g.dw.ff1_b = Vec::Zero(w.ff1_b.size());
    g.dw.ff2_w = Mat::Zero(w.ff2_w.rows(), w.ff2_w.cols());
    g.dw.ff2_b = Vec::Zero(w.ff2_b.size());
    g.dw.norm2_w = Vec::Zero(w.norm2_w.size());
    g.dw.norm2_b = Vec::Zero(w.norm2_b.size());
    if (pre) {
      // out = x + attn(LN1(x))
      const LayerNormGrads n1 = layer_norm_backward(f.x_in, w.norm1_w, c.ln_eps, attn_backward(dout));
      g.dx = dout + n1.dx;
      g.dw.norm1_w = n1.dw;
      g.dw.norm1_b = n1.db;
    } else {
      // out = LN1(x + attn(x))
      const LayerNormGrads n1 = layer_norm_backward(f.x_in + f.attn.out, w.norm1_w, c.ln_eps, dout);
      g.dx = n1.dx + attn_backward(n1.dx);
      g.dw.norm1_w = n1.dw;
      g.dw.norm1_b = n1.db;
    }
  } else if (pre) {
    // resid1 = x + attn(LN1(x)); out = resid1 + ffn(LN2(resid1))
    const LayerNormGrads n2 = layer_norm_backward(f.resid1, w.norm2_w, c.ln_eps, ffn_backward(dout));
    const Mat dresid1 = dout + n2.dx;
    const LayerNormGrads n1 = layer_norm_backward(f.x_in, w.norm1_w, c.ln_eps, attn_backward(dresid1));
    g.dx = dresid1 + n1.dx;
    g.dw.norm1_w = n1.dw;
    g.dw.norm1_b = n1.db;
    g.dw.norm2_w = n2.dw;
    g.dw.norm2_b = n2.db;
  } else {
    // resid1 = LN1(x + attn(x)); out = LN2(resid1 + ffn(resid1))
    const LayerNormGrads n2 = layer_norm_backward(f.resid1 + f.ffn_out, w.norm2_w, c.ln_eps, dout);
    const Mat dresid1 = n2.dx + ffn_backward(n2.dx);
    const LayerNormGrads n1 = layer_norm_backward(f.x_in + f.attn.out, w.norm1_w, c.ln_eps, dresid1);
    g.dx = n1.dx + attn_backward(n1.dx);
    g.dw.norm1_w = n1.dw;
    g.dw.norm1_b = n1.db;
    g.dw.norm2_w = n2.dw;
    g.dw.norm2_b = n2.db;
  }
  return g;
}

}  // namespace attnviz
