// portable_math: accuracy against double-precision libm over sweeps of floats, the special values,
// and pinned bits. The pinned values are what every build must give — the suite's x86-64-v3 build
// and its native one, GCC and Clang, -O1 and -O3 — since trained models are only the same bytes
// everywhere if these functions are.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "model/portable_math.h"

using namespace attnviz;

namespace {

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// |got − want| in units of the float spacing at want (the smallest normal spacing near 0).
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  const float spacing = std::nextafter(std::max(std::fabs(w), std::numeric_limits<float>::min()),
                                       std::numeric_limits<float>::infinity()) -
                        std::max(std::fabs(w), std::numeric_limits<float>::min());
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

// Every `step`-th bit pattern of the finite floats of both signs, plus the values `extra`.
std::vector<float> sweep(uint32_t step) {
  std::vector<float> xs;
  for (uint32_t b = 0; b < 0x7f800000u; b += step) {
    xs.push_back(from_bits(b));
    xs.push_back(-from_bits(b));
  }
  return xs;
}

using ArrayFn = void (*)(const float*, float*, size_t);
using ScalarFn = float (*)(float);

// The largest error of fn over xs (in ulps; values where want is beyond ±max_x skipped), and
// whether the array form, run in odd lengths, equals the one-value form bit for bit.
struct Sweep {
  double worst_ulps = 0;
  float worst_at = 0;
  int array_mismatches = 0;
};
Sweep check(const std::vector<float>& xs, ArrayFn array_fn, ScalarFn scalar_fn, double (*reference)(double),
            float lowest) {
  Sweep s;
  std::vector<float> out(xs.size());
  for (size_t first = 0; first < xs.size(); first += 13) array_fn(xs.data() + first, out.data() + first, std::min<size_t>(13, xs.size() - first));
  for (size_t i = 0; i < xs.size(); ++i) {
    if (bits(out[i]) != bits(scalar_fn(xs[i]))) ++s.array_mismatches;
    if (xs[i] < lowest) continue;
    const double e = ulps(out[i], reference(xs[i]));
    if (e > s.worst_ulps) {
      s.worst_ulps = e;
      s.worst_at = xs[i];
    }
  }
  return s;
}

}  // namespace

