// Compiled with -ffp-contract=off (see core/CMakeLists.txt) so no fused multiply-add can change
// a rounding between machines.
//
// Speed without changing a bit: log_portable's series stops once no term can change the sum any
// more. Every later term is smaller and of the same sign (z^k / k with |z| < 0.18), and rounding is
// monotonic, so none of them could: the stop gives exactly the bits of all 20 terms (series_terms
// says where it is safe). fill_normal draws its uniforms 8 attempts at a time, accepting exactly
// the pairs normal() would, and takes the logarithms of a whole batch of accepted pairs together,
// 8 lanes at a time, which the compiler turns into vector divisions.
#include "base/rng.h"

#include <algorithm>
#include <bit>
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
  double u[kCapacity + kLanes], v[kCapacity + kLanes], s[kCapacity + kLanes];  // kLanes of slack: see take
};

// Draws attempts kLanes at a time from the generator at `state` until `want` (<= kCapacity) are
// accepted, and returns the state just after the last attempt that was needed, as normal() would
// leave it. Each lane's uniforms come from its own counter value (SplitMix64 is a counter), so
// the lanes are independent; acceptances are appended without branches, into the slack.
uint64_t take_polar_pairs(uint64_t state, size_t want, PolarPairs& out) {
  Lanes64 step_u, step_v;
  for (int l = 0; l < kLanes; ++l) {
    step_u[l] = kGolden * static_cast<uint64_t>(2 * l + 1);
    step_v[l] = kGolden * static_cast<uint64_t>(2 * l + 2);
  }
  size_t taken = 0;
  for (;;) {
    const Lanes64 bits_u = splitmix_output(state + step_u), bits_v = splitmix_output(state + step_v);
    const Lanes u = 2.0 * (__builtin_convertvector(bits_u >> 11, Lanes) * 0x1.0p-53) - 1.0;
    const Lanes v = 2.0 * (__builtin_convertvector(bits_v >> 11, Lanes) * 0x1.0p-53) - 1.0;
    const Lanes s = u * u + v * v;
    for (int l = 0; l < kLanes; ++l) {
      out.u[taken] = u[l];
      out.v[taken] = v[l];
      out.s[taken] = s[l];
      taken += s[l] < 1.0 && s[l] != 0.0;
      if (taken == want) return state + kGolden * static_cast<uint64_t>(2 * l + 2);
    }
    state += kGolden * static_cast<uint64_t>(2 * kLanes);
  }
}

}  // namespace

void Rng::fill_normal(float* out, size_t n, double stddev) {
  size_t i = 0;
  if (n > 0 && has_spare_) out[i++] = static_cast<float>(normal() * stddev);
  PolarPairs pairs;
  double logs[PolarPairs::kCapacity], factor[PolarPairs::kCapacity];
  while (i < n) {
    // Exactly the pairs the next normal() calls would accept: ceil(remaining / 2), at most a batch.
    const size_t want = std::min(PolarPairs::kCapacity, (n - i + 1) / 2);
    state_ = take_polar_pairs(state_, want, pairs);
    log_portable_batch(pairs.s, logs, want);
    // Two plain loops, so that both vectorise (sqrt too: this file has -fno-math-errno).
    for (size_t p = 0; p < want; ++p) factor[p] = std::sqrt(-2.0 * logs[p] / pairs.s[p]);
    const size_t whole = std::min(want, (n - i) / 2);  // pairs whose both values are used
    for (size_t p = 0; p < whole; ++p) {
      out[i + 2 * p] = static_cast<float>(pairs.u[p] * factor[p] * stddev);
      out[i + 2 * p + 1] = static_cast<float>(pairs.v[p] * factor[p] * stddev);
    }
    i += 2 * whole;
    if (whole < want) {  // an odd count: the last pair's second value waits, as normal() keeps it
      out[i++] = static_cast<float>(pairs.u[whole] * factor[whole] * stddev);
      spare_ = pairs.v[whole] * factor[whole];
      has_spare_ = true;
    }
  }
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
