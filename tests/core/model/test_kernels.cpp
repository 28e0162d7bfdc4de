// Every optimised kernel against its plain-loop twin, at stated tolerances, plus known values.
#include <doctest/doctest.h>

#include <cmath>

#include <omp.h>

#include "base/rng.h"
#include "model/kernels.h"
#include "model/layer.h"
#include "model/rope.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::random_mat;
using attnviz::test::max_abs_diff;

TEST_CASE("kernels: linear equals linear_naive (1e-5) at sizes that exercise GEMM blocking") {
  // The last shape is large enough for OpenBLAS (2^18 weights, 16 rows) where linear_uses_blas().
  for (auto [T, in, out] : {std::tuple{1, 3, 2}, std::tuple{17, 64, 33}, std::tuple{130, 300, 260},
                            std::tuple{20, 512, 512}}) {
    const Mat x = random_mat(T, in, 1), w = random_mat(out, in, 2, 1.0 / std::sqrt(in));
    const Vec b = random_mat(out, 1, 3);
    CHECK(max_abs_diff(linear(x, w, b), linear_naive(x, w, b)) < 1e-5f);
  }
}

TEST_CASE("kernels: linear reads a weight's rows or columns in place, with the block's own row stride") {
  // Columns of a wider matrix: rows 1,024 floats apart, not 512 (OpenBLAS's lda where it is used;
  // 600 x 512 weights and 20 rows are enough for it). Rows of a taller one: contiguous, no copy.
  const Mat wide = random_mat(600, 1024, 7, 1.0 / 32.0);
  const Mat x = random_mat(20, 512, 8);
  const Vec b = random_mat(600, 1, 9);
  const MatRef columns = wide.middleCols(256, 512);
  CHECK(columns.outerStride() == 1024);
  CHECK(max_abs_diff(linear(x, columns, b), linear_naive(x, Mat(wide.middleCols(256, 512)), b)) < 1e-5f);
  const MatRef rows = wide.middleRows(100, 300);
  CHECK(rows.data() == wide.data() + 100 * 1024);
  const Mat x2 = random_mat(17, 1024, 10);
  CHECK(max_abs_diff(linear(x2, rows, b.head(300)), linear_naive(x2, Mat(wide.middleRows(100, 300)), b.head(300))) <
        1e-5f);
}

TEST_CASE("kernels: linear split over 1-3 threads by output columns equals linear_naive, also inside a parallel region") {
  // 130 output columns: parts at multiples of 16 leave a short last part; 300 x 130 x 37 multiply-adds
  // are enough for three threads. 7 columns: fewer 16-wide steps than threads.
  const int saved = omp_get_max_threads();
  struct Shape {
    int rows, in, out;
  };
  for (const Shape shape : {Shape{37, 300, 130}, Shape{500, 200, 7}, Shape{3, 40, 50}}) {
    const Mat x = random_mat(shape.rows, shape.in, 4), w = random_mat(shape.out, shape.in, 5, 1.0 / std::sqrt(shape.in));
    const Vec b = random_mat(shape.out, 1, 6);
    const Mat want = linear_naive(x, w, b);
    for (int threads : {1, 2, 3}) {
      CAPTURE(shape.rows);
      CAPTURE(shape.out);
      CAPTURE(threads);
      omp_set_num_threads(threads);
      CHECK(max_abs_diff(linear(x, w, b), want) < 1e-5f);
    }
    Mat inside;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
      inside = linear(x, w, b);
    }
    CHECK(max_abs_diff(inside, want) < 1e-5f);
  }
  omp_set_num_threads(saved);
}

TEST_CASE("kernels: linear for a few rows of large weights (one pass over them) equals linear_naive, the same bits on 1-3 threads") {
  // 2^18 weights and more with fewer than 16 rows take the few-rows kernel: every row count from 1
  // to 15 (groups of 4 and what is left), an odd number of outputs (a last row of w alone), inputs
  // that are not a multiple of 8 (a partial last step), and a weight read in place with a wider
  // row stride. Each value is one thread's sum in one order, so the bits do not depend on threads.
  const int saved = omp_get_max_threads();
  const Mat wide = random_mat(701, 400, 11, 1.0 / 20.0);
  const MatRef w = wide.leftCols(397);  // 701 x 397 = 278,297 weights, rows 400 floats apart
  REQUIRE(w.size() >= (1 << 18));
  REQUIRE(w.outerStride() == 400);
  const Mat w_copy = w;
  const Vec b = random_mat(701, 1, 12);
  for (int rows = 1; rows < 16; ++rows) {
    CAPTURE(rows);
    const Mat x = random_mat(rows, 397, 13 + static_cast<uint64_t>(rows));
    omp_set_num_threads(1);
    const Mat one = linear(x, w, b);
    CHECK(max_abs_diff(one, linear_naive(x, w_copy, b)) < 1e-5f);
    for (int threads : {2, 3}) {
      omp_set_num_threads(threads);
      CHECK(max_abs_diff(linear(x, w, b), one) == 0.0f);
    }
  }
  omp_set_num_threads(saved);
}

