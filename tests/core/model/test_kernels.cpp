// Every optimised kernel against its plain-loop twin, at stated tolerances, plus known values.
#include <doctest/doctest.h>

#include <cmath>

#include "base/rng.h"
#include "model/kernels.h"
#include "model/layer.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::random_mat;
using attnviz::test::max_abs_diff;

TEST_CASE("kernels: linear equals linear_naive (1e-5) at sizes that exercise GEMM blocking") {
  for (auto [T, in, out] : {std::tuple{1, 3, 2}, std::tuple{17, 64, 33}, std::tuple{130, 300, 260}}) {
    const Mat x = random_mat(T, in, 1), w = random_mat(out, in, 2, 1.0 / std::sqrt(in));
    const Vec b = random_mat(out, 1, 3);
    CHECK(max_abs_diff(linear(x, w, b), linear_naive(x, w, b)) < 1e-5f);
  }
}

TEST_CASE("kernels: layer_norm equals its twin and normalises each row") {
  const Mat x = random_mat(9, 40, 4, 3.0);
  const Vec w = Vec::Ones(40), b = Vec::Zero(40);
  const Mat y = layer_norm(x, w, b, 1e-5f);
  CHECK(max_abs_diff(y, layer_norm_naive(x, w, b, 1e-5f)) < 1e-5f);
  for (int i = 0; i < 9; ++i) {
    CHECK(y.row(i).mean() == doctest::Approx(0.0).epsilon(1e-5));
    CHECK(y.row(i).squaredNorm() / 40.0 == doctest::Approx(1.0).epsilon(1e-3));
  }
}

TEST_CASE("kernels: activations — known values and the vectorised path equals the scalar one") {
  CHECK(activation_naive(-1.0f, Activation::relu) == 0.0f);
  CHECK(activation_naive(1.0f, Activation::gelu) == doctest::Approx(0.8413447));   // x·Φ(x)
  CHECK(activation_naive(1.0f, Activation::gelu_tanh) == doctest::Approx(0.8411920));
  Mat x = random_mat(7, 13, 5, 2.0);
  for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh}) {
    Mat y = x;
    activation_apply(y, a);
    Mat z = x;
    for (Eigen::Index i = 0; i < z.size(); ++i) z.data()[i] = activation_naive(z.data()[i], a);
    CHECK(max_abs_diff(y, z) < 1e-6f);
  }
}

TEST_CASE("kernels: additive scores equal their twin") {
  const Mat pq = random_mat(6, 8, 6), pk = random_mat(9, 8, 7);
  const RowVec v = random_mat(1, 8, 8);
  CHECK(max_abs_diff(additive_scores(pq, pk, v), additive_scores_naive(pq, pk, v)) < 1e-5f);
}

TEST_CASE("kernels: a whole layer equals its naive twin, post and pre norm, self and cross") {
  for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
    ModelConfig c = test::sized_config({.d_model = 32, .n_heads = 4, .d_ff = 48});
    c.norm = norm;
    c.activation = Activation::gelu;
    const Model m = model_init_random(c, 9);
    const Mat x = random_mat(7, 32, 10), memory = random_mat(5, 32, 11);
    const LayerTrace a = layer_forward(m.weights.layers[0], c, x, nullptr, Mat::Zero(7, 7));
    const LayerTrace b = layer_forward_naive(m.weights.layers[0], c, x, nullptr, Mat::Zero(7, 7));
    CHECK(max_abs_diff(a.out, b.out) < 1e-5f);
    const LayerTrace ca = layer_forward(m.weights.layers[0], c, x, &memory, Mat::Zero(7, 5));
    const LayerTrace cb = layer_forward_naive(m.weights.layers[0], c, x, &memory, Mat::Zero(7, 5));
    CHECK(ca.attn.heads[0].weights.cols() == 5);
    CHECK(max_abs_diff(ca.out, cb.out) < 1e-5f);
  }
}
