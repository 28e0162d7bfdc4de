// Compiled with -ffp-contract=off (see core/CMakeLists.txt) so no fused multiply-add can change
// a rounding between machines.
//
// Speed without changing a bit:
// - log_portable's series stops once no term can change the sum any more. Every later term is
//   smaller and of the same sign (z^k / k with |z| < 0.18), and rounding is monotonic, so none of
//   them could: the stop gives exactly the bits of all 20 terms (series_terms says where it is safe).
// - fill_normal draws the polar method's attempts in vector lanes (SplitMix64 is a counter), keeps
//   exactly the pairs normal() would accept, and computes their factors a faster way whose error is
//   bounded (approximate_factors): a float value is the exact one's whenever the double it comes
//   from is far enough from a rounding midpoint, and the few that are not are redone exactly.
#include "base/rng.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace attnviz {

namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kSqrtHalf = 0.70710678118654752440;

// x = m * 2^e with m in [sqrt(1/2), sqrt(2)), for a positive normal double, from its bits: the same
// m and e as frexp gives (then folded into that range), without a library call.
inline void split_normal_double(double x, double& m, int& e) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  e = static_cast<int>((bits >> 52) & 0x7FF) - 1022;
  m = std::bit_cast<double>((bits & 0x800FFFFFFFFFFFFFull) | (uint64_t{1022} << 52));  // in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2.0;
    e -= 1;
  }
}

// The series of log_portable for kLanes values side by side, in GCC/Clang vector types (whatever the
// target: plain SSE2 splits them, AVX-512 takes 8 doubles at once).
constexpr int kLanes = 8;
using Lanes = double __attribute__((vector_size(kLanes * sizeof(double))));
using Lanes64 = uint64_t __attribute__((vector_size(kLanes * sizeof(uint64_t))));

// How many terms the series needs before no lane's sum can change: the first term k with
// |z|^k / k <= |z| * 2^-56 in every lane. Every sum is at least |z| in magnitude (its first term, and
// all terms share its sign), so such a term is below a quarter of the sum's half-ulp, even allowing
// for the roundings of the term's own products, and no later term can change the sum: summing more
// terms gives exactly the bits of summing all 20 (the top of this file has the argument).
int series_terms(const Lanes& z2) {
  double widest = 0.0;
  for (int l = 0; l < kLanes; ++l) widest = std::max(widest, z2[l]);
  int terms = 1;
  for (double reach = 1.0; terms < 20 && reach > 0x1.0p-56; ++terms) reach *= widest;
  return terms;
}

Lanes log_series_lanes(Lanes z) {
  const Lanes z2 = z * z;
  Lanes term = z, sum = z * 0.0;
  const int terms = series_terms(z2);
  for (int t = 0, k = 1; t < terms; ++t, k += 2) {
    sum += term / static_cast<double>(k);
    term *= z2;
  }
  return sum;
}

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// SplitMix64's output for the state it has just stepped to; T is uint64_t or Lanes64.
template <class T>
T splitmix_output(T z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t Rng::next_u64() { return splitmix_output(state_ += kGolden); }

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * log_portable(s) / s);  // sqrt is exactly rounded by IEEE 754
  spare_ = v * factor;
  has_spare_ = true;
  return u * factor;
}

