// Straightforward matrix calculus; each formula is the derivative of the matching forward in
// kernels.cpp / attention.cpp, with the forward's own accumulation order where it matters.
#include "core/backward.h"

#include <cmath>

namespace attnviz {

LinearGrads linear_backward(const Mat& x, const Mat& w, const Mat& dy) {
  LinearGrads g;
  g.dx.noalias() = dy * w;
  g.dw.noalias() = dy.transpose() * x;
  g.db = dy.colwise().sum().transpose();
  return g;
}

Mat softmax_backward(const Mat& weights, const Mat& dweights) {
  Mat ds(weights.rows(), weights.cols());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    const float dot = weights.row(i).dot(dweights.row(i));
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
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const float mean = x.row(t).mean();
    const RowVec centred = x.row(t).array() - mean;
    const float inv = 1.0f / std::sqrt(centred.squaredNorm() / static_cast<float>(C) + eps);
    const RowVec xhat = centred * inv;
    g.dw += (dy.row(t).array() * xhat.array()).matrix().transpose();
    g.db += dy.row(t).transpose();
    const RowVec dxhat = dy.row(t).array() * w.transpose().array();
    // dx = inv * (dxhat - mean(dxhat) - xhat * mean(dxhat ⊙ xhat))
    g.dx.row(t) = inv * (dxhat.array() - dxhat.mean() - xhat.array() * dxhat.dot(xhat) / static_cast<float>(C));
  }
  return g;
}

Mat activation_backward(const Mat& pre, Activation a, const Mat& dy) {
  Mat d(pre.rows(), pre.cols());
  constexpr float kInvSqrt2 = 0.70710678118654752f;
  constexpr float kInvSqrt2Pi = 0.39894228040143268f;
  const float k = std::sqrt(2.0f / 3.14159265358979f);
  for (Eigen::Index i = 0; i < pre.size(); ++i) {
    const float x = pre.data()[i];
    float grad = 0;
    switch (a) {
      case Activation::relu: grad = x > 0 ? 1.0f : 0.0f; break;
      case Activation::gelu:  // d/dx [x Φ(x)] = Φ(x) + x φ(x)
        grad = 0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
        break;
      case Activation::gelu_tanh: {
        const float u = k * (x + 0.044715f * x * x * x);
        const float th = std::tanh(u);
        grad = 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * k * (1.0f + 3.0f * 0.044715f * x * x);
        break;
      }
    }
    d.data()[i] = grad * dy.data()[i];
  }
  return d;
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
    const RowVec e = (logits.row(i).array() - max).exp();
    const float sum = e.sum();
    loss -= std::log(e(t) / sum);
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
  g.dv.noalias() = w.transpose() * dout;
  const Mat dweights = dout * v.transpose();
  const Mat draw = softmax_backward(w, dweights) * in.scale;  // (Tq, Tk)
  switch (in.score) {
    case ScoreKind::scaled_dot:
    case ScoreKind::dot:
      g.dq.noalias() = draw * k;
      g.dk.noalias() = draw.transpose() * q;
      break;
    case ScoreKind::general: {  // raw = Q G Kᵀ
      const Mat& G = *in.general_w;
      const Mat kg = k * G.transpose();  // (Tk, HS): rows are G kⱼ
      g.dq.noalias() = draw * kg;
      g.dk.noalias() = draw.transpose() * (q * G);
      g.dgeneral.noalias() = q.transpose() * draw * k;
      break;
    }
    case ScoreKind::additive: {  // raw_ij = Σ_a v_a tanh(pq_ia + pk_ja), pq = Q Wqᵀ, pk = K Wkᵀ
      const Mat& Wq = *in.additive_wq;
      const Mat& Wk = *in.additive_wk;
      const RowVec& va = *in.additive_v;
      const Mat pq = q * Wq.transpose(), pk = k * Wk.transpose();
      const Eigen::Index A = va.size();
      Mat dpq = Mat::Zero(q.rows(), A), dpk = Mat::Zero(k.rows(), A);
      g.dadditive_v = RowVec::Zero(A);
      for (Eigen::Index i = 0; i < q.rows(); ++i)
        for (Eigen::Index j = 0; j < k.rows(); ++j) {
          if (draw(i, j) == 0.0f) continue;  // hidden cells contribute nothing
          const RowVec th = (pq.row(i) + pk.row(j)).array().tanh();
          g.dadditive_v += draw(i, j) * th;
          const RowVec dpre = draw(i, j) * (va.array() * (1.0f - th.array().square()));
          dpq.row(i) += dpre;
          dpk.row(j) += dpre;
        }
      g.dq.noalias() = dpq * Wq;
      g.dk.noalias() = dpk * Wk;
      g.dadditive_wq.noalias() = dpq.transpose() * q;
      g.dadditive_wk.noalias() = dpk.transpose() * k;
      break;
    }
  }
  return g;
}

}  // namespace attnviz
