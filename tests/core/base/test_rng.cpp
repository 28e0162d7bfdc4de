// The weight initialiser must give the same numbers on every machine: pinned values of both
// generators, a portable logarithm within an ulp of libm's, sane normal statistics, and the same
// bits however a Philox stream is cut into parts or threads.
#include <doctest/doctest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
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
  CHECK(a.generator == RngGenerator::philox4x32_10);
  CHECK(a.weights.layers[0].attn.in_proj_w(0, 0) == -0x1.27f56cp-4f);  // -0.0722555369
  CHECK(a.weights.layers[0].attn.in_proj_w(0, 1) == 0x1.aae712p-4f);   // 0.104224272
  CHECK(a.weights.layers[0].attn.in_proj_w(0, 3) == -0x1.932b4cp-4f);  // -0.098429963
  const double stddev = std::sqrt(2.0 / 16.0);
  float first = 0;
  philox_fill_normal(seed_for(1234, "layers.0.self_attn.in_proj_weight"), 0, &first, 1, stddev);
  CHECK(a.weights.layers[0].attn.in_proj_w(0, 0) == first);
  // The first generator's weights, as every session and file saved before the second one shows them:
  // the values the first release drew (pinned from it), still those of its stream's normal() calls.
  const Model old = model_init_random(c, 1234, RngGenerator::polar_splitmix64);
  CHECK(old.generator == RngGenerator::polar_splitmix64);
  CHECK(old.weights.layers[0].attn.in_proj_w(0, 0) == 0x1.4a90ecp-2f);   // 0.322818458
  CHECK(old.weights.layers[0].attn.in_proj_w(0, 1) == -0x1.2b18e8p-1f);  // -0.584174395
  CHECK(old.weights.layers[0].ff2_w(1, 2) == 0x1.f81a9cp-4f);            // 0.123072252
  Rng expect(seed_for(1234, "layers.0.self_attn.in_proj_weight"));
  CHECK(old.weights.layers[0].attn.in_proj_w(0, 0) == static_cast<float>(expect.normal() * stddev));
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

TEST_CASE("rng: random weights are the same bits at any thread count, with either generator") {
  // 768 x 512 values per FFN matrix: more than one part of a Philox stream (model_init_random draws
  // parts of 2^18 values on whichever thread is free).
  const ModelConfig c = test::sized_config({.d_model = 512, .n_heads = 4, .n_layers = 2, .d_ff = 768});
  const int threads = omp_get_max_threads();
  for (RngGenerator g : {RngGenerator::philox4x32_10, RngGenerator::polar_splitmix64}) {
    CAPTURE(rng_generator_name(g));
    omp_set_num_threads(1);
    const Model one = model_init_random(c, 5, g);
    omp_set_num_threads(3);
    const Model three = model_init_random(c, 5, g);
    omp_set_num_threads(threads);
    for (size_t i = 0; i < one.weights.layers.size(); ++i) {
      CHECK(one.weights.layers[i].attn.in_proj_w == three.weights.layers[i].attn.in_proj_w);
      CHECK(one.weights.layers[i].ff2_w == three.weights.layers[i].ff2_w);
      CHECK(one.weights.layers[i].attn.additive_v == three.weights.layers[i].attn.additive_v);
    }
    // And the values are the streams' own, the last ones too.
    const WeightMat& ff1 = three.weights.layers[1].ff1_w;
    std::vector<float> stream(static_cast<size_t>(ff1.size()));
    rng_fill_normal(g, seed_for(5, "layers.1.linear1.weight"), stream.data(), stream.size(),
                    std::sqrt(2.0 / (512 + 768)));
    CHECK(std::equal(stream.begin(), stream.end(), ff1.data()));
  }
}

TEST_CASE("rng: Philox4x32-10 gives the published known answers") {
  // Random123's kat_vectors, "philox4x32 10": counter, key, result.
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) == std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