TEST_CASE("portable_math: exp within 2 ulp of e^x, exactly 0 for -inf and what underflows") {
  // Below e^-87.3 the result is subnormal; those are compared with a tolerance of their own below.
  const Sweep s = check(sweep(4099), exp_portable, exp_portable, [](double x) { return std::exp(x); }, -87.3f);
  CAPTURE(s.worst_at);
  CHECK(s.worst_ulps <= 2.0);
  CHECK(s.array_mismatches == 0);
  // Where a softmax's inputs lie, densely.
  std::vector<float> dense;
  for (uint32_t b = bits(-0.0f); b <= bits(-30.0f); b += 61) dense.push_back(from_bits(b));
  CHECK(check(dense, exp_portable, exp_portable, [](double x) { return std::exp(x); }, -87.3f).worst_ulps <= 2.0);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(bits(exp_portable(-inf)) == 0u);  // +0: a hidden key's weight
  CHECK(bits(exp_portable(-104.5f)) == 0u);
  CHECK(bits(exp_portable(-1e30f)) == 0u);
  CHECK(exp_portable(-100.0f) == doctest::Approx(std::exp(-100.0)).epsilon(0.01));  // subnormal, rounded
  CHECK(exp_portable(0.0f) == 1.0f);
  CHECK(exp_portable(89.5f) == inf);
  CHECK(exp_portable(inf) == inf);
  CHECK(std::isnan(exp_portable(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("portable_math: tanh and erf within 4 ulp, their limits and NaN") {
  const std::vector<float> xs = sweep(4099);
  const Sweep t = check(xs, tanh_portable, tanh_portable, [](double x) { return std::tanh(x); }, -1e30f);
  CAPTURE(t.worst_at);
  CHECK(t.worst_ulps <= 4.0);
  CHECK(t.array_mismatches == 0);
  const Sweep e = check(xs, erf_portable, erf_portable, [](double x) { return std::erf(x); }, -1e30f);
  CAPTURE(e.worst_at);
  CHECK(e.worst_ulps <= 4.0);
  CHECK(e.array_mismatches == 0);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(tanh_portable(inf) == 1.0f);
  CHECK(tanh_portable(-inf) == -1.0f);
  CHECK(tanh_portable(20.0f) == 1.0f);
  CHECK(bits(tanh_portable(-0.0f)) == bits(-0.0f));
  CHECK(erf_portable(4.0f) == 1.0f);
  CHECK(erf_portable(-inf) == -1.0f);
  CHECK(std::isnan(tanh_portable(nan)));
  CHECK(std::isnan(erf_portable(nan)));
}

TEST_CASE("portable_math: sums in eight lanes, added in one fixed order") {
  std::vector<float> x(37), y(37);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = from_bits(0x3f800000u + static_cast<uint32_t>(i) * 12345u);
    y[i] = 1.0f / static_cast<float>(i + 3);
  }
  // Lane l holds x[l] + x[l + 8] + ..., then (l0 + l4) + (l2 + l6) + ((l1 + l5) + (l3 + l7)).
  float lane[8] = {};
  for (size_t i = 0; i < x.size(); ++i) lane[i % 8] += x[i];
  const float expected = ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
  CHECK(bits(sum_portable(x.data(), x.size())) == bits(expected));
  CHECK(sum_portable(x.data(), 0) == 0.0f);
  float dot_lane[8] = {};
  for (size_t i = 0; i < x.size(); ++i) dot_lane[i % 8] += x[i] * y[i];
  const float dot = ((dot_lane[0] + dot_lane[4]) + (dot_lane[2] + dot_lane[6])) +
                    ((dot_lane[1] + dot_lane[5]) + (dot_lane[3] + dot_lane[7]));
  CHECK(bits(dot_portable(x.data(), y.data(), x.size())) == bits(dot));
  double want = 0;
  for (float v : x) want += static_cast<double>(v) * v;
  CHECK(square_sum_portable(x.data(), x.size()) == doctest::Approx(want).epsilon(1e-14));
}

// What every build computes for these inputs, bit for bit (printed by a Release build on an AVX2
// CPU and checked on the others): the same functions on another target must not move a bit.
TEST_CASE("portable_math: the same bits in every build") {
  const float xs[] = {-87.0f, -20.5f, -3.25f, -1.0f, -0.3f, -1e-3f, 0.0f, 0.17f, 0.7f, 1.5f, 2.75f, 3.99f, 10.0f, 88.5f};
  uint32_t e[14], t[14], r[14];
  for (int i = 0; i < 14; ++i) {
    e[i] = bits(exp_portable(xs[i]));
    t[i] = bits(tanh_portable(xs[i]));
    r[i] = bits(erf_portable(xs[i]));
  }
  const uint32_t want_exp[] = {0x00b33687u, 0x30abd1d8u, 0x3d1ed1b4u, 0x3ebc5ab2u, 0x3f3da643u, 0x3f7fbe7fu, 0x3f800000u, 0x3f97b812u, 0x4000e153u, 0x408f69ffu, 0x417a4838u, 0x42583835u, 0x46ac14eeu, 0x7f4cdcc4u};
  const uint32_t want_tanh[] = {0xbf800000u, 0xbf800000u, 0xbf7f3b3cu, 0xbf42f7d7u, 0xbe9526edu, 0xba83126cu, 0x00000000u, 0x3e2c6c15u, 0x3f1ab7d8u, 0x3f67b7ccu, 0x3f7dea85u, 0x3f7fd328u, 0x3f800000u, 0x3f800000u};
  const uint32_t want_erf[] = {0xbf800000u, 0xbf800000u, 0xbf7fffb8u, 0xbf57bb3cu, 0xbea841c4u, 0xba93e61cu, 0x00000000u, 0x3e428d62u, 0x3f2d8460u, 0x3f7752abu, 0x3f7ff968u, 0x3f800000u, 0x3f800000u, 0x3f800000u};
  for (int i = 0; i < 14; ++i) {
    CAPTURE(xs[i]);
    CHECK(e[i] == want_exp[i]);
    CHECK(t[i] == want_tanh[i]);
    CHECK(r[i] == want_erf[i]);
  }
}
