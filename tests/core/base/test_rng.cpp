// The weight initialiser must give the same numbers on every machine: pinned values, a portable
// logarithm within an ulp of libm's, and sane normal statistics.
#include <doctest/doctest.h>

#include <omp.h>

#include <cmath>
#include <vector>

#include "base/rng.h"
#include "model/model.h"
#include "support/model_util.h"

using namespace attnviz;

TEST_CASE("rng: SplitMix64 reproduces its published first outputs for seed 0") {
  Rng r(0);
  CHECK(r.next_u64() == 0xE220A8397B1DCDAFull);
  CHECK(r.next_u64() == 0x6E789E6AA1B965F4ull);
  CHECK(r.next_u64() == 0x06C45D188009454Full);
}

TEST_CASE("rng: log_portable agrees with libm to a few ulp over a wide range") {
  for (double x : {1e-300, 1e-10, 0.001, 0.5, 0.70710678, 0.9999, 1.0, 1.0001, 2.0, 3.14159, 10.0, 1e10, 1e300}) {
    CAPTURE(x);
    CHECK(std::abs(log_portable(x) - std::log(x)) <= 4e-16 * std::max(1.0, std::abs(std::log(x))));
  }
}

TEST_CASE("rng: normal samples have mean 0 and variance 1") {
  Rng r(42);
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double v = r.normal();
    sum += v;
    sq += v * v;
  }
  CHECK(std::abs(sum / n) < 0.01);
  CHECK(std::abs(sq / n - 1.0) < 0.01);
}

TEST_CASE("rng: a seeded model has pinned weights, and a tensor's values do not depend on the others") {
  const ModelConfig c = test::sized_config({.d_model = 8, .n_heads = 2, .d_ff = 16});
  const Model a = model_init_random(c, 1234);
  // Pinned: a change here means every saved sandbox session would show different numbers.
  Rng expect(seed_for(1234, "layers.0.self_attn.in_proj_weight"));
  const double stddev = std::sqrt(2.0 / 16.0);
  CHECK(a.weights.layers[0].attn.in_proj_w(0, 0) == static_cast<float>(expect.normal() * stddev));
  CHECK(seed_for(1234, "layers.0.self_attn.in_proj_weight") == seed_for(1234, "layers.0.self_attn.in_proj_weight"));
  CHECK(seed_for(1234, "a") != seed_for(1234, "b"));
  CHECK(seed_for(1, "a") != seed_for(2, "a"));
  ModelConfig bigger = c;
  bigger.n_layers = 3;
  const Model b = model_init_random(bigger, 1234);
  CHECK(b.weights.layers[0].attn.in_proj_w == a.weights.layers[0].attn.in_proj_w);
  CHECK(b.weights.layers[0].ff2_w == a.weights.layers[0].ff2_w);
  CHECK(model_init_random(c, 1235).weights.layers[0].attn.in_proj_w != a.weights.layers[0].attn.in_proj_w);
}

namespace {

// log_portable as it was first written: all 20 terms of the series, no early stop. The early stop
// must give the same bits.
double log_all_terms(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  const double z = (m - 1.0) / (m + 1.0), z2 = z * z;
  double term = z, sum = 0.0;
  for (int k = 1; k < 40; k += 2) {
    sum += term / k;
    term *= z2;
  }
  return 2.0 * sum + e * 0.69314718055994530942;
}

}  // namespace

TEST_CASE("rng: the early-stopping and batched logarithms give the bits of the full series") {
  Rng r(7);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i) xs.push_back(r.uniform() + 0x1.0p-60);  // (0, 1]: what the sampler takes
  for (double x : {1.0, 0.5, 0.70710678118654752440, 0.7071067811865476, 1e-30, 0.999999999999, 0x1.0p-104})
    xs.push_back(x);
  std::vector<double> batch(xs.size());
  log_portable_batch(xs.data(), batch.data(), xs.size());
  size_t differ_scalar = 0, differ_batch = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = log_all_terms(xs[i]);
    differ_scalar += log_portable(xs[i]) != want;
    differ_batch += batch[i] != want;
  }
  CHECK(differ_scalar == 0);
  CHECK(differ_batch == 0);
  CHECK(batch[xs.size() - 7] == 0.0);  // log 1
}

TEST_CASE("rng: fill_normal gives exactly the values and the state of repeated normal() calls") {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{17}, size_t{1024}, size_t{1025}, size_t{5001}}) {
    for (bool spare_first : {false, true}) {
      CAPTURE(n);
      CAPTURE(spare_first);
      Rng a(99 + n), b(99 + n);
      if (spare_first) {  // leave a spare value waiting in both
        a.normal();
        b.normal();
      }
      std::vector<float> filled(n);
      a.fill_normal(filled.data(), n, 0.37);
      size_t differ = 0;
      for (size_t i = 0; i < n; ++i) differ += filled[i] != static_cast<float>(b.normal() * 0.37);
      CHECK(differ == 0);
      // The next draws agree too: same stream position, same spare.
      CHECK(a.normal() == b.normal());
      CHECK(a.normal() == b.normal());
      CHECK(a.next_u64() == b.next_u64());
    }
  }
}

TEST_CASE("rng: fill_normal's fast factors give normal()'s bits, and the values it redoes exactly are too") {
  // Across stddevs of the scales model init uses, and a band so wide that every value is redone.
  const size_t n = 300001;
  for (double stddev : {1.0, 0.0255, 0.37, std::sqrt(2.0 / (768 + 3072))}) {
    for (uint64_t band : {uint64_t{0}, uint64_t{1024}, uint64_t{1} << 24, uint64_t{1} << 28}) {
      CAPTURE(stddev);
      CAPTURE(band);
      Rng a(2024), b(2024);
      std::vector<float> filled(n);
      const size_t redone = a.fill_normal_checked(filled.data(), n, stddev, band);
      size_t differ = 0;
      for (size_t i = 0; i < n; ++i) differ += filled[i] != static_cast<float>(b.normal() * stddev);
      CHECK(differ == 0);
      CHECK(a.normal() == b.normal());  // the same spare and stream position after the odd count
      // The band decides how many are redone: a value is near a midpoint with chance 2 band / 2^29,
      // and a pair is redone whole: 1 - (15/16)^2 = 12% of the values for a band of 2^24.
      if (band <= 1024) CHECK(redone < 50);
      if (band == uint64_t{1} << 24) {
        CHECK(redone > n / 10);
        CHECK(redone < n / 7);
      }
      if (band == uint64_t{1} << 28) CHECK(redone == n - 1);  // all but the spare's partner, exact anyway
    }
  }
}

TEST_CASE("rng: random weights are the same bits at any thread count") {
  const ModelConfig c = test::sized_config({.d_model = 64, .n_heads = 4, .n_layers = 3, .d_ff = 96});
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Model one = model_init_random(c, 5);
  omp_set_num_threads(2);
  const Model two = model_init_random(c, 5);
  omp_set_num_threads(threads);
  for (size_t i = 0; i < one.weights.layers.size(); ++i) {
    CHECK(one.weights.layers[i].attn.in_proj_w == two.weights.layers[i].attn.in_proj_w);
    CHECK(one.weights.layers[i].ff2_w == two.weights.layers[i].ff2_w);
    CHECK(one.weights.layers[i].attn.additive_v == two.weights.layers[i].attn.additive_v);
  }
  // And the values are the streams' own: the first of linear1's is its stream's first normal.
  Rng stream(seed_for(5, "layers.2.linear1.weight"));
  CHECK(two.weights.layers[2].ff1_w(0, 0) == static_cast<float>(stream.normal() * std::sqrt(2.0 / (64 + 96))));
}
