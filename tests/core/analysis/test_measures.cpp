// Value norms and attention rollout on cases small enough to check by hand: rollout of one layer is
// ½·mean_h(A) + ½·I, a hand-made two-layer product, rows that sum to 1; value norms read the
// COLUMNS of W_O that a head feeds, and with W_O = I they are α_ij·‖v_j‖. Measure names round trip.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/measures.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::has;
using attnviz::test::max_abs_diff;
using attnviz::test::random_mat;

namespace {

constexpr float kTol = 1e-5f;

ModelConfig config_of(int C, int NH, int L) {
  ModelConfig c = test::sized_config({.d_model = C, .n_heads = NH, .n_layers = L, .d_ff = 2 * C});
  c.positions = PositionEncoding::none;
  return c;
}

Trace trace_of(const Model& m, const Mat& x, const MaskSpec& mask = {}) {
  TraceInput in;
  in.embeddings = x;
  in.mask = mask;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

// A trace holding only what rollout reads: T tokens and, per layer, the heads' weights.
Trace weights_trace(const std::vector<std::vector<Mat>>& layers) {
  Trace t;
  const Eigen::Index T = layers.front().front().rows();
  t.queries.resize(static_cast<size_t>(T));
  t.keys = t.queries;
  for (const auto& heads : layers) {
    LayerTrace l;
    for (const Mat& w : heads) {
      HeadTrace h;
      h.weights_kept = w;
      l.attn.heads.push_back(h);
    }
    t.layers.push_back(l);
  }
  return t;
}

Mat mat2(float a, float b, float c, float d) {
  Mat m(2, 2);
  m << a, b, c, d;
  return m;
}

}  // namespace

TEST_CASE("measures: names round trip, unknown names are nullopt") {
  CHECK(name_of(AttentionMeasure::weights) == "weights");
  CHECK(name_of(AttentionMeasure::value_norm) == "value-norm");
  CHECK(name_of(AttentionMeasure::rollout) == "rollout");
  for (AttentionMeasure m : kAllMeasures) CHECK(measure_from_name(name_of(m)) == m);
  for (const char* bad : {"", "value_norm", "Weights", "rollouts", "norm", " weights"}) {
    CAPTURE(bad);
    CHECK_FALSE(measure_from_name(bad).has_value());
  }
}

TEST_CASE("measures: rollout of one layer is ½·mean over heads of A + ½·I") {
  const Model m = model_init_random(config_of(16, 4, 1), 3);
  const Trace t = trace_of(m, random_mat(6, 16, 4));
  auto r = attention_rollout(t);
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->size() == 1);
  Mat mean = Mat::Zero(6, 6);
  for (int h = 0; h < 4; ++h) mean += t.head(0, h).weights_kept / 4.0f;
  const Mat want = 0.5f * mean + 0.5f * Mat::Identity(6, 6);
  CHECK(max_abs_diff((*r)[0], want) < kTol);
}

TEST_CASE("measures: rollout of a hand-made two-layer trace is Ã_1 · Ã_0") {
  // Layer 0: both heads [[1, 0], [.5, .5]]      -> Ã_0 = [[1, 0], [.25, .75]]
  // Layer 1: heads [[0, 1], [1, 0]] and I        -> mean [[.5, .5], [.5, .5]], Ã_1 = [[.75, .25], [.25, .75]]
  // R_1 = Ã_1 · Ã_0 = [[.75 + .0625, .1875], [.25 + .1875, .5625]]
  const Mat a0 = mat2(1, 0, 0.5f, 0.5f);
  const Trace t = weights_trace({{a0, a0}, {mat2(0, 1, 1, 0), mat2(1, 0, 0, 1)}});
  auto r = attention_rollout(t);
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->size() == 2);
  CHECK(max_abs_diff((*r)[0], mat2(1, 0, 0.25f, 0.75f)) < 1e-7f);
  CHECK(max_abs_diff((*r)[1], mat2(0.8125f, 0.1875f, 0.4375f, 0.5625f)) < 1e-7f);
  // The order matters: Ã_0 · Ã_1 would be [[.75, .25], [.375, .625]].
  CHECK(max_abs_diff((*r)[1], mat2(0.75f, 0.25f, 0.375f, 0.625f)) > 0.05f);
}

