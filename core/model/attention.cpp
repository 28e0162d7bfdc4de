// attention_forward runs heads in parallel (OpenMP); the products are products.h's (the large
// projections linear()'s). The naive twin is a direct transcription of the formulas with scalar loops.
#include "model/attention.h"

#include <cmath>
#include <utility>

#include "model/kernels.h"
#include "model/products.h"
#include "model/rope.h"

namespace attnviz {

float score_scale(const ModelConfig& c, ScoreKind kind) {
  if (kind == ScoreKind::scaled_dot && c.scaled_dot_scale > 0.0f) return c.scaled_dot_scale / c.temperature;
  const float root = kind == ScoreKind::scaled_dot ? std::sqrt(static_cast<float>(c.head_size())) : 1.0f;
  return 1.0f / (root * c.temperature);
}

float soft_cap(float x, float cap) { return cap > 0.0f ? cap * std::tanh(x * (1.0f / cap)) : x; }

void scores_soft_cap(Mat& scores, float cap) {
  if (cap <= 0.0f) return;
  for (Eigen::Index i = 0; i < scores.size(); ++i) scores.data()[i] = soft_cap(scores.data()[i], cap);
}

Mat head_block(MatRef stacked, int head, int head_size) {
  return stacked.size() > 0 ? Mat(stacked.block(head * head_size, 0, head_size, head_size)) : Mat();
}

Mat head_raw_scores(const AttentionWeights& w, const ModelConfig& c, int h, const Mat& q, const Mat& k) {
  const int hs = c.head_size();
  switch (c.score_of_head(h)) {
    case ScoreKind::scaled_dot:
    case ScoreKind::dot: return product_abt(q, k);
    case ScoreKind::general: return product_abt(product_ab(q, head_block(w.general_w, h, hs)), k);
    case ScoreKind::additive: {
      const Mat pq = product_abt(q, head_block(w.additive_wq, h, hs));
      const Mat pk = product_abt(k, head_block(w.additive_wk, h, hs));
      return additive_scores(pq, pk, w.additive_v.row(h));
    }
  }
  return {};
}

namespace {

// Every head's block of columns of x (T, heads·HS) RMS-normalised with the shared weights w (HS).
void heads_rms_norm(Mat& x, const Vec& w, const ModelConfig& c, Mat (*norm)(const Mat&, const Vec&, float)) {
  const int HS = c.head_size();
  for (Eigen::Index h = 0; h < x.cols() / HS; ++h) x.middleCols(h * HS, HS) = norm(Mat(x.middleCols(h * HS, HS)), w, c.ln_eps);
}

}  // namespace

bool head_scores_recomputable(ScoreKind score) { return score == ScoreKind::dot || score == ScoreKind::scaled_dot; }

Mat head_weights_rows_from_qk(const HeadTrace& head, const ModelConfig& c, const Mat& mask, Eigen::Index first,
                              Eigen::Index n) {
  // Scaled through Q (n x HS values, not n x Tk) and turned into the weights in place. Every cell of
  // product_abt is product_dot's sum, so a block of rows has the bits of the whole map's rows.
  Mat w = product_abt(head.q.middleRows(first, n) * score_scale(c, head.score), head.k);
  scores_soft_cap(w, c.attn_softcap);
  softmax_masked_in_place(w, mask.middleRows(first, n));
  return w;
}

Mat head_weights_from_qk(const HeadTrace& head, const ModelConfig& c, const Mat& mask) {
  return head_weights_rows_from_qk(head, c, mask, 0, head.q.rows());
}

HeadTrace head_forward(const AttentionWeights& w, const ModelConfig& c, int h, Mat q, Mat k, Mat v, const Mat& mask,
                       MapsKept kept) {
  HeadTrace head;
  head.score = c.score_of_head(h);
  head.q = std::move(q);
  head.k = std::move(k);
  head.v = std::move(v);
  if (kept != MapsKept::all && head_scores_recomputable(head.score)) {
    // Long inputs: one (Tq, Tk) matrix; head_scores recomputes the scores when asked, and with
    // MapsKept::none head_map the weights too.
    Mat weights = head_weights_from_qk(head, c, mask);
    head.out = product_ab(weights, head.v);
    if (kept == MapsKept::weights) head.weights_kept = std::move(weights);
    return head;
  }
  head.scores_raw = head_raw_scores(w, c, h, head.q, head.k);
  head.scores_scaled = head.scores_raw * score_scale(c, head.score);
  scores_soft_cap(head.scores_scaled, c.attn_softcap);
  head.weights_kept = softmax_masked(head.scores_scaled, mask);
  head.out = product_ab(head.weights_kept, head.v);
  return head;
}

HeadScores head_scores(const HeadTrace& head, const ModelConfig& c) {
  if (head.scores_raw.size() > 0 || !head_scores_recomputable(head.score)) return {head.scores_raw, head.scores_scaled};
  // Only dot-product heads drop their scores, and theirs need no weights but Q and K.
  HeadScores s;
  s.raw = product_abt(head.q, head.k);
  s.scaled = s.raw * score_scale(c, head.score);
  scores_soft_cap(s.scaled, c.attn_softcap);
  return s;
}

HeadScoreCell head_score_at(const HeadTrace& head, const ModelConfig& c, int q, int k) {
  if (head.scores_raw.size() > 0) return {head.scores_raw(q, k), head.scores_scaled(q, k)};
  // product_dot sums as product_abt does: the cell equals head_scores' bit for bit.
  const float raw = product_dot(head.q.row(q).data(), head.k.row(k).data(), head.q.cols());
  return {raw, soft_cap(raw * score_scale(c, head.score), c.attn_softcap)};
}

void attention_ablate(AttentionTrace& t, const LayerAblation& ablate, int hs) {
  if (!ablate.any()) return;
  ablation_apply(t.concat, ablate, hs);
  for (size_t h = 0; h < ablate.off.size() && h < t.heads.size(); ++h) t.heads[h].ablated = ablate.off[h];
}

Projections attention_project(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                              bool self_attention, int q_first, int k_first, Products products) {
  const int QD = c.q_dim(), KV = c.kv_dim();
  Projections p;
  if (self_attention) {
    const Mat qkv = linear(xq, w.in_proj_w, w.in_proj_b, products);  // one GEMM, (T, QD + 2·KV)
    p.q = qkv.leftCols(QD);
    p.k = qkv.middleCols(QD, KV);
    p.v = qkv.rightCols(KV);
  } else {
    p.q = linear(xq, w.in_proj_w.topRows(QD), w.in_proj_b.head(QD), products);
    const Mat kv = linear(xkv, w.in_proj_w.bottomRows(2 * KV), w.in_proj_b.tail(2 * KV), products);
    p.k = kv.leftCols(KV);
    p.v = kv.rightCols(KV);
  }
  if (c.qk_norm) {
    heads_rms_norm(p.q, w.q_norm_w, c, rms_norm);
    heads_rms_norm(p.k, w.k_norm_w, c, rms_norm);
  }
  if (c.positions == PositionEncoding::rotary) {
    const std::vector<float> inv = rope_inv_freq(c);
    p.q_unrotated = p.q;
    p.k_unrotated = p.k;
    rope_apply(p.q, c.n_heads, c.head_size(), rope_table(inv, q_first, static_cast<int>(p.q.rows())));
    rope_apply(p.k, c.kv_heads(), c.head_size(), rope_table(inv, k_first, static_cast<int>(p.k.rows())));
  }
  return p;
}

HeadTrace head_forward_from(const AttentionWeights& w, const ModelConfig& c, int h, const Projections& p,
                            const Mat& mask, MapsKept kept) {
  const int HS = c.head_size(), g = c.kv_group(h);
  HeadTrace head = head_forward(w, c, h, p.q.middleCols(h * HS, HS), p.k.middleCols(g * HS, HS),
                                p.v.middleCols(g * HS, HS), mask, kept);
  if (c.positions == PositionEncoding::rotary) {
    head.q_unrotated = p.q_unrotated.middleCols(h * HS, HS);
    head.k_unrotated = p.k_unrotated.middleCols(g * HS, HS);
  }
  return head;
}

AttentionTrace attention_forward(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                 const Mat& mask, MapsKept kept, const LayerAblation& ablate, Products products) {
  const int NH = c.n_heads, HS = c.head_size();
  const Projections p = attention_project(w, c, xq, xkv, &xq == &xkv, 0, 0, products);
  AttentionTrace t;
  t.heads.resize(static_cast<size_t>(NH));
  t.concat.resize(xq.rows(), c.q_dim());
  // Heads in parallel only when a head's work (about Tq·Tk·HS) outweighs the fork and join: the
  // small trained demos (T 12-24, HS 16) ran 3.5x slower with their heads split over two threads.
  const bool heads_in_parallel = NH > 1 && xq.rows() * xkv.rows() * HS >= (1 << 15);
#pragma omp parallel for schedule(dynamic, 1) if (heads_in_parallel)
  for (int h = 0; h < NH; ++h) {
    HeadTrace& head = t.heads[static_cast<size_t>(h)];
    head = head_forward_from(w, c, h, p, mask, kept);
    t.concat.middleCols(h * HS, HS) = head.out;
  }
  attention_ablate(t, ablate, HS);
  t.out = linear(t.concat, w.out_w, w.out_b, products);
  return t;
}

AttentionTrace attention_forward_naive(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                       const Mat& mask, const LayerAblation& ablate) {
  const int QD = c.q_dim(), NH = c.n_heads, HS = c.head_size(), KV = c.kv_dim();
  Mat q_all = linear_naive(xq, w.in_proj_w.topRows(QD), w.in_proj_b.head(QD));
  Mat k_all = linear_naive(xkv, w.in_proj_w.middleRows(QD, KV), w.in_proj_b.segment(QD, KV));
  const Mat v_all = linear_naive(xkv, w.in_proj_w.bottomRows(KV), w.in_proj_b.tail(KV));
  if (c.qk_norm) {
    heads_rms_norm(q_all, w.q_norm_w, c, rms_norm_naive);
    heads_rms_norm(k_all, w.k_norm_w, c, rms_norm_naive);
  }
  const Mat q_plain = q_all, k_plain = k_all;
  const bool rotary = c.positions == PositionEncoding::rotary;
  if (rotary) {
    const std::vector<float> inv = rope_inv_freq(c);
    rope_apply_naive(q_all, NH, HS, inv, 0);
    rope_apply_naive(k_all, c.kv_heads(), HS, inv, 0);
  }
  const Eigen::Index Tq = xq.rows(), Tk = xkv.rows();

  AttentionTrace t;
  t.concat = Mat::Zero(Tq, QD);
  for (int h = 0; h < NH; ++h) {
    HeadTrace head;
    head.score = c.score_of_head(h);
    const int g = c.kv_group(h);
    head.q = q_all.middleCols(h * HS, HS);
    head.k = k_all.middleCols(g * HS, HS);
    head.v = v_all.middleCols(g * HS, HS);
    if (rotary) {
      head.q_unrotated = q_plain.middleCols(h * HS, HS);
      head.k_unrotated = k_plain.middleCols(g * HS, HS);
    }
    head.scores_raw.resize(Tq, Tk);
    const Mat Wa = head_block(w.general_w, h, HS);
    const Mat Wq = head_block(w.additive_wq, h, HS), Wk = head_block(w.additive_wk, h, HS);
    for (Eigen::Index i = 0; i < Tq; ++i)
      for (Eigen::Index j = 0; j < Tk; ++j) {
        double s = 0;
        for (int a = 0; a < HS; ++a) {
          switch (head.score) {
            case ScoreKind::scaled_dot:
            case ScoreKind::dot: s += static_cast<double>(head.q(i, a)) * head.k(j, a); break;
            case ScoreKind::general:
              for (int b = 0; b < HS; ++b) s += static_cast<double>(head.q(i, a)) * Wa(a, b) * head.k(j, b);
              break;
            case ScoreKind::additive: {
              double pre = 0;
              for (int b = 0; b < HS; ++b) pre += static_cast<double>(Wq(a, b)) * head.q(i, b) + Wk(a, b) * head.k(j, b);
              s += w.additive_v(h, a) * std::tanh(pre);
              break;
            }
          }
        }
        head.scores_raw(i, j) = static_cast<float>(s);
      }
    head.scores_scaled = head.scores_raw * score_scale(c, head.score);
    for (Eigen::Index i = 0; i < head.scores_scaled.size(); ++i)
      head.scores_scaled.data()[i] = static_cast<float>(
          c.attn_softcap > 0 ? c.attn_softcap * std::tanh(static_cast<double>(head.scores_scaled.data()[i]) / c.attn_softcap)
                             : head.scores_scaled.data()[i]);
    head.weights_kept = softmax_masked_naive(head.scores_scaled, mask);
    head.out = Mat::Zero(Tq, HS);
    for (Eigen::Index i = 0; i < Tq; ++i)
      for (int a = 0; a < HS; ++a) {
        double acc = 0;
        for (Eigen::Index j = 0; j < Tk; ++j) acc += static_cast<double>(head.weights_kept(i, j)) * head.v(j, a);
        head.out(i, a) = static_cast<float>(acc);
        t.concat(i, h * HS + a) = head.out(i, a);
      }
    t.heads.push_back(std::move(head));
  }
  // Ablation spelled out: zeros, or the mean over positions accumulated in double.
  for (int h = 0; h < NH; ++h) {
    if (ablate.off.empty() || !ablate.off[static_cast<size_t>(h)]) continue;
    t.heads[static_cast<size_t>(h)].ablated = true;
    for (int a = 0; a < HS; ++a) {
      double mean = 0;
      for (Eigen::Index i = 0; i < Tq; ++i) mean += t.concat(i, h * HS + a);
      mean = Tq > 0 ? mean / static_cast<double>(Tq) : 0.0;
      for (Eigen::Index i = 0; i < Tq; ++i)
        t.concat(i, h * HS + a) = ablate.mode == AblationMode::zero ? 0.0f : static_cast<float>(mean);
    }
  }
  t.out = linear_naive(t.concat, w.out_w, w.out_b);
  return t;
}

}  // namespace attnviz
