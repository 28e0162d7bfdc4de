// Compiled with -ffp-contract=off (see core/CMakeLists.txt) so no fused multiply-add can change
// a rounding between machines.
//
// Philox4x32-10's normal stream: every value is a function of (key, index) alone, so a tensor is
// drawn in parts on any number of threads, and in vector lanes: the blocks by SSE2 or AVX2 integer
// products (each is exact, so every path gives the same words), the Box-Muller transform by plain
// loops the compiler vectorises. The transform uses + - * / and sqrt only, in float, never on a
// subnormal, so each value is the same bits on every machine: the logarithm, sine and cosine are
// short series of our own after an exact range reduction, each within a few float ulps.
//
// The polar method's speed without changing a bit:
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
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

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
      recheck[p] = int(near_float_midpoint(a, band)) | int(near_float_midpoint(b, band));  // no branch: the loop vectorises
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

namespace {

constexpr std::string_view kGeneratorNames[] = {"polar-splitmix64", "philox4x32-10"};

// Philox4x32's constants: the round's two multipliers and the key's increments (the golden ratio's
// and sqrt(3) - 1's first 32 bits), as the paper gives them.
constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

// Values come in groups of 32 from 8 blocks (the layout philox_fill_normal describes), so that a
// group's four runs of 8 are stored as they are computed, lane by lane.
constexpr size_t kGroupBlocks = 8, kGroupValues = 32;
constexpr size_t kBatchBlocks = 256;  // blocks drawn at once: 4 KB of words, 4 KB of values

// A batch's words, word by word: w[q][j] is word q of block first + j.
struct PhiloxWords {
  alignas(64) uint32_t w[4][kBatchBlocks];
};

// Blocks [first, first + count) one at a time, for any count up to a batch.
void philox_blocks_scalar(uint64_t key, uint64_t first, size_t count, PhiloxWords& out) {
  const std::array<uint32_t, 2> k = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  for (size_t j = 0; j < count; ++j) {
    const uint64_t block = first + j;
    const auto words = philox4x32_10({static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0, 0}, k);
    for (int q = 0; q < 4; ++q) out.w[q][j] = words[static_cast<size_t>(q)];
  }
}

#if defined(__SSE2__)
// The rounds in vector lanes of 64 bits, one block per lane, a word in each lane's low half. The
// 32 x 32 -> 64-bit product (pmuludq) reads only the low halves, so the high halves are left to
// hold whatever the xors put there and are dropped when the words are packed.
#if defined(__AVX2__)
struct PhiloxLanes {
  using V = __m256i;
  static constexpr size_t kLanes = 4;
  static V set1(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static V counters(uint64_t first) { return _mm256_add_epi64(set1(first), _mm256_setr_epi64x(0, 1, 2, 3)); }
  static V mul(V a, V b) { return _mm256_mul_epu32(a, b); }
  static V high(V a) { return _mm256_srli_epi64(a, 32); }
  static V xor3(V a, V b, V c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  // The low halves of a's and then b's lanes, as 8 words.
  static void store_low(uint32_t* out, V a, V b) {
    const V even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const V pa = _mm256_permutevar8x32_epi32(a, even), pb = _mm256_permutevar8x32_epi32(b, even);
    _mm256_storeu_si256(reinterpret_cast<V*>(out), _mm256_permute2x128_si256(pa, pb, 0x20));
  }
};
#else
struct PhiloxLanes {
  using V = __m128i;
  static constexpr size_t kLanes = 2;
  static V set1(uint64_t x) { return _mm_set1_epi64x(static_cast<long long>(x)); }
  static V counters(uint64_t first) { return _mm_add_epi64(set1(first), _mm_set_epi64x(1, 0)); }
  static V mul(V a, V b) { return _mm_mul_epu32(a, b); }
  static V high(V a) { return _mm_srli_epi64(a, 32); }
  static V xor3(V a, V b, V c) { return _mm_xor_si128(_mm_xor_si128(a, b), c); }
  static void store_low(uint32_t* out, V a, V b) {
    const V pa = _mm_shuffle_epi32(a, _MM_SHUFFLE(3, 1, 2, 0)), pb = _mm_shuffle_epi32(b, _MM_SHUFFLE(3, 1, 2, 0));
    _mm_storeu_si128(reinterpret_cast<V*>(out), _mm_unpacklo_epi64(pa, pb));
  }
};
#endif

// A whole batch, blocks [first, first + kBatchBlocks): two vectors of blocks at a time, so that one
// vector's products overlap the other's xors.
void philox_batch(uint64_t key, uint64_t first, PhiloxWords& out) {
  using L = PhiloxLanes;
  using V = L::V;
  V k0[kPhiloxRounds], k1[kPhiloxRounds];  // the key of each round, in every lane
  uint32_t a = static_cast<uint32_t>(key), b = static_cast<uint32_t>(key >> 32);
  for (int r = 0; r < kPhiloxRounds; ++r, a += kPhiloxW0, b += kPhiloxW1) {
    k0[r] = L::set1(a);
    k1[r] = L::set1(b);
  }
  const V m0 = L::set1(kPhiloxM0), m1 = L::set1(kPhiloxM1), zero = L::set1(0);
  for (size_t j = 0; j < kBatchBlocks; j += 2 * L::kLanes) {
    const V ca = L::counters(first + j), cb = L::counters(first + j + L::kLanes);
    V a0 = ca, a1 = L::high(ca), a2 = zero, a3 = zero;
    V b0 = cb, b1 = L::high(cb), b2 = zero, b3 = zero;
    for (int r = 0; r < kPhiloxRounds; ++r) {
      const V pa0 = L::mul(a0, m0), pa2 = L::mul(a2, m1), pb0 = L::mul(b0, m0), pb2 = L::mul(b2, m1);
      a0 = L::xor3(L::high(pa2), a1, k0[r]);
      a2 = L::xor3(L::high(pa0), a3, k1[r]);
      a1 = pa2;
      a3 = pa0;
      b0 = L::xor3(L::high(pb2), b1, k0[r]);
      b2 = L::xor3(L::high(pb0), b3, k1[r]);
      b1 = pb2;
      b3 = pb0;
    }
    L::store_low(&out.w[0][j], a0, b0);
    L::store_low(&out.w[1][j], a1, b1);
    L::store_low(&out.w[2][j], a2, b2);
    L::store_low(&out.w[3][j], a3, b3);
  }
}
#else
void philox_batch(uint64_t key, uint64_t first, PhiloxWords& out) {
  philox_blocks_scalar(key, first, kBatchBlocks, out);
}
#endif

// 1/k for the series below, each the float nearest (compile-time division, correctly rounded).
constexpr float kInv3 = 1.0f / 3, kInv5 = 1.0f / 5, kInv7 = 1.0f / 7, kInv9 = 1.0f / 9;
constexpr float kInvFact[] = {1.0f,       1.0f,        1.0f / 2,     1.0f / 6,      1.0f / 24,     1.0f / 120,
                              1.0f / 720, 1.0f / 5040, 1.0f / 40320, 1.0f / 362880, 1.0f / 3628800};
constexpr float kLn2f = 0.693147180559945309f;
constexpr float kQuarterTurn = 1.57079632679489662f * 0x1p-30f;  // pi/2 over the 2^30 steps of a quadrant

// The Box-Muller pair of one block's two words, times `scale`, in float:
//   u = (a >> 1 + 1/2) 2^-31 in (0, 1]: 31 bits, the smallest 2^-32, so r < 6.67;
//   ln u = e ln 2 + 2 atanh(z), u = m 2^e with m in [sqrt(1/2), sqrt(2)) taken from u's bits,
//     z = (m - 1)/(m + 1), |z| < 0.172: the series z (1 + z^2/3 + z^4/5 + z^6/7 + z^8/9) leaves out
//     less than 2e-9 of it;
//   the angle 2 pi b / 2^32 = k pi/2 + x with k = round(b / 2^30) (integer arithmetic) and
//     |x| <= pi/4: sin x to x^9/9! and cos x to x^10/10! leave out less than 2e-9;
//   sin and cos of the angle: those of x, swapped and negated by k's quadrant (sign bits).
// No step meets a subnormal (the smallest |x| is 1.5e-9), so flush-to-zero modes change nothing.
inline void box_muller(uint32_t a, uint32_t b, float scale, float& cos_out, float& sin_out) {
  const float u = (static_cast<float>(static_cast<int32_t>(a >> 1)) + 0.5f) * 0x1p-31f;
  // m and e from u's bits: subtracting sqrt(1/2)'s bits puts the exponent's step where m crosses it
  // (64 keeps the difference positive; u >= 2^-32).
  const uint32_t bits = std::bit_cast<uint32_t>(u);
  const uint32_t shifted = (bits - 0x3F3504F3u + (64u << 23)) >> 23;
  const float m = std::bit_cast<float>(bits - (shifted << 23) + (64u << 23));
  const float e = static_cast<float>(static_cast<int32_t>(shifted) - 64);
  const float z = (m - 1.0f) / (m + 1.0f), z2 = z * z;
  const float series = (((kInv9 * z2 + kInv7) * z2 + kInv5) * z2 + kInv3) * z2 + 1.0f;
  const float log_u = e * kLn2f + 2.0f * (z * series);
  const float r = std::sqrt(0.0f - 2.0f * log_u) * scale;  // 0 - : +0 rather than -0 at u = 1
  // k and x: b + 2^29 wraps past 2^32 exactly where k would be 4, a whole turn.
  const uint32_t q = b + (1u << 29);
  const uint32_t k = q >> 30;
  const float x = static_cast<float>(static_cast<int32_t>(q & ((1u << 30) - 1)) - (1 << 29)) * kQuarterTurn;
  const float x2 = x * x;
  const float sin_x = x + x * (x2 * ((((kInvFact[9] * x2 - kInvFact[7]) * x2 + kInvFact[5]) * x2) - kInvFact[3]));
  const float cos_x =
      1.0f + x2 * ((((-kInvFact[10] * x2 + kInvFact[8]) * x2 - kInvFact[6]) * x2 + kInvFact[4]) * x2 - kInvFact[2]);
  const uint32_t sb = std::bit_cast<uint32_t>(sin_x), cb = std::bit_cast<uint32_t>(cos_x);
  const uint32_t swap = 0u - (k & 1u);  // odd quadrants: sin takes cos x, cos takes sin x
  const uint32_t sin_bits = ((sb & ~swap) | (cb & swap)) ^ ((k & 2u) << 30);         // negative in quadrants 2, 3
  const uint32_t cos_bits = ((cb & ~swap) | (sb & swap)) ^ (((k + 1u) & 2u) << 30);  // and in 1, 2
  cos_out = r * std::bit_cast<float>(cos_bits);
  sin_out = r * std::bit_cast<float>(sin_bits);
}

void box_muller_lanes(const uint32_t* __restrict a, const uint32_t* __restrict b, float scale,
                      float* __restrict cos_out, float* __restrict sin_out, size_t n) {
  for (size_t j = 0; j < n; ++j) box_muller(a[j], b[j], scale, cos_out[j], sin_out[j]);
}

// The values of the first `groups` groups of a batch's words, in order, into out.
void groups_from_words(const PhiloxWords& words, size_t groups, float scale, float* out) {
  alignas(64) float c0[kBatchBlocks], s0[kBatchBlocks], c1[kBatchBlocks], s1[kBatchBlocks];
  const size_t n = groups * kGroupBlocks;
  box_muller_lanes(words.w[0], words.w[1], scale, c0, s0, n);
  box_muller_lanes(words.w[2], words.w[3], scale, c1, s1, n);
  for (size_t g = 0; g < n; g += kGroupBlocks, out += kGroupValues) {
    std::memcpy(out, c0 + g, sizeof(float) * kGroupBlocks);
    std::memcpy(out + 8, s0 + g, sizeof(float) * kGroupBlocks);
    std::memcpy(out + 16, c1 + g, sizeof(float) * kGroupBlocks);
    std::memcpy(out + 24, s1 + g, sizeof(float) * kGroupBlocks);
  }
}

}  // namespace

std::string_view rng_generator_name(RngGenerator generator) { return kGeneratorNames[static_cast<size_t>(generator)]; }

Result<RngGenerator> rng_generator_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kGeneratorNames); ++i)
    if (name == kGeneratorNames[i]) return static_cast<RngGenerator>(i);
  std::string known;
  for (std::string_view n : kGeneratorNames) known += (known.empty() ? "" : ", ") + std::string(n);
  return make_error("unknown random generator '" + std::string(name) + "' (known: " + known + ")");
}