TEST_CASE("measures: rollout rows sum to 1 when attention rows do, a causal model's rollout stays causal") {
  const Model m = model_init_random(config_of(32, 4, 3), 7);
  MaskSpec causal;
  causal.causal = true;
  for (const MaskSpec& mask : {MaskSpec{}, causal}) {
    CAPTURE(mask.causal);
    const Trace t = trace_of(m, random_mat(9, 32, 8), mask);
    auto r = attention_rollout(t);
    REQUIRE_MESSAGE(r.ok(), r.error());
    REQUIRE(r->size() == 3);
    for (int l = 0; l < 3; ++l) {
      CAPTURE(l);
      const Mat& R = (*r)[static_cast<size_t>(l)];
      for (Eigen::Index i = 0; i < 9; ++i) CHECK(R.row(i).sum() == doctest::Approx(1.0).epsilon(1e-5));
      CHECK(R.minCoeff() >= 0.0f);
      if (mask.causal)
        for (Eigen::Index i = 0; i < 9; ++i)
          for (Eigen::Index j = i + 1; j < 9; ++j) CHECK(R(i, j) == 0.0f);
      // measure_map gives the layer's rollout for every head of it.
      for (int h = 0; h < 4; ++h) {
        auto map = measure_map(m, t, AttentionMeasure::rollout, l, h);
        REQUIRE(map.ok());
        CHECK(*map == R);
      }
    }
  }
}

TEST_CASE("measures: with W_O = I the value-norm map is α_ij · ‖v_j‖") {
  Model m = model_init_random(config_of(16, 4, 2), 11);
  for (LayerWeights& l : m.weights.layers) l.attn.out_w = Mat::Identity(16, 16);
  const Trace t = trace_of(m, random_mat(7, 16, 12));
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      CAPTURE(l);
      CAPTURE(h);
      const HeadTrace& head = t.head(l, h);
      auto norms = value_norms(m, t, l, h);
      REQUIRE_MESSAGE(norms.ok(), norms.error());
      const Vec want_norms = head.v.rowwise().norm();
      CHECK(max_abs_diff(*norms, want_norms) < kTol);
      auto map = value_norm_map(m, t, l, h);
      REQUIRE_MESSAGE(map.ok(), map.error());
      Mat want(7, 7);
      for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) want(i, j) = head.weights_kept(i, j) * head.v.row(j).norm();
      CHECK(max_abs_diff(*map, want) < kTol);
      auto as_measure = measure_map(m, t, AttentionMeasure::value_norm, l, h);
      REQUIRE(as_measure.ok());
      CHECK(*as_measure == *map);
    }
}

TEST_CASE("measures: a head's value norm reads the COLUMNS of W_O it feeds, not its rows") {
  // C = 2, two heads of size 1. W_V = I, b_V = 0, so v_j = x_j. W_O = [[3, 1], [4, 0]]: head 0 feeds
  // column (3, 4), |f_0(x_j)| = 5·|x_j0|; head 1 feeds column (1, 0), |f_1(x_j)| = |x_j1|. (Reading
  // rows would give 3·|x_j0| and 4·|x_j1|.)
  ModelConfig c = config_of(2, 2, 1);
  Model m = model_init_random(c, 13);
  AttentionWeights& w = m.weights.layers[0].attn;
  w.in_proj_w.bottomRows(2) = Mat::Identity(2, 2);
  w.in_proj_b.tail(2).setZero();
  w.out_w = mat2(3, 1, 4, 0);
  Mat x(3, 2);
  x << 1, -2, 0.5f, 3, -0.25f, 0;
  const Trace t = trace_of(m, x);
  auto n0 = value_norms(m, t, 0, 0);
  auto n1 = value_norms(m, t, 0, 1);
  REQUIRE((n0.ok() && n1.ok()));
  for (int j = 0; j < 3; ++j) {
    CAPTURE(j);
    CHECK((*n0)(j) == doctest::Approx(5.0 * std::abs(x(j, 0))).epsilon(1e-6));
    CHECK((*n1)(j) == doctest::Approx(std::abs(x(j, 1))).epsilon(1e-6));
  }
  auto map = value_norm_map(m, t, 0, 0);
  REQUIRE(map.ok());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK((*map)(i, j) == doctest::Approx(t.head(0, 0).weights_kept(i, j) * 5.0 * std::abs(x(j, 0))));
}

