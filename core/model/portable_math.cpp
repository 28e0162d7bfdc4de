// The functions of portable_math.h, eight values at a time. e^x: x = k·ln 2 + r with |r| ≤ ln2/2
// (ln 2 split in two so that k·ln2_hi is exact, as Cody and Waite do), e^r by its Taylor series to
// r⁷, times 2^k built from exponent bits in two halves (so that neither half leaves the normal
// range). tanh(a) = −m/(2 + m) with m = e^(−2a) − 1, and m by its own series where e^(−2a) is near
// 1. erf: two fitted polynomials (erf_coefficients.inc, written by scripts/fits/).
#include "model/portable_math.h"

#include <limits>

#include "model/lanes.h"

namespace attnviz {

namespace {

#include "model/erf_coefficients.inc"

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kRoundShift = 12582912.0f;   // 1.5·2^23: adding it rounds to an integer, kept in the low bits
constexpr float kLn2Hi = 0.693359375f;       // 355/512: k·kLn2Hi is exact for every k met here
constexpr float kLn2Lo = -2.12194440e-4f;    // ln 2 − kLn2Hi
constexpr float kExpLow = -104.0f;           // e^x rounds to 0 below about −103.97
constexpr float kExpHigh = 89.0f;            // and overflows above about 88.72 (the scaling makes +inf)
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kSignBit = static_cast<int32_t>(0x80000000u);

ATTNVIZ_LANES_INLINE Lanes abs_of(Lanes x) { return lanes_from_bits(lanes_bits(x) & ~kSignBit); }
// |magnitude| with the sign of `sign`.
ATTNVIZ_LANES_INLINE Lanes with_sign_of(Lanes magnitude, Lanes sign) {
  return lanes_from_bits(lanes_bits(magnitude) | (lanes_bits(sign) & kSignBit));
}

// e^r − 1 for |r| ≤ ln2/2, by the Taylor series to r⁸ (Horner, a product then a sum).
ATTNVIZ_LANES_INLINE Lanes expm1_series(Lanes r) {
  Lanes p = lanes_splat(1.0f / 40320.0f);
  p = p * r + 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  return p * r;
}

ATTNVIZ_LANES_INLINE Lanes exp_of(Lanes x) {
  const LaneInts in_range = (x >= kExpLow) & (x <= kExpHigh);  // false for NaN
  const Lanes xc = lanes_select(in_range, x, lanes_zero());
  const Lanes shifted = xc * kLog2e + kRoundShift;
  const Lanes kf = shifted - kRoundShift;
  const LaneInts k = lanes_bits(shifted) - lanes_bits(lanes_splat(kRoundShift));
  const Lanes r = (xc - kf * kLn2Hi) - kf * kLn2Lo;
  Lanes p = lanes_splat(1.0f / 5040.0f);
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const LaneInts half = k >> 1;
  const Lanes scale_a = lanes_from_bits((half + 127) << 23), scale_b = lanes_from_bits((k - half + 127) << 23);
  const Lanes e = (p * scale_a) * scale_b;
  const Lanes outside = lanes_select(x > kExpHigh, lanes_splat(kInf), lanes_select(x < kExpLow, lanes_zero(), x + x));
  return lanes_select(in_range, e, outside);
}

ATTNVIZ_LANES_INLINE Lanes tanh_of(Lanes x) {
  const Lanes a = abs_of(x);
  const Lanes y = a * -2.0f;
  const Lanes m = lanes_select(a < 0.17328679f, expm1_series(y), exp_of(y) - 1.0f);
  return with_sign_of(-m / (m + 2.0f), x);
}

template <size_t N>
ATTNVIZ_LANES_INLINE Lanes horner(const float (&c)[N], Lanes x) {
  Lanes p = lanes_splat(c[N - 1]);
  for (size_t i = N - 1; i-- > 0;) p = p * x + c[i];
  return p;
}

ATTNVIZ_LANES_INLINE Lanes erf_of(Lanes x) {
  const Lanes a = abs_of(x);
  const Lanes u = a * a;
  const Lanes near = horner(kErfSmall, u) * a;
  const Lanes far = 1.0f - exp_of(-u) * horner(kErfcLarge, 1.0f / a);
  const Lanes magnitude = lanes_select(a <= 1.0f, near, lanes_select(a < 4.0f, far, lanes_splat(1.0f)));
  return lanes_select(x != x, x, with_sign_of(magnitude, x));
}

// out[i] = f(x[i]) eight at a time, the last group padded with zeros.
template <class F>
ATTNVIZ_LANES_INLINE void each_value(const float* x, float* out, size_t n, F f) {
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) lanes_store(out + i, f(lanes_load(x + i)));
  if (i < n) lanes_store_partial(out + i, f(lanes_load_partial(x + i, n - i)), n - i);
}

template <class F>
ATTNVIZ_LANES_INLINE float one_value(float x, F f) {
  float out;
  each_value(&x, &out, 1, f);
  return out;
}

}  // namespace

// Lambdas rather than function pointers, so that nothing passes Lanes through a call.
#define ATTNVIZ_LANES_FN(f) [](Lanes v) __attribute__((always_inline)) { return f(v); }

void exp_portable(const float* x, float* out, size_t n) { each_value(x, out, n, ATTNVIZ_LANES_FN(exp_of)); }
float exp_portable(float x) { return one_value(x, ATTNVIZ_LANES_FN(exp_of)); }
void tanh_portable(const float* x, float* out, size_t n) { each_value(x, out, n, ATTNVIZ_LANES_FN(tanh_of)); }
float tanh_portable(float x) { return one_value(x, ATTNVIZ_LANES_FN(tanh_of)); }
void erf_portable(const float* x, float* out, size_t n) { each_value(x, out, n, ATTNVIZ_LANES_FN(erf_of)); }
float erf_portable(float x) { return one_value(x, ATTNVIZ_LANES_FN(erf_of)); }

float sum_portable(const float* x, size_t n) {
  Lanes acc = lanes_zero();
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc += lanes_load(x + i);
  if (i < n) acc += lanes_load_partial(x + i, n - i);
  return lanes_sum(acc);
}

float dot_portable(const float* a, const float* b, size_t n) {
  Lanes acc = lanes_zero();
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) acc += lanes_load(a + i) * lanes_load(b + i);
  if (i < n) acc += lanes_load_partial(a + i, n - i) * lanes_load_partial(b + i, n - i);
  return lanes_sum(acc);
}

double square_sum_portable(const float* x, size_t n) {
  using Quad = float __attribute__((vector_size(4 * sizeof(float))));
  LaneDoubles acc{};
  size_t i = 0;
  auto add = [&](Quad q) __attribute__((always_inline)) {
    const LaneDoubles d = __builtin_convertvector(q, LaneDoubles);
    acc += d * d;
  };
  for (; i + 4 <= n; i += 4) {
    Quad q;
    std::memcpy(&q, x + i, sizeof q);
    add(q);
  }
  if (i < n) {
    Quad q{};
    std::memcpy(&q, x + i, (n - i) * sizeof(float));
    add(q);
  }
  return (acc[0] + acc[2]) + (acc[1] + acc[3]);
}

}  // namespace attnviz
