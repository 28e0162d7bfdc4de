// Narrow heads, all of an example's at once. Each head's score is written through two feature rows
// of HS values, one per query and one per key: dot-product heads use Q and K themselves, "general"
// heads q·G and k, additive heads q·W_qᵀ and k·W_kᵀ (then Σ_a v_a tanh(qf_a + kf_a)). The backward
// pass finds d loss / d features first and maps them back through G or W_q, W_k.
//
// Layout: per head, key-side values are stored feature-major (kfᵀ, vᵀ: HS rows of k_rows), so that
// every inner loop runs over the keys of one row, contiguous, in vector lanes. Each row is written
// by one loop and read by the next (no zeroing and adding in place: a vector read of values just
// stored one at a time stalls the CPU).
#include "train/fused_heads.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "model/kernels.h"
#include "model/portable_math.h"
#include "model/products.h"

namespace attnviz {

bool fused_heads_fit(const ModelConfig& c) {
  const int hs = c.head_size();
  if (hs <= kFusedHeadsMaxSize) return true;
  if (hs > kFusedMappedHeadsMaxSize) return false;
  for (int h = 0; h < c.n_heads; ++h)
    if (const ScoreKind kind = c.score_of_head(h); kind == ScoreKind::dot || kind == ScoreKind::scaled_dot)
      return false;
  return true;
}

namespace {

using Index = Eigen::Index;

// One head of one segment, gathered from the (rows, C) projections into small contiguous arrays.
struct HeadSlices {
  std::vector<float> qf;  // (q_rows, HS) query features
  std::vector<float> kf;  // (HS, k_rows) key features, feature-major
  std::vector<float> v;   // (HS, k_rows) values, feature-major
};

// How a head's block of rows is laid out in its slice: (rows, HS), or feature-major (HS, rows).
enum class Layout { by_row, by_feature };

// x's rows [first, first + rows), head h's columns, into out.
void gather_head(const Mat& x, Index first, Index rows, int h, int HS, Layout layout, std::vector<float>& out) {
  out.resize(static_cast<size_t>(rows * HS));
  for (Index i = 0; i < rows; ++i)
    for (int a = 0; a < HS; ++a)
      out[static_cast<size_t>(layout == Layout::by_feature ? a * rows + i : i * HS + a)] = x(first + i, h * HS + a);
}

// The rows whose columns hold a head's query and key features (FusedHeads::qf, kf).
const Mat& query_features(const FusedHeads& p, ScoreKind kind) {
  return kind == ScoreKind::dot || kind == ScoreKind::scaled_dot ? p.q : p.qf;
}
const Mat& key_features(const FusedHeads& p, ScoreKind kind) { return kind == ScoreKind::additive ? p.kf : p.k; }

void gather_slices(ScoreKind kind, const FusedHeads& p, const RowSegment& seg, int h, int HS, HeadSlices& s) {
  gather_head(query_features(p, kind), seg.q_first, seg.q_rows, h, HS, Layout::by_row, s.qf);
  gather_head(key_features(p, kind), seg.k_first, seg.k_rows, h, HS, Layout::by_feature, s.kf);
  gather_head(p.v, seg.k_first, seg.k_rows, h, HS, Layout::by_feature, s.v);
}

// Head h's (HS, HS) block of a stacked scoring parameter.
template <class Stacked>
auto head_param(Stacked& stacked, int h, int HS) {
  return stacked.block(h * HS, 0, HS, HS);
}

// The features of every stacked row, one product per head: q·G ("general"), q·W_qᵀ and k·W_kᵀ
// (additive). Dot-product heads' features are Q and K themselves (qf and kf stay empty when every
// head is one).
void compute_features(const AttentionWeights& w, const ModelConfig& c, FusedHeads& p) {
  const int HS = c.head_size();
  const bool mapped = config_uses(c, ScoreKind::general) || config_uses(c, ScoreKind::additive);
  p.qf = mapped ? p.q : Mat();
  p.kf = config_uses(c, ScoreKind::additive) ? p.k : Mat();
  for (int h = 0; h < c.n_heads; ++h) {
    const auto q = p.q.middleCols(h * HS, HS);
    switch (c.score_of_head(h)) {
      case ScoreKind::general: product_ab(q, head_param(w.general_w, h, HS), p.qf.middleCols(h * HS, HS)); break;
      case ScoreKind::additive:
        product_abt(q, head_param(w.additive_wq, h, HS), p.qf.middleCols(h * HS, HS));
        product_abt(p.k.middleCols(h * HS, HS), head_param(w.additive_wk, h, HS), p.kf.middleCols(h * HS, HS));
        break;
      case ScoreKind::dot:
      case ScoreKind::scaled_dot: break;
    }
  }
}

// Each of `rows` rows of n scores (mask added) becomes its softmax, by softmax_row_in_place's steps
// and bits (the maximum subtracted, exponentials, divided by their sum_portable) with one
// exponential pass over every row at once. Rows without a finite maximum (all hidden, an overflowed
// +inf) take softmax_row_in_place itself; a NaN among finite scores spreads to its row
// (softmax_row_in_place may zero such a row instead).
void softmax_rows(float* W, Index rows, Index n, std::vector<float>& finished) {
  std::vector<Index> special;
  for (Index r = 0; r < rows; ++r) {
    float* row = W + r * n;
    float max = -std::numeric_limits<float>::infinity();
    for (Index j = 0; j < n; ++j) max = std::max(max, row[j]);  // NaN is passed over (and spreads below)
    if (!std::isfinite(max)) {
      softmax_row_in_place(row, n);
      special.push_back(r);
    } else {
      for (Index j = 0; j < n; ++j) row[j] -= max;
    }
  }
  finished.clear();
  for (Index r : special) finished.insert(finished.end(), W + r * n, W + (r + 1) * n);
  exp_portable(W, W, static_cast<size_t>(rows * n));
  for (Index r = 0; r < rows; ++r) {
    float* row = W + r * n;
    const float sum = sum_portable(row, static_cast<size_t>(n));
    for (Index j = 0; j < n; ++j) row[j] /= sum;
  }
  for (size_t k = 0; k < special.size(); ++k)
    std::copy(finished.begin() + static_cast<std::ptrdiff_t>(k * static_cast<size_t>(n)),
              finished.begin() + static_cast<std::ptrdiff_t>((k + 1) * static_cast<size_t>(n)), W + special[k] * n);
}

// One head of one segment in the backward pass: what it reads.
struct HeadBackward {
  const AttentionWeights& w;
  const FusedHeads& kept;
  const RowSegment& seg;
  int h, HS;
  ScoreKind kind;
  float scale;              // score_scale of the head
  const float* weights;     // (q_rows, k_rows) its softmax weights
  const float* tanh_terms;  // (q_rows, HS, k_rows) additive heads; null otherwise
};

// d loss / d the head's features and values, for one segment.
struct FeatureGradients {
  std::vector<float> dqf;      // (q_rows, HS)
  std::vector<float> dkf;      // (HS, k_rows)
  std::vector<float> dv;       // (HS, k_rows)
  std::vector<float> dscores;  // (k_rows) one query row's, scratch
};

// From the head's output gradient (dout_head, (q_rows, HS)) to its features' and values' gradients,
// query row by query row: d weights_j = dO · v_j; d scores = W ⊙ (dW − Σ_j W dW), times the scale;
// then through the score function. Additive heads' d v_a is added to g.
void feature_gradients(const HeadBackward& b, const HeadSlices& head_data, const std::vector<float>& dout_head,
                       FeatureGradients& out, AttentionGrads& g) {
  const Index Tq = b.seg.q_rows, Tk = b.seg.k_rows;
  const int HS = b.HS;
  out.dqf.assign(static_cast<size_t>(Tq * HS), 0.0f);
  out.dkf.assign(static_cast<size_t>(HS * Tk), 0.0f);
  out.dv.assign(static_cast<size_t>(HS * Tk), 0.0f);
  out.dscores.resize(static_cast<size_t>(Tk));
  float* dscores = out.dscores.data();
  for (Index i = 0; i < Tq; ++i) {
    const float* row = b.weights + i * Tk;
    for (int a = 0; a < HS; ++a) {
      const float d = dout_head[static_cast<size_t>(i * HS + a)];
      const float* va = head_data.v.data() + a * Tk;
      float* dva = out.dv.data() + a * Tk;
      if (a == 0)
        for (Index j = 0; j < Tk; ++j) dscores[j] = d * va[j];
      else
        for (Index j = 0; j < Tk; ++j) dscores[j] += d * va[j];
      for (Index j = 0; j < Tk; ++j) dva[j] += row[j] * d;
    }
    float dot = 0;
    for (Index j = 0; j < Tk; ++j) dot += row[j] * dscores[j];
    for (Index j = 0; j < Tk; ++j) dscores[j] = row[j] * (dscores[j] - dot) * b.scale;
    for (int a = 0; a < HS; ++a) {
      float* dkfa = out.dkf.data() + a * Tk;
      float dq_a = 0;
      if (b.kind == ScoreKind::additive) {  // raw_j = Σ_a v_a tanh(qf_a + kf_ja)
        const float va = b.w.additive_v(b.h, a);
        const float* tha = b.tanh_terms + (i * HS + a) * Tk;
        float dv_a = 0;
        for (Index j = 0; j < Tk; ++j) {
          dv_a += dscores[j] * tha[j];
          const float d = dscores[j] * va * (1.0f - tha[j] * tha[j]);
          dq_a += d;
          dkfa[j] += d;
        }
        g.dw.additive_v(b.h, a) += dv_a;
      } else {  // raw_j = qf · kf_j
        const float qa = head_data.qf[static_cast<size_t>(i * HS + a)];
        const float* kfa = head_data.kf.data() + a * Tk;
        for (Index j = 0; j < Tk; ++j) {
          dq_a += dscores[j] * kfa[j];
          dkfa[j] += dscores[j] * qa;
        }
      }
      out.dqf[static_cast<size_t>(i * HS + a)] = dq_a;
    }
  }
}

// The head's feature and value gradients into its columns of dqf, dkf (d loss / d the query and key
// features, every stacked row) and dv.
void scatter_head(const HeadBackward& b, const FeatureGradients& f, Mat& dqf, Mat& dkf, Mat& dv) {
  const RowSegment& seg = b.seg;
  const int h = b.h, HS = b.HS;
  for (Index i = 0; i < seg.q_rows; ++i)
    for (int a = 0; a < HS; ++a) dqf(seg.q_first + i, h * HS + a) = f.dqf[static_cast<size_t>(i * HS + a)];
  for (Index j = 0; j < seg.k_rows; ++j)
    for (int a = 0; a < HS; ++a) {
      dkf(seg.k_first + j, h * HS + a) = f.dkf[static_cast<size_t>(a * seg.k_rows + j)];
      dv(seg.k_first + j, h * HS + a) = f.dv[static_cast<size_t>(a * seg.k_rows + j)];
    }
}

// From the features' gradients (in dq and dk's columns) to d Q and d K, one product per head over
// every stacked row, adding the scoring parameters' gradients to g. Dot-product heads' features are
// Q and K: their columns are d Q and d K already.
void map_feature_gradients(const AttentionWeights& w, const ModelConfig& c, const FusedHeads& p, Mat& dq, Mat& dk,
                           AttentionGrads& g) {
  const int HS = c.head_size();
  for (int h = 0; h < c.n_heads; ++h) {
    auto dq_h = dq.middleCols(h * HS, HS);
    const auto q = p.q.middleCols(h * HS, HS);
    switch (c.score_of_head(h)) {
      case ScoreKind::general: {  // qf = q G
        head_param(g.dw.general_w, h, HS) += product_atb(q, dq_h);
        const Mat mapped = product_abt(dq_h, head_param(w.general_w, h, HS));
        dq_h = mapped;
        break;
      }
      case ScoreKind::additive: {  // qf = q W_qᵀ, kf = k W_kᵀ
        auto dk_h = dk.middleCols(h * HS, HS);
        head_param(g.dw.additive_wq, h, HS) += product_atb(dq_h, q);
        head_param(g.dw.additive_wk, h, HS) += product_atb(dk_h, p.k.middleCols(h * HS, HS));
        const Mat mapped_q = product_ab(dq_h, head_param(w.additive_wq, h, HS));
        const Mat mapped_k = product_ab(dk_h, head_param(w.additive_wk, h, HS));
        dq_h = mapped_q;
        dk_h = mapped_k;
        break;
      }
      case ScoreKind::dot:
      case ScoreKind::scaled_dot: break;
    }
  }
}

}  // namespace

AttentionTrace fused_heads_forward(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                   bool self_attention, const std::vector<RowSegment>& segments,
                                   const std::vector<Mat>& masks, FusedHeads& keep) {
  const int NH = c.n_heads, HS = c.head_size();
  const bool any_additive = config_uses(c, ScoreKind::additive);
  Projections p = attention_project(w, c, xq, xkv, self_attention, 0, 0, Products::portable);
  keep.q = std::move(p.q);
  keep.k = std::move(p.k);
  keep.v = std::move(p.v);
  compute_features(w, c, keep);
  size_t cells = 0;  // query rows × keys, over the segments
  keep.offsets.clear();
  keep.tanh_offsets.clear();
  for (const RowSegment& seg : segments) {
    keep.offsets.push_back(cells * static_cast<size_t>(NH));
    keep.tanh_offsets.push_back(any_additive ? cells * static_cast<size_t>(NH * HS) : 0);
    cells += static_cast<size_t>(seg.q_rows * seg.k_rows);
  }
  keep.weights.assign(cells * static_cast<size_t>(NH), 0.0f);
  keep.tanh_terms.assign(any_additive ? cells * static_cast<size_t>(NH * HS) : 0, 0.0f);

  AttentionTrace t;
  t.concat = Mat::Zero(xq.rows(), c.d_model);
  std::vector<HeadSlices> slices(static_cast<size_t>(NH));
  std::vector<float> finished;
  for (size_t s = 0; s < segments.size(); ++s) {
    const RowSegment& seg = segments[s];
    const Index Tq = seg.q_rows, Tk = seg.k_rows;
    if (Tq == 0) continue;
    const Index head_cells = Tq * Tk;
    float* W_segment = keep.weights.data() + keep.offsets[s];
    float* th_segment = any_additive ? keep.tanh_terms.data() + keep.tanh_offsets[s] : nullptr;
    for (int h = 0; h < NH; ++h) gather_slices(c.score_of_head(h), keep, seg, h, HS, slices[static_cast<size_t>(h)]);
    // Additive heads: every tanh argument of the segment, (query, feature, key), then one tanh over
    // all of them.
    if (any_additive) {
      for (int h = 0; h < NH; ++h) {
        if (c.score_of_head(h) != ScoreKind::additive) continue;
        const HeadSlices& head_data = slices[static_cast<size_t>(h)];
        for (Index i = 0; i < Tq; ++i)
          for (int a = 0; a < HS; ++a) {
            const float qa = head_data.qf[static_cast<size_t>(i * HS + a)];
            const float* kfa = head_data.kf.data() + a * Tk;
            float* out = th_segment + h * head_cells * HS + (i * HS + a) * Tk;
            for (Index j = 0; j < Tk; ++j) out[j] = qa + kfa[j];
          }
      }
      tanh_portable(th_segment, th_segment, static_cast<size_t>(head_cells * NH * HS));
    }
    // Scores of every head, with the mask, then one softmax pass over all their rows.
    const Mat& mask = masks[s];
    for (int h = 0; h < NH; ++h) {
      const ScoreKind kind = c.score_of_head(h);
      const float scale = score_scale(c, kind);
      const HeadSlices& head_data = slices[static_cast<size_t>(h)];
      for (Index i = 0; i < Tq; ++i) {
        float* row = W_segment + h * head_cells + i * Tk;
        for (int a = 0; a < HS; ++a) {
          // raw_j += v_a tanh(qf_a + kf_ja) (additive) or qf_a kf_ja; the first feature assigns.
          const bool additive = kind == ScoreKind::additive;
          const float coef = additive ? w.additive_v(h, a) : head_data.qf[static_cast<size_t>(i * HS + a)];
          const float* terms =
              additive ? th_segment + h * head_cells * HS + (i * HS + a) * Tk : head_data.kf.data() + a * Tk;
          if (a == 0)
            for (Index j = 0; j < Tk; ++j) row[j] = coef * terms[j];
          else
            for (Index j = 0; j < Tk; ++j) row[j] += coef * terms[j];
        }
        const float* mask_row = mask.data() + i * mask.cols();
        for (Index j = 0; j < Tk; ++j) row[j] = row[j] * scale + mask_row[j];
      }
    }
    softmax_rows(W_segment, NH * Tq, Tk, finished);
    for (int h = 0; h < NH; ++h) {
      const HeadSlices& head_data = slices[static_cast<size_t>(h)];
      for (Index i = 0; i < Tq; ++i) {
        const float* row = W_segment + h * head_cells + i * Tk;
        for (int a = 0; a < HS; ++a) {
          const float* va = head_data.v.data() + a * Tk;
          float out = 0;
          for (Index j = 0; j < Tk; ++j) out += row[j] * va[j];
          t.concat(seg.q_first + i, h * HS + a) = out;
        }
      }
    }
  }
  t.out = linear(t.concat, w.out_w, w.out_b, Products::portable);
  return t;
}

AttentionGrads fused_heads_backward(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                    const AttentionTrace& fwd, const FusedHeads& kept,
                                    const std::vector<RowSegment>& segments, const Mat& dout) {
  const int C = c.d_model, NH = c.n_heads, HS = c.head_size();
  Mat dconcat;
  AttentionGrads g = attention_backward_start(w, fwd.concat, dout, dconcat);
  Mat dq = Mat::Zero(xq.rows(), C), dk = Mat::Zero(xkv.rows(), C), dv = Mat::Zero(xkv.rows(), C);
  HeadSlices head_data;
  FeatureGradients grads;
  std::vector<float> dout_head;
  for (size_t s = 0; s < segments.size(); ++s) {
    const RowSegment& seg = segments[s];
    if (seg.q_rows == 0) continue;  // no query: nothing reaches its keys and values (their rows stay zero)
    const Index head_cells = seg.q_rows * seg.k_rows;
    for (int h = 0; h < NH; ++h) {
      const ScoreKind kind = c.score_of_head(h);
      const HeadBackward b{
          w,
          kept,
          seg,
          h,
          HS,
          kind,
          score_scale(c, kind),
          kept.weights.data() + kept.offsets[s] + h * head_cells,
          kind == ScoreKind::additive ? kept.tanh_terms.data() + kept.tanh_offsets[s] + h * head_cells * HS : nullptr};
      gather_slices(kind, kept, seg, h, HS, head_data);
      gather_head(dconcat, seg.q_first, seg.q_rows, h, HS, Layout::by_row, dout_head);
      feature_gradients(b, head_data, dout_head, grads, g);
      scatter_head(b, grads, dq, dk, dv);
    }
  }
  map_feature_gradients(w, c, kept, dq, dk, g);
  attention_backward_projections(w, C, xq, xkv, dq, dk, dv, g);
  return g;
}

}  // namespace attnviz