namespace {

// Accepted (u, v, s) triples of the polar method, in the order normal() would accept them.
struct PolarPairs {
  static constexpr size_t kCapacity = 512;
  double u[kCapacity], v[kCapacity], s[kCapacity];
};

// Draws attempts from the generator at `state` until `want` (<= kCapacity) are accepted, and
// returns the state just after the last attempt that was needed, as normal() would leave it.
// SplitMix64 is a counter, so attempt a's uniforms are outputs 2a + 1 and 2a + 2 from `state`, and
// a block of attempts is drawn in vector lanes, kLanes at a time; then the accepted ones are
// appended in order without a branch: each attempt is written at the count, which moves past it
// only if it was accepted (the count is below `want` at every write).
uint64_t take_polar_pairs(uint64_t state, size_t want, PolarPairs& out) {
  assert(want >= 1 && want <= PolarPairs::kCapacity);
  constexpr int kBlock = 8 * kLanes;  // attempts per block
  Lanes64 step_u, step_v;
  for (int l = 0; l < kLanes; ++l) {
    step_u[l] = kGolden * static_cast<uint64_t>(2 * l + 1);
    step_v[l] = kGolden * static_cast<uint64_t>(2 * l + 2);
  }
  alignas(64) double block_u[kBlock], block_v[kBlock], block_s[kBlock];
  size_t taken = 0;
  for (;;) {
    for (int b = 0; b < kBlock; b += kLanes) {
      const uint64_t at = state + kGolden * static_cast<uint64_t>(2 * b);
      const Lanes64 bits_u = splitmix_output(at + step_u), bits_v = splitmix_output(at + step_v);
      const Lanes u = 2.0 * (__builtin_convertvector(bits_u >> 11, Lanes) * 0x1.0p-53) - 1.0;
      const Lanes v = 2.0 * (__builtin_convertvector(bits_v >> 11, Lanes) * 0x1.0p-53) - 1.0;
      const Lanes s = u * u + v * v;
      __builtin_memcpy(block_u + b, &u, sizeof u);
      __builtin_memcpy(block_v + b, &v, sizeof v);
      __builtin_memcpy(block_s + b, &s, sizeof s);
    }
    for (int a = 0; a < kBlock; ++a) {
      out.u[taken] = block_u[a];
      out.v[taken] = block_v[a];
      out.s[taken] = block_s[a];
      taken += block_s[a] < 1.0 && block_s[a] != 0.0;
      if (taken == want) return state + kGolden * static_cast<uint64_t>(2 * a + 2);
    }
    state += kGolden * static_cast<uint64_t>(2 * kBlock);
  }
}

// The exact factor sqrt(-2 ln s / s) of the polar method, as normal() computes it.
double exact_factor(double s) { return std::sqrt(-2.0 * log_portable(s) / s); }

// 1/k for the series' odd divisors k = 1, 3, ..., 21, each correctly rounded (compile-time division).
constexpr int kFastTerms = 11;
constexpr double kInverseOdd[kFastTerms] = {1.0,        1.0 / 3.0,  1.0 / 5.0,  1.0 / 7.0,  1.0 / 9.0, 1.0 / 11.0,
                                            1.0 / 13.0, 1.0 / 15.0, 1.0 / 17.0, 1.0 / 19.0, 1.0 / 21.0};

// The polar method's factor for n values of s, close to exact_factor's but not always its bits: the
// same series with multiplications by rounded reciprocals instead of divisions, and always its
// first 11 terms. Plain loops over independent values, which the compiler vectorises.
//
// How close (u = 2^-53, every operation rounded to nearest, no fused multiply-add): each quotient
// term/k becomes term * RN(1/k), off by at most 3u of it; the terms from the 12th on are below
// 2^-60 of the sum (|z| < 0.1716); the exact series sums 20 terms recursively and this one 11, all
// of one sign, rounding by at most 19u and 10u of their totals. So the two sums differ by at most
// 33u of theirs; the logarithms by 35u (|2 sum| is never more than |ln s|: adding e ln 2 cannot
// cancel digits); -2 ln s / s by 37u; the square roots by 20.5u (half, and each rounds once); a value
// u * factor * stddev by 24.5u, which is less than 25 of its own ulps. kFastValueError rounds that up.
void approximate_factors(const double* s, double* factor, size_t n) {
  for (size_t p = 0; p < n; ++p) {
    double m = 0.0;
    int e = 0;
    split_normal_double(s[p], m, e);
    const double z = (m - 1.0) / (m + 1.0), z2 = z * z;
    double term = z, sum = 0.0;
    for (int j = 0; j < kFastTerms; ++j) {
      sum += term * kInverseOdd[j];
      term *= z2;
    }
    factor[p] = std::sqrt(-2.0 * (2.0 * sum + e * kLn2) / s[p]);
  }
}

constexpr uint64_t kFastValueError = 32;  // ulps of the value, from the argument above
// fill_normal's band around each midpoint: 16 times the proven need (twice kFastValueError), at a
// cost of about one value in 130,000 redone exactly (a value near a midpoint has its pair redone).
constexpr uint64_t kDefaultRecheckUlps = 1024;

// Whether a double within `band` of its ulps of x could round to another float than x does: x lies
// that close to a midpoint between two floats (the 29 bits a float drops are near 2^28), or it is
// too small for a float's normal range. Far from every midpoint, all such doubles round alike.
bool near_float_midpoint(double x, uint64_t band) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  const uint64_t dropped = bits & ((uint64_t{1} << 29) - 1);
  const uint64_t exponent = (bits >> 52) & 0x7FF;
  return dropped - ((uint64_t{1} << 28) - band) <= 2 * band || exponent < 1023 - 120;
}

}  // namespace

