// The trainer's path for narrow heads (train/fused_heads.h) against the per-head path it replaces:
// the same attention output, weights and every gradient, for every scoring function, with masks,
// uneven examples, narrowed query rows and an example without a query; and the trainer takes it for
// heads of 4 values and fewer, and "general" and additive heads of 8.
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "model/attention.h"
#include "model/kernels.h"
#include "model/mask.h"
#include "model/model.h"
#include "support/check_util.h"
#include "support/model_util.h"
#include "train/backward.h"
#include "train/fused_heads.h"
#include "train/stacked_forward.h"

using namespace attnviz;
using attnviz::test::random_mat;

namespace {

struct Case {
  Mat xq, xkv;
  std::vector<RowSegment> segments;
  std::vector<Mat> masks;
};

// Four examples stacked (3, 5, 4 and 20 rows, the last longer than a 16-float vector register; the
// second causal). Narrowed: the queries are some rows of each example only (2, none, 3, 6), as the
// trainer's last layer asks, the keys every row.
Case make_case(int C, bool narrowed) {
  Case k;
  const std::vector<Eigen::Index> lengths = {3, 5, 4, 20};
  const std::vector<Eigen::Index> query_rows = narrowed ? std::vector<Eigen::Index>{2, 0, 3, 6} : lengths;
  Eigen::Index rows = 0, queries = 0;
  for (size_t s = 0; s < lengths.size(); ++s) {
    k.segments.push_back(RowSegment{queries, query_rows[s], rows, lengths[s]});
    MaskSpec spec;
    spec.causal = s == 1;
    const int T = static_cast<int>(lengths[s]);
    k.masks.push_back(mask_build(spec, T, T, T).bottomRows(query_rows[s]));
    rows += lengths[s];
    queries += query_rows[s];
  }
  k.xkv = random_mat(rows, C, 41);
  k.xq = narrowed ? random_mat(queries, C, 42) : k.xkv;
  return k;
}

// The per-head path's trace: each example through attention_forward, heads at [s·NH + h], as
// attention_backward_segments reads them; an example without a query has empty heads.
AttentionTrace per_head_trace(const AttentionWeights& w, const ModelConfig& c, const Case& k) {
  AttentionTrace t;
  t.concat = Mat::Zero(k.xq.rows(), c.d_model);
  for (size_t s = 0; s < k.segments.size(); ++s) {
    const RowSegment& seg = k.segments[s];
    if (seg.q_rows == 0) {
      t.heads.resize(t.heads.size() + static_cast<size_t>(c.n_heads));
      continue;
    }
    const AttentionTrace one = attention_forward(w, c, k.xq.middleRows(seg.q_first, seg.q_rows),
                                                 k.xkv.middleRows(seg.k_first, seg.k_rows), k.masks[s]);
    t.heads.insert(t.heads.end(), one.heads.begin(), one.heads.end());
    t.concat.middleRows(seg.q_first, seg.q_rows) = one.concat;
  }
  t.out = linear(t.concat, w.out_w, w.out_b);
  return t;
}

// |a - b| ≤ 1e-5 of b's largest magnitude (at least 1).
void check_close(const char* what, MatRef a, MatRef b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  const float scale = std::max(1.0f, b.cwiseAbs().maxCoeff());
  CHECK_MESSAGE((a - b).cwiseAbs().maxCoeff() <= 1e-5f * scale, what);
}

std::vector<ModelConfig> narrow_configs() {
  std::vector<ModelConfig> out;
  for (const int d_model : {16, 12}) {  // heads of 4 values (the largest this path takes) and of 3
    ModelConfig c = test::sized_config({.d_model = d_model, .n_heads = 4, .d_ff = 8});
    c.score = ScoreKind::general;
    out.push_back(c);
  }
  for (ScoreKind score : {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive}) {
    ModelConfig c = test::sized_config({.d_model = 8, .n_heads = 4, .d_ff = 8});
    c.score = score;
    c.temperature = 0.7f;
    out.push_back(c);
  }
  for (ScoreKind score : {ScoreKind::general, ScoreKind::additive}) {  // heads of 8 values, the most these take
    ModelConfig c = test::sized_config({.d_model = 16, .n_heads = 2, .d_ff = 8});
    c.score = score;
    out.push_back(c);
  }
  ModelConfig mixed = test::sized_config({.d_model = 8, .n_heads = 8, .d_ff = 8});
  mixed.head_scores = {ScoreKind::dot,      ScoreKind::additive, ScoreKind::general, ScoreKind::scaled_dot,
                       ScoreKind::additive, ScoreKind::general,  ScoreKind::dot,     ScoreKind::scaled_dot};
  out.push_back(mixed);
  return out;
}

}  // namespace