TEST_CASE("measures: errors name the missing layer or head and a trace from another model") {
  const Model m = model_init_random(config_of(16, 4, 2), 17);
  const Trace t = trace_of(m, random_mat(5, 16, 18));
  auto bad_layer = value_norm_map(m, t, 2, 0);
  REQUIRE_FALSE(bad_layer.ok());
  CHECK(has(bad_layer.error(), "layer 2"));
  auto bad_head = value_norms(m, t, 0, 4);
  REQUIRE_FALSE(bad_head.ok());
  CHECK(has(bad_head.error(), "head 4"));
  for (AttentionMeasure measure : kAllMeasures) {
    CAPTURE(name_of(measure));
    CHECK_FALSE(measure_map(m, t, measure, -1, 0).ok());
    CHECK_FALSE(measure_map(m, t, measure, 0, 7).ok());
  }
  const Model other = model_init_random(config_of(16, 2, 2), 19);
  auto mismatch = value_norms(other, t, 0, 0);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(has(mismatch.error(), "not made by this model"));
}

TEST_CASE("measures: the heads' output terms head_i W^O_i add up, with b^O, to attention's output") {
  const Model m = model_init_random(config_of(16, 4, 2), 17);
  const Trace t = trace_of(m, random_mat(6, 16, 5));
  for (int l = 0; l < 2; ++l)
    for (int q : {0, 3, 5}) {
      CAPTURE(l);
      CAPTURE(q);
      auto terms = head_output_terms(m, t, l, q);
      REQUIRE_MESSAGE(terms.ok(), terms.error());
      REQUIRE(terms->rows() == 4);
      const RowVec sum = terms->colwise().sum() + m.weights.layers[static_cast<size_t>(l)].attn.out_b.transpose();
      CHECK(max_abs_diff(sum, t.layers[static_cast<size_t>(l)].attn.out.row(q)) < 1e-5f);
      // Head 2's term by hand: its 4 columns of the concat times W_O's 4 columns for it.
      const WeightMat& w = m.weights.layers[static_cast<size_t>(l)].attn.out_w;
      RowVec want = RowVec::Zero(16);
      for (int o = 0; o < 16; ++o)
        for (int k = 0; k < 4; ++k) want(o) += t.layers[static_cast<size_t>(l)].attn.concat(q, 8 + k) * w(o, 8 + k);
      CHECK(max_abs_diff(terms->row(2), want) < 1e-5f);
    }
  CHECK_FALSE(head_output_terms(m, t, 0, 6).ok());
  CHECK_FALSE(head_output_terms(m, t, 2, 0).ok());
}

TEST_CASE("measures: setting the first key aside keeps its column and renormalises the rest of each row") {
  Mat w(3, 3);
  w << 1.0f, 0.0f, 0.0f,
       0.8f, 0.2f, 0.0f,
       0.6f, 0.1f, 0.3f;
  const Mat aside = attention_first_key_aside(w);
  CHECK(aside.col(0) == w.col(0));
  CHECK(aside.row(0).tail(2).isZero());  // nothing left beside the first key
  CHECK(aside(1, 1) == doctest::Approx(1.0f));
  CHECK(aside(2, 1) == doctest::Approx(0.25f));
  CHECK(aside(2, 2) == doctest::Approx(0.75f));
  CHECK(attention_first_key_aside(Mat::Ones(2, 1)) == Mat::Ones(2, 1));
}