void Rng::fill_normal(float* out, size_t n, double stddev) {
  fill_normal_checked(out, n, stddev, kDefaultRecheckUlps);
}

size_t Rng::fill_normal_checked(float* out, size_t n, double stddev, uint64_t recheck_ulps) {
  // Twice the largest difference the fast factor can make, and never less: the doubles the fast and
  // the exact way give can then never lie on two sides of a midpoint.
  const uint64_t band = std::min(std::max(recheck_ulps, 2 * kFastValueError), uint64_t{1} << 28);
  size_t i = 0, redone = 0;
  if (n > 0 && has_spare_) out[i++] = static_cast<float>(normal() * stddev);
  PolarPairs pairs;
  double factor[PolarPairs::kCapacity];
  unsigned char recheck[PolarPairs::kCapacity];
  while (i < n) {
    // Exactly the pairs the next normal() calls would accept: ceil(remaining / 2), at most a batch.
    const size_t want = std::min(PolarPairs::kCapacity, (n - i + 1) / 2);
    state_ = take_polar_pairs(state_, want, pairs);
    approximate_factors(pairs.s, factor, want);
    const size_t whole = std::min(want, (n - i) / 2);  // pairs whose both values are used
    unsigned char any = 0;
    for (size_t p = 0; p < whole; ++p) {
      const double a = pairs.u[p] * factor[p] * stddev, b = pairs.v[p] * factor[p] * stddev;
      out[i + 2 * p] = static_cast<float>(a);
      out[i + 2 * p + 1] = static_cast<float>(b);
      recheck[p] = near_float_midpoint(a, band) | near_float_midpoint(b, band);
      any |= recheck[p];
    }
    for (size_t p = 0; any && p < whole; ++p) {
      if (!recheck[p]) continue;
      const double f = exact_factor(pairs.s[p]);
      out[i + 2 * p] = static_cast<float>(pairs.u[p] * f * stddev);
      out[i + 2 * p + 1] = static_cast<float>(pairs.v[p] * f * stddev);
      redone += 2;
    }
    i += 2 * whole;
    if (whole < want) {  // an odd count: the last pair's second value waits, exact, as normal() keeps it
      const double f = exact_factor(pairs.s[whole]);
      out[i++] = static_cast<float>(pairs.u[whole] * f * stddev);
      spare_ = pairs.v[whole] * f;
      has_spare_ = true;
    }
  }
  return redone;
}

uint64_t seed_for(uint64_t seed, std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  Rng mix(h ^ (seed * 0x9E3779B97F4A7C15ull));
  return mix.next_u64();
}

double log_portable(double x) {
  double out = 0.0;
  log_portable_batch(&x, &out, 1);  // one series for both: the lanes' stop rule is exact for one value too
  return out;
}

void log_portable_batch(const double* x, double* out, size_t n) {
  for (size_t i0 = 0; i0 < n; i0 += kLanes) {
    const size_t lanes = std::min<size_t>(kLanes, n - i0);
    Lanes m, e;
    for (size_t l = 0; l < kLanes; ++l) {
      double ml = 1.0;  // unused lanes: log 1, which stops at once
      int el = 0;
      if (l < lanes) split_normal_double(x[i0 + l], ml, el);
      m[l] = ml;
      e[l] = el;
    }
    const Lanes z = (m - 1.0) / (m + 1.0);
    const Lanes log = 2.0 * log_series_lanes(z) + e * kLn2;
    for (size_t l = 0; l < lanes; ++l) out[i0 + l] = log[l];
  }
}

Mat rng_normal_mat(Rng& rng, Eigen::Index rows, Eigen::Index cols, double stddev) {
  Mat m(rows, cols);
  rng.fill_normal(m.data(), static_cast<size_t>(m.size()), stddev);
  return m;
}

}  // namespace attnviz