namespace {

// FNV-1a over the values' bytes: one number that changes with any bit of any value.
uint64_t fnv_bits(const std::vector<float>& values) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (float f : values) {
    uint32_t b = 0;
    std::memcpy(&b, &f, sizeof b);
    for (int k = 0; k < 4; ++k) {
      h ^= (b >> (8 * k)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  }
  return h;
}

}  // namespace

TEST_CASE("rng: the Philox normal stream's values are pinned, on every CPU path and compiler") {
  // Pinned: the suite runs built for x86-64-v3 (AVX2 blocks), natively, and for x86-64-v2 (SSE2);
  // all must give these bits. A change here means every new sandbox would show different numbers.
  float v[12];
  philox_fill_normal(42, 0, v, 12, 1.0);
  const float pinned[12] = {-0x1.f0bcb8p-1f, -0x1.2bc066p-4f, -0x1.590c88p-2f, -0x1.84d9dap-2f,
                            0x1.96a27cp-1f,  -0x1.a3eb98p-2f, -0x1.30bcc4p-4f, -0x1.33462ep+0f,
                            0x1.8d59dp-3f,   0x1.1cf426p-3f,  -0x1.09996ep-1f, -0x1.650d28p-1f};
  // -0.97018981, -0.0731815323, -0.336961865, -0.379737288, 0.794208407, -0.410078406,
  // -0.0743987709, -1.20028961, 0.19401896, 0.139137551, -0.518748701, -0.697365999
  for (int i = 0; i < 12; ++i) {
    CAPTURE(i);
    CHECK(v[i] == pinned[i]);
  }
  std::vector<float> many(1000000);
  philox_fill_normal(seed_for(1, "hash"), 0, many.data(), many.size(), 1.0);
  CHECK(fnv_bits(many) == 0x22c9c4d716a587f8ull);
  // rng_fill_normal's Philox stream is the same one.
  std::vector<float> again(many.size());
  rng_fill_normal(RngGenerator::philox4x32_10, seed_for(1, "hash"), again.data(), again.size(), 1.0);
  CHECK(again == many);
}

TEST_CASE("rng: a Philox stream drawn in parts of any size and place gives the bits of one draw") {
  // Whole batches go through the vector blocks, the ends of a part through the one-block code: cut
  // at every offset within a group of 32, the two must agree.
  const uint64_t key = seed_for(9, "parts");
  for (uint64_t start : {uint64_t{0}, uint64_t{5}, (uint64_t{1} << 34) + 3}) {  // past 2^32 blocks too
    CAPTURE(start);
    const size_t n = 3 * 8192 + 77;
    std::vector<float> whole(n), parts(n, std::nanf(""));
    philox_fill_normal(key, start, whole.data(), n, 0.37);
    const size_t sizes[] = {1, 31, 32, 33, 7, 8191, 8192, 8193, 64, 1000};
    for (size_t at = 0, i = 0; at < n; ++i) {
      const size_t m = std::min(sizes[i % std::size(sizes)], n - at);
      philox_fill_normal(key, start + at, parts.data() + at, m, 0.37);
      at += m;
    }
    CHECK(std::memcmp(whole.data(), parts.data(), n * sizeof(float)) == 0);
  }
}

TEST_CASE("rng: Philox normal values have the normal's mean, variance, shape and no correlation") {
  const size_t n = 1000000;
  std::vector<float> x(n);
  philox_fill_normal(seed_for(2026, "statistics"), 0, x.data(), n, 1.0);
  double sum = 0, sq = 0, lag1 = 0, lag8 = 0, lag16 = 0, beyond3 = 0, largest = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += x[i];
    sq += double(x[i]) * x[i];
    if (i + 1 < n) lag1 += double(x[i]) * x[i + 1];
    if (i + 8 < n) lag8 += double(x[i]) * x[i + 8];  // a pair's cosine and sine
    if (i + 16 < n) lag16 += double(x[i]) * x[i + 16];
    beyond3 += std::abs(x[i]) > 3.0f;
    largest = std::max(largest, double(std::abs(x[i])));
  }
  // Standard errors: 1e-3 for the mean and each correlation, 1.4e-3 for the variance.
  CHECK(std::abs(sum / n) < 5e-3);
  CHECK(std::abs(sq / n - 1.0) < 7e-3);
  CHECK(std::abs(lag1 / n) < 5e-3);
  CHECK(std::abs(lag8 / n) < 5e-3);
  CHECK(std::abs(lag16 / n) < 5e-3);
  CHECK(std::abs(beyond3 / n - 0.0026998) < 5 * std::sqrt(0.0027 / n));
  CHECK(largest < 6.67);  // the smallest u is 2^-32
  // Kolmogorov-Smirnov against the normal's CDF: D below 1.63 / sqrt(n), the 1% critical value.
  std::sort(x.begin(), x.end());
  double d = 0;
  for (size_t i = 0; i < n; ++i) {
    const double cdf = 0.5 * std::erfc(-x[i] / std::sqrt(2.0));
    d = std::max({d, cdf - double(i) / n, double(i + 1) / n - cdf});
  }
  CAPTURE(d);
  CHECK(d < 1.63 / std::sqrt(double(n)));
}

TEST_CASE("rng: generators are named, and an unknown name is refused by name") {
  CHECK(rng_generator_name(RngGenerator::polar_splitmix64) == "polar-splitmix64");
  CHECK(rng_generator_name(RngGenerator::philox4x32_10) == "philox4x32-10");
  for (RngGenerator g : {RngGenerator::polar_splitmix64, RngGenerator::philox4x32_10}) {
    auto back = rng_generator_from_name(rng_generator_name(g));
    REQUIRE(back.ok());
    CHECK(*back == g);
  }
  auto unknown = rng_generator_from_name("mt19937");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error() == "unknown random generator 'mt19937' (known: polar-splitmix64, philox4x32-10)");
  CHECK_FALSE(rng_generator_from_name("Philox4x32-10").ok());  // names are exact
  CHECK(kRngUnrecorded == RngGenerator::polar_splitmix64);
  CHECK(kRngNewest == RngGenerator::philox4x32_10);
}

TEST_CASE("rng: a model grown with another generator is drawn anew, not copied") {
  const ModelConfig c = test::sized_config({.d_model = 16, .n_heads = 2, .d_ff = 32});
  const Model old = model_init_random(c, 3, RngGenerator::polar_splitmix64);
  ModelConfig more = c;
  more.n_layers = 2;
  const Model grown = model_init_random_from(more, 3, old);  // the newest generator
  CHECK(grown.generator == kRngNewest);
  CHECK(grown.weights.layers[0].attn.in_proj_w == model_init_random(more, 3).weights.layers[0].attn.in_proj_w);
  CHECK(grown.weights.layers[0].attn.in_proj_w != old.weights.layers[0].attn.in_proj_w);
  const Model kept = model_init_random_from(more, 3, old, RngGenerator::polar_splitmix64);
  CHECK(kept.weights.layers[0].attn.in_proj_w == old.weights.layers[0].attn.in_proj_w);
}