TEST_CASE("fused heads: the same output, weights and gradients as the per-head path") {
  for (const ModelConfig& c : narrow_configs())
    for (const bool narrowed : {false, true}) {
      CAPTURE(c.n_heads);
      CAPTURE(c.score);
      CAPTURE(narrowed);
      REQUIRE(fused_heads_fit(c));
      Model m = model_init_random(c, 43);
      model_ensure_score_parameters(m, 44);
      AttentionWeights& w = m.weights.layers[0].attn;
      w.in_proj_b = random_mat(3 * c.d_model, 1, 45, 0.1);
      CAPTURE(c.head_size());
      Case k = make_case(c.d_model, narrowed);
      // A query that sees no key: zero weights and output on both paths, and no gradient through it.
      if (!narrowed) k.masks[2].row(1).setConstant(-std::numeric_limits<float>::infinity());

      FusedHeads kept;
      const AttentionTrace fused = fused_heads_forward(w, c, k.xq, k.xkv, !narrowed, k.segments, k.masks, kept);
      const AttentionTrace ref = per_head_trace(w, c, k);
      check_close("concat", fused.concat, ref.concat);
      check_close("out", fused.out, ref.out);
      for (size_t s = 0; s < k.segments.size(); ++s)
        for (int h = 0; h < c.n_heads; ++h) {
          const RowSegment& seg = k.segments[s];
          const Mat& want = ref.heads[s * static_cast<size_t>(c.n_heads) + static_cast<size_t>(h)].weights_kept;
          if (seg.q_rows == 0) continue;
          const Mat got = Eigen::Map<const Mat>(kept.weights.data() + kept.offsets[s] + h * seg.q_rows * seg.k_rows,
                                                seg.q_rows, seg.k_rows);
          check_close("weights", got, want);
        }

      const Mat dout = random_mat(k.xq.rows(), c.d_model, 46);
      const AttentionGrads g = fused_heads_backward(w, c, k.xq, k.xkv, fused, kept, k.segments, dout);
      const AttentionGrads want = attention_backward_segments(w, c, k.xq, k.xkv, ref, k.segments, dout);
      check_close("dxq", g.dxq, want.dxq);
      check_close("dxkv", g.dxkv, want.dxkv);
      check_close("d in_proj_w", g.dw.in_proj_w, want.dw.in_proj_w);
      check_close("d in_proj_b", g.dw.in_proj_b, want.dw.in_proj_b);
      check_close("d out_w", g.dw.out_w, want.dw.out_w);
      check_close("d out_b", g.dw.out_b, want.dw.out_b);
      check_close("d general_w", g.dw.general_w, want.dw.general_w);
      check_close("d additive_wq", g.dw.additive_wq, want.dw.additive_wq);
      check_close("d additive_wk", g.dw.additive_wk, want.dw.additive_wk);
      check_close("d additive_v", g.dw.additive_v, want.dw.additive_v);
      CHECK(g.dw.in_proj_w.cwiseAbs().maxCoeff() > 0.01f);  // not a pair of zeros
    }
}

TEST_CASE("fused heads: a query that sees no key gets zero weights and output, and no NaN anywhere") {
  const ModelConfig c = narrow_configs()[2];  // scaled dot-product
  Model m = model_init_random(c, 47);
  const AttentionWeights& w = m.weights.layers[0].attn;
  Case k = make_case(c.d_model, false);
  k.masks[0].row(1).setConstant(-std::numeric_limits<float>::infinity());
  FusedHeads kept;
  const AttentionTrace t = fused_heads_forward(w, c, k.xq, k.xkv, true, k.segments, k.masks, kept);
  CHECK(t.concat.row(1).cwiseAbs().maxCoeff() == 0.0f);
  for (int h = 0; h < c.n_heads; ++h)
    for (int j = 0; j < 3; ++j) CHECK(kept.weights[kept.offsets[0] + static_cast<size_t>(h * 9 + 3 + j)] == 0.0f);
  CHECK(t.concat.row(0).cwiseAbs().maxCoeff() > 0.0f);
  const AttentionGrads g =
      fused_heads_backward(w, c, k.xq, k.xkv, t, kept, k.segments, random_mat(k.xq.rows(), c.d_model, 48));
  CHECK(g.dxq.allFinite());
  CHECK(g.dw.in_proj_w.allFinite());
}

TEST_CASE("fused heads: heads of 8 values take this path when every head has score parameters") {
  ModelConfig c = test::sized_config({.d_model = 32, .n_heads = 4, .d_ff = 8});  // heads of 8 values
  for (ScoreKind score : {ScoreKind::general, ScoreKind::additive}) {
    c.score = score;
    CHECK(fused_heads_fit(c));
  }
  for (ScoreKind score : {ScoreKind::scaled_dot, ScoreKind::dot}) {
    c.score = score;
    CHECK_FALSE(fused_heads_fit(c));
  }
  c.score = ScoreKind::additive;
  c.head_scores = {ScoreKind::additive, ScoreKind::general, ScoreKind::additive, ScoreKind::dot};
  CHECK_FALSE(fused_heads_fit(c));  // one dot-product head sends them all the per-head way
  c.head_scores.back() = ScoreKind::general;
  CHECK(fused_heads_fit(c));
  c.head_scores.clear();
  c.n_heads = 2;  // heads of 16 values
  CHECK_FALSE(fused_heads_fit(c));
}

TEST_CASE("fused heads: the trainer takes this path for heads of 4 values and fewer, the per-head path above") {
  const TrainExample ex{{1, 4, 2, 3}, {-1, 2, 5, 0}, {}};
  for (const int heads : {1, 2, 4, 8}) {
    CAPTURE(heads);
    ModelConfig c = test::gpt_config({.d_model = 8, .n_heads = heads, .n_layers = 2, .d_ff = 12}, 8);
    Model m = model_init_random(c, 49);
    m.vocab = {"a", "b", "c", "d", "e", "f", "g"};
    weights_init_vocab(m, 50, 0.5, 0.1, 0.1);
    auto f = stacked_forward(m, &ex, 1);
    REQUIRE_MESSAGE(f.ok(), f.error());
    const bool narrow = c.head_size() <= kFusedHeadsMaxSize;
    CHECK(f->fused.size() == (narrow ? 2u : 0u));
    CHECK(f->layers[0].attn.heads.size() == (narrow ? 0u : static_cast<size_t>(heads)));
  }
}