TEST_CASE("kernels: OpenBLAS is used only with a kernel for this CPU's vector unit") {
#if defined(__AVX2__)
  // Debian's OpenBLAS names its kernel; on a CPU it does not know it runs the SSE3 "Prescott" one,
  // 3-5x slower than Eigen's AVX code, and the products stay in Eigen.
  for (const char* slow : {"Prescott", "Core2", "Nehalem", "Sandybridge", "Atom", ""}) {
    CAPTURE(slow);
    CHECK_FALSE(blas_kernel_fits(slow));
  }
  for (const char* fits : {"Haswell", "SkylakeX", "Zen", "COOPERLAKE", "SapphireRapids"}) {
    CAPTURE(fits);
    CHECK(blas_kernel_fits(fits));
  }
#else
  CHECK(blas_kernel_fits("Prescott"));  // Eigen has nothing wider in a build without AVX2
#endif
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
  for (Activation a : {Activation::relu, Activation::gelu, Activation::gelu_tanh, Activation::silu}) {
    CAPTURE(static_cast<int>(a));
    Mat y = x;
    activation_apply(y, a);
    Mat z = x;
    for (Eigen::Index i = 0; i < z.size(); ++i) z.data()[i] = activation_naive(z.data()[i], a);
    CHECK(max_abs_diff(y, z) < 1e-6f);
  }
}

TEST_CASE("kernels: additive scores equal their twin, at sizes in and across vector lanes and where tanh saturates") {
  // Each query row's keys are one (Tk, A) block in vector lanes: A of 1, 2, 8, 32 and 33, blocks shorter
  // and longer than a lane; projections up to ±6 put tanh on its flat tails.
  struct Shape {
    int queries, keys, dims;
    double scale;
  };
  for (const Shape s : {Shape{6, 9, 8, 1.0}, Shape{1, 1, 1, 1.0}, Shape{5, 3, 2, 1.0}, Shape{4, 17, 32, 2.0},
                        Shape{3, 7, 33, 6.0}}) {
    CAPTURE(s.dims);  // a plain struct: clang's CAPTURE cannot see structured bindings
    const Mat pq = random_mat(s.queries, s.dims, 6, s.scale), pk = random_mat(s.keys, s.dims, 7, s.scale);
    const RowVec v = random_mat(1, s.dims, 8);
    const Mat fast = additive_scores(pq, pk, v);
    CHECK(fast.rows() == s.queries);
    CHECK(fast.cols() == s.keys);
    CHECK(max_abs_diff(fast, additive_scores_naive(pq, pk, v)) < 1e-5f * static_cast<float>(std::max(1, s.dims / 8)));
  }
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
    CHECK(ca.attn.heads[0].weights_kept.cols() == 5);
    CHECK(max_abs_diff(ca.out, cb.out) < 1e-5f);
  }
}

TEST_CASE("kernels: rms_norm equals its twin and gives each row unit root mean square") {
  const Mat x = random_mat(9, 40, 14, 3.0);
  const Vec w = random_mat(40, 1, 15);
  CHECK(max_abs_diff(rms_norm(x, w, 1e-6f), rms_norm_naive(x, w, 1e-6f)) < 1e-5f);
  const Mat y = rms_norm(x, Vec::Ones(40), 1e-6f);
  for (int i = 0; i < 9; ++i) CHECK(y.row(i).squaredNorm() / 40.0 == doctest::Approx(1.0).epsilon(1e-4));
  CHECK(activation_naive(1.0f, Activation::silu) == doctest::Approx(0.7310586));  // x·σ(x)
  Mat a = x;
  activation_apply(a, Activation::silu);
  CHECK(a(0, 0) == doctest::Approx(x(0, 0) / (1.0f + std::exp(-x(0, 0)))));
}

