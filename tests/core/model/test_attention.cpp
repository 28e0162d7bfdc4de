// Properties of multi-head attention that must hold for any weights: rows sum to 1, hidden cells
// are exactly 0, one head equals a single-head computation, permuting keys permutes weights, fully
// masked rows are zero, huge logits stay finite, and the fast path equals its naive twin.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "base/rng.h"
#include "model/attention.h"
#include "model/kernels.h"
#include "model/mask.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::random_mat;
using attnviz::test::max_abs_diff;

namespace {

ModelConfig small_config(int C, int NH, ScoreKind score = ScoreKind::scaled_dot) {
  ModelConfig c = test::sized_config({.d_model = C, .n_heads = NH, .d_ff = 2 * C});
  c.score = score;
  return c;
}

}  // namespace

TEST_CASE("attention: rows sum to 1 and hidden cells are exactly 0, for every scoring function and mask") {
  for (ScoreKind score : {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive}) {
    const ModelConfig c = small_config(32, 4, score);
    const Model m = model_init_random(c, 7);
    const Mat x = random_mat(11, 32, 1);
    MaskSpec spec;
    spec.causal = true;
    spec.stride = 3;
    const Mat mask = mask_build(spec, 11, 11, 11);
    const AttentionTrace t = attention_forward(m.weights.layers[0].attn, c, x, x, mask);
    for (const HeadTrace& h : t.heads) {
      for (Eigen::Index i = 0; i < 11; ++i) {
        CHECK(h.weights_kept.row(i).sum() == doctest::Approx(1.0).epsilon(1e-6));
        for (Eigen::Index j = 0; j < 11; ++j)
          if (!mask_visible(spec, static_cast<int>(i), static_cast<int>(j), 11)) CHECK(h.weights_kept(i, j) == 0.0f);
      }
    }
  }
}

TEST_CASE("attention: with one head it equals a hand-written single-head computation") {
  const ModelConfig c = small_config(16, 1);
  const Model m = model_init_random(c, 3);
  const AttentionWeights& w = m.weights.layers[0].attn;
  const Mat x = random_mat(6, 16, 2);
  const Mat mask = Mat::Zero(6, 6);
  const AttentionTrace t = attention_forward(w, c, x, x, mask);
  REQUIRE(t.heads.size() == 1);
  const Mat q = x * w.in_proj_w.topRows(16).transpose();
  const Mat k = x * w.in_proj_w.middleRows(16, 16).transpose();
  const Mat v = x * w.in_proj_w.bottomRows(16).transpose();
  Mat s = q * k.transpose() / 4.0f;  // √16
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
    s.row(i) /= s.row(i).sum();
  }
  CHECK(max_abs_diff(t.heads[0].weights_kept, s) < 1e-6f);
  CHECK(max_abs_diff(t.heads[0].out, s * v) < 1e-5f);
  CHECK(max_abs_diff(t.out, (s * v) * w.out_w.transpose()) < 1e-5f);
}

TEST_CASE("attention: permuting the keys permutes the weights' columns") {
  const ModelConfig c = small_config(24, 3);
  const Model m = model_init_random(c, 5);
  const Mat xq = random_mat(5, 24, 8);
  const Mat xkv = random_mat(7, 24, 9);
  const std::vector<int> perm{3, 0, 6, 1, 5, 2, 4};
  Mat permuted(7, 24);
  for (int j = 0; j < 7; ++j) permuted.row(j) = xkv.row(perm[static_cast<size_t>(j)]);
  const Mat mask = Mat::Zero(5, 7);
  const AttentionTrace a = attention_forward(m.weights.layers[0].attn, c, xq, xkv, mask);
  const AttentionTrace b = attention_forward(m.weights.layers[0].attn, c, xq, permuted, mask);
  for (int h = 0; h < 3; ++h)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 7; ++j)
        CHECK(b.heads[static_cast<size_t>(h)].weights_kept(i, j) ==
              doctest::Approx(a.heads[static_cast<size_t>(h)].weights_kept(i, perm[static_cast<size_t>(j)])).epsilon(1e-5));
  CHECK(max_abs_diff(a.out, b.out) < 1e-5f);  // attention is a set operation over keys
}

TEST_CASE("attention: a query whose every key is hidden gets zero weights and a zero output, never NaN") {
  const ModelConfig c = small_config(16, 2);
  const Model m = model_init_random(c, 4);
  const Mat x = random_mat(4, 16, 3);
  MaskSpec spec;
  spec.hidden_cells = {{2, 0}, {2, 1}, {2, 2}, {2, 3}};
  const Mat mask = mask_build(spec, 4, 4, 4);
  for (bool naive : {false, true}) {
    const AttentionTrace t = naive ? attention_forward_naive(m.weights.layers[0].attn, c, x, x, mask)
                                   : attention_forward(m.weights.layers[0].attn, c, x, x, mask);
    for (const HeadTrace& h : t.heads) {
      CHECK(h.weights_kept.row(2).isZero(0.0f));
      CHECK(h.out.row(2).isZero(0.0f));
      CHECK(h.weights_kept.allFinite());
      CHECK(h.weights_kept.row(1).sum() == doctest::Approx(1.0));
    }
    CHECK(t.out.allFinite());
  }
}

