// exp_lanes gives std::exp's bits: a sweep over the floats a softmax meets (every 4099th bit pattern
// from -0 down to below -104, where expf underflows to 0, and from 0 up past 88, where it overflows;
// every 61st in [-8, -0.5], where most softmax inputs lie, and every 3rd around the underflow and
// overflow bounds), and the special values. Bits, not a tolerance: the shipped demos retrain to the
// same bytes through it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "model/exp_lanes.h"

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

// How many of xs exp_lanes gets wrong (bits differ from std::exp; any NaN matches NaN), in place and
// into another array, run in odd lengths so that every lane position and the partial last group meet values.
int mismatches(const std::vector<float>& xs) {
  std::vector<float> out(xs.size()), in_place = xs;
  int wrong = 0;
  for (size_t first = 0; first < xs.size(); first += 13) {
    const size_t n = std::min<size_t>(13, xs.size() - first);
    exp_lanes(xs.data() + first, out.data() + first, n);
    exp_lanes(in_place.data() + first, in_place.data() + first, n);
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = std::exp(xs[i]);
    for (const float got : {out[i], in_place[i]})
      if (std::isnan(want) ? !std::isnan(got) : bits(got) != bits(want)) ++wrong;
  }
  return wrong;
}

}  // namespace

TEST_CASE("exp_lanes: std::exp's bits over the range a softmax meets, and the special values") {
  MESSAGE("computed in vector lanes on this build: " << exp_lanes_vectorised());
  std::vector<float> xs;
  auto sweep = [&](float from, float to, uint32_t step) {  // from and to of one sign, |from| < |to|
    for (uint32_t b = bits(from); b <= bits(to); b += step) xs.push_back(from_bits(b));
  };
  sweep(-0.0f, -110.0f, 4099);
  sweep(0.0f, 90.0f, 4099);
  sweep(-0.5f, -8.0f, 61);
  sweep(-103.0f, -104.5f, 3);
  sweep(-87.5f, -88.5f, 3);
  sweep(88.0f, 89.0f, 3);
  MESSAGE(xs.size() << " values swept");
  CHECK(xs.size() > 1'000'000u);
  CHECK(mismatches(xs) == 0);

  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {0.0f, -0.0f, -inf, inf, std::numeric_limits<float>::quiet_NaN(), -87.99f, -88.0f,
                                      -88.01f, -103.2f, -103.3f, -103.97f, -104.0f, 88.72f, 88.73f, 1e-30f, -1e-30f,
                                      -1e-40f, 1e-40f, -0.5f, 0.25f,
                                      // where libm's result becomes +0, and the floats either side
                                      -0x1.9fe368p6f, -0x1.9fe366p6f, -0x1.9fe36ap6f, -0x1.9d1d9ep6f, -0x1.9d1d9cp6f};
  CHECK(mismatches(special) == 0);
}