TEST_CASE("rope: frequencies with and without scaling, the rotation and its twin") {
  ModelConfig c = test::llama_config({.d_model = 64, .n_heads = 4, .d_ff = 32}, 2);  // HS 16
  c.rope.theta = 10000.0f;
  std::vector<float> inv = rope_inv_freq(c);
  REQUIRE(inv.size() == 8);
  CHECK(inv[0] == 1.0f);
  CHECK(inv[1] == doctest::Approx(std::pow(10000.0, -2.0 / 16)));
  // Llama 3's bands (make_family_checkpoints.py's llama_tied_llama3rope): the highest frequency
  // stays, one in the middle band is blended, the long wavelengths are divided by the factor.
  c.rope = {.theta = 500000.0f, .scaling = RopeScaling::llama3, .factor = 8.0f, .low_freq_factor = 1.0f,
            .high_freq_factor = 4.0f, .original_max_positions = 64, .divisors = {}};
  inv = rope_inv_freq(c);
  CHECK(inv[0] == 1.0f);
  CHECK(inv[1] == doctest::Approx(0.079403).epsilon(1e-5));
  CHECK(inv[2] == doctest::Approx(std::pow(500000.0, -4.0 / 16) / 8).epsilon(1e-6));
  c.rope = {.theta = 10000.0f, .scaling = RopeScaling::linear, .factor = 2.0f, .divisors = {}};
  CHECK(rope_inv_freq(c)[1] == doctest::Approx(std::pow(10000.0, -2.0 / 16) / 2));
  // A GGUF file's rope_freqs: each pair's frequency divided by its own number.
  c.rope = RopeConfig{};
  c.rope.scaling = RopeScaling::divisors;
  c.rope.divisors.assign(static_cast<size_t>(c.rotary_dims() / 2), 1.0f);
  c.rope.divisors[1] = 8.0f;
  CHECK(config_validate(c).ok());
  inv = rope_inv_freq(c);
  CHECK(inv[0] == 1.0f);
  CHECK(inv[1] == doctest::Approx(std::pow(10000.0, -2.0 / 16) / 8));
  c.rope.divisors.pop_back();
  CHECK(config_validate(c).error().find("expected") != std::string::npos);
  c.rope.divisors.push_back(0.0f);
  CHECK(config_validate(c).error().find("positive") != std::string::npos);
  // Partial rotary (GPT-NeoX): only the first quarter of each head turns.
  c.rope = {};
  c.rope.fraction = 0.25f;
  CHECK(c.rotary_dims() == 4);
  inv = rope_inv_freq(c);
  REQUIRE(inv.size() == 2);
  const Mat x = random_mat(6, 64, 16);
  Mat a = x, b = x;
  rope_apply(a, 4, 16, rope_table(inv, 3, 6));
  rope_apply_naive(b, 4, 16, inv, 3);
  CHECK(max_abs_diff(a, b) < 1e-6f);
  CHECK(max_abs_diff(a.middleCols(4, 12), x.middleCols(4, 12)) == 0.0f);  // the rest of head 0 untouched
  // Position p rotates pair (0, 2) of head 1 by the angle p·inv[0] = p.
  const float angle = 5.0f;  // row 2 is position 3 + 2
  CHECK(a(2, 16) == doctest::Approx(x(2, 16) * std::cos(angle) - x(2, 18) * std::sin(angle)).epsilon(1e-5));
  CHECK(max_abs_diff(a.row(2).norm() * Mat::Ones(1, 1), x.row(2).norm() * Mat::Ones(1, 1)) < 1e-4f);
}

TEST_CASE("kernels: Llama's and GPT-NeoX's layers equal their naive twins") {
  // RMSNorm, SwiGLU, rotary positions, 4 query heads on 2 key/value heads, causal.
  ModelConfig llama = test::llama_config({.d_model = 32, .n_heads = 4, .d_ff = 48}, 2);
  // GPT-NeoX: LayerNorm, parallel residual, a quarter of each head rotated.
  ModelConfig neox = test::sized_config({.d_model = 32, .n_heads = 4, .d_ff = 48});
  neox.norm = NormPlacement::pre;
  neox.activation = Activation::gelu;
  neox.positions = PositionEncoding::rotary;
  neox.rope.fraction = 0.25f;
  neox.parallel_residual = true;
  for (const ModelConfig& c : {llama, neox}) {
    const Model m = model_init_random(c, 9);
    const Mat x = random_mat(7, 32, 10);
    const LayerTrace a = layer_forward(m.weights.layers[0], c, x, nullptr, Mat::Zero(7, 7));
    const LayerTrace b = layer_forward_naive(m.weights.layers[0], c, x, nullptr, Mat::Zero(7, 7));
    CHECK(max_abs_diff(a.out, b.out) < 1e-5f);
    for (int h = 0; h < 4; ++h) {
      CHECK(max_abs_diff(a.attn.heads[static_cast<size_t>(h)].weights_kept, b.attn.heads[static_cast<size_t>(h)].weights_kept) < 1e-6f);
      CHECK(max_abs_diff(a.attn.heads[static_cast<size_t>(h)].q_unrotated, b.attn.heads[static_cast<size_t>(h)].q_unrotated) < 1e-5f);
    }
  }
  // Query heads 0 and 1 share key/value head 0.
  const Model m = model_init_random(llama, 9);
  const LayerTrace t = layer_forward(m.weights.layers[0], llama, random_mat(5, 32, 12), nullptr, Mat::Zero(5, 5));
  CHECK(t.attn.heads[0].k == t.attn.heads[1].k);
  CHECK(t.attn.heads[1].v == t.attn.heads[1].v);
  CHECK(max_abs_diff(t.attn.heads[1].k, t.attn.heads[2].k) > 1e-3f);
  CHECK(m.weights.layers[0].attn.in_proj_w.rows() == 32 + 2 * 16);
}