TEST_CASE("softmax: logits of ±1e4 give finite weights, overflowed +inf logits share the row") {
  Mat s(3, 4);
  s << 1e4f, -1e4f, 0.0f, 1e4f - 1.0f,  //
      -1e4f, -1e4f, -1e4f, -1e4f,       //
      std::numeric_limits<float>::infinity(), 0.0f, std::numeric_limits<float>::infinity(), 1.0f;
  const Mat mask = Mat::Zero(3, 4);
  const Mat w = softmax_masked(s, mask);
  CHECK(w.allFinite());
  CHECK(w(0, 0) == doctest::Approx(1.0 / (1.0 + std::exp(-1.0))));
  CHECK(w(0, 1) == 0.0f);
  CHECK(w(1, 0) == doctest::Approx(0.25));
  CHECK(w(2, 0) == doctest::Approx(0.5));
  CHECK(w(2, 1) == 0.0f);
  const Mat n = softmax_masked_naive(s.topRows(2), mask.topRows(2));
  CHECK(max_abs_diff(n, w.topRows(2)) < 1e-6f);
}

TEST_CASE("attention: every scoring function's fast path equals its naive twin") {
  for (ScoreKind score : {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive}) {
    CAPTURE(score);
    ModelConfig c = small_config(48, 4, score);
    c.temperature = 0.7f;
    const Model m = model_init_random(c, 11);
    const Mat xq = random_mat(9, 48, 12);
    const Mat xkv = random_mat(13, 48, 13);
    MaskSpec spec;
    spec.window = 4;
    const Mat mask = mask_build(spec, 9, 13, 13);
    const AttentionTrace fast = attention_forward(m.weights.layers[0].attn, c, xq, xkv, mask);
    const AttentionTrace naive = attention_forward_naive(m.weights.layers[0].attn, c, xq, xkv, mask);
    for (size_t h = 0; h < 4; ++h) {
      CHECK(max_abs_diff(fast.heads[h].scores_raw, naive.heads[h].scores_raw) < 1e-4f);
      CHECK(max_abs_diff(fast.heads[h].weights_kept, naive.heads[h].weights_kept) < 1e-5f);
    }
    CHECK(max_abs_diff(fast.out, naive.out) < 1e-5f);
  }
}

TEST_CASE("attention: per-head scoring functions and temperature") {
  ModelConfig c = small_config(32, 4);
  c.head_scores = {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive};
  const Model m = model_init_random(c, 2);
  const Mat x = random_mat(6, 32, 4);
  const AttentionTrace t = attention_forward(m.weights.layers[0].attn, c, x, x, Mat::Zero(6, 6));
  CHECK(t.heads[0].score == ScoreKind::scaled_dot);
  CHECK(t.heads[3].score == ScoreKind::additive);
  // scaled_dot divides by √HS = √8, dot does not.
  CHECK(max_abs_diff(t.heads[0].scores_scaled, t.heads[0].scores_raw / std::sqrt(8.0f)) < 1e-6f);
  CHECK(max_abs_diff(t.heads[1].scores_scaled, t.heads[1].scores_raw) < 1e-6f);
  // A lower temperature sharpens every row: the largest weight grows.
  ModelConfig cold = c;
  cold.temperature = 0.25f;
  const AttentionTrace tc = attention_forward(m.weights.layers[0].attn, cold, x, x, Mat::Zero(6, 6));
  for (size_t h = 0; h < 4; ++h)
    for (int i = 0; i < 6; ++i) CHECK(tc.heads[h].weights_kept.row(i).maxCoeff() >= t.heads[h].weights_kept.row(i).maxCoeff() - 1e-6f);
}

TEST_CASE("attention: without keep_scores, dot-product heads keep the same weights and recompute their scores") {
  ModelConfig c;
  c.d_model = 32;
  c.n_heads = 4;
  c.head_scores = {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive};
  c.temperature = 0.7f;
  const Model m = model_init_random(c, 5);
  const Mat x = random_mat(40, 32, 9);
  MaskSpec causal;
  causal.causal = true;
  const Mat mask = mask_build(causal, 40, 40, 40);
  const AttentionTrace kept = attention_forward(m.weights.layers[0].attn, c, x, x, mask, MapsKept::all);
  const AttentionTrace lean = attention_forward(m.weights.layers[0].attn, c, x, x, mask, MapsKept::weights);
  for (int h = 0; h < 4; ++h) {
    CAPTURE(h);
    const HeadTrace& a = kept.heads[static_cast<size_t>(h)];
    const HeadTrace& b = lean.heads[static_cast<size_t>(h)];
    CHECK(max_abs_diff(a.weights_kept, b.weights_kept) < 1e-6f);  // scaled through Q instead of the scores: rounding only
    const bool dot = h < 2;
    CHECK((b.scores_raw.size() == 0) == dot);  // general / additive heads always keep theirs
    const HeadScores s = head_scores(b, c);
    CHECK(max_abs_diff(s.raw, a.scores_raw) < 1e-5f);
    CHECK(max_abs_diff(s.scaled, a.scores_scaled) < 1e-5f);
    const HeadScoreCell cell = head_score_at(b, c, 31, 7);
    CHECK(cell.raw == doctest::Approx(a.scores_raw(31, 7)).epsilon(1e-5));
    CHECK(cell.scaled == doctest::Approx(a.scores_scaled(31, 7)).epsilon(1e-5));
  }
}