bool rng_generator_splits(RngGenerator generator) { return generator == RngGenerator::philox4x32_10; }

void rng_fill_normal(RngGenerator generator, uint64_t stream, float* out, size_t n, double stddev) {
  if (generator == RngGenerator::philox4x32_10) {
    philox_fill_normal(stream, 0, out, n, stddev);
    return;
  }
  Rng rng(stream);
  rng.fill_normal(out, n, stddev);
}

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> key) {
  for (int r = 0; r < kPhiloxRounds; ++r) {
    const uint64_t p0 = uint64_t{kPhiloxM0} * c[0], p2 = uint64_t{kPhiloxM1} * c[2];
    c = {static_cast<uint32_t>(p2 >> 32) ^ c[1] ^ key[0], static_cast<uint32_t>(p2),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += kPhiloxW0;
    key[1] += kPhiloxW1;
  }
  return c;
}

void philox_fill_normal(uint64_t stream, uint64_t first, float* out, size_t n, double stddev) {
  const auto scale = static_cast<float>(stddev);
  PhiloxWords words;
  uint64_t v = first;
  const uint64_t end = first + n;
  // A group cut by either end of the range: drawn whole, the part asked for copied.
  auto partial_group = [&](uint64_t group) {
    float values[kGroupValues];
    philox_blocks_scalar(stream, group * kGroupBlocks, kGroupBlocks, words);
    groups_from_words(words, 1, scale, values);
    const uint64_t from = std::max(v, group * kGroupValues), to = std::min(end, (group + 1) * kGroupValues);
    std::memcpy(out + (from - first), values + (from - group * kGroupValues), sizeof(float) * (to - from));
    v = to;
  };
  if (v < end && v % kGroupValues != 0) partial_group(v / kGroupValues);
  constexpr uint64_t kBatchValues = kBatchBlocks / kGroupBlocks * kGroupValues;
  for (; end - v >= kBatchValues; v += kBatchValues) {
    philox_batch(stream, v / kGroupValues * kGroupBlocks, words);
    groups_from_words(words, kBatchBlocks / kGroupBlocks, scale, out + (v - first));
  }
  if (const uint64_t groups = (end - v) / kGroupValues; groups > 0) {  // whole groups short of a batch
    philox_blocks_scalar(stream, v / kGroupValues * kGroupBlocks, groups * kGroupBlocks, words);
    groups_from_words(words, groups, scale, out + (v - first));
    v += groups * kGroupValues;
  }
  if (v < end) partial_group(v / kGroupValues);
}

Mat rng_normal_mat(Rng& rng, Eigen::Index rows, Eigen::Index cols, double stddev) {
  Mat m(rows, cols);
  rng.fill_normal(m.data(), static_cast<size_t>(m.size()), stddev);
  return m;
}

}  // namespace attnviz
