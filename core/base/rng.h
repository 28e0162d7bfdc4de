// Deterministic random numbers for weight initialisation: the same seed gives the same bits on
// every machine and compiler. Our own generator (SplitMix64) and normal sampler (Marsaglia's polar
// method with our own logarithm) — std::normal_distribution and libm are implementation-defined.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/tensor.h"

namespace attnviz {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  double uniform();   // [0, 1), 53 random bits
  double normal();    // N(0, 1)
  // out[i] = float(normal() * stddev) for i in [0, n): the same values, and the generator left in
  // the same state, as n calls of normal(), many times faster (see fill_normal_checked).
  void fill_normal(float* out, size_t n, double stddev);
  // fill_normal's work: each value comes from a fast approximation of the polar method's factor,
  // provably within 25 ulps of the exact double, and is redone exactly only when that double lies
  // within `recheck_ulps` (never fewer than 64; fill_normal uses 1,024) of a midpoint between two floats, where the two
  // could round apart. Returns how many values were redone; tests widen the band to exercise it.
  size_t fill_normal_checked(float* out, size_t n, double stddev, uint64_t recheck_ulps);

 private:
  uint64_t state_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// FNV-1a over the bytes, then mixed with the seed: a stable stream per (seed, name), so adding a
// tensor to a model never changes the values of the others.
uint64_t seed_for(uint64_t seed, std::string_view name);

// A (rows, cols) matrix of N(0, stddev²) draws from rng, row by row.
Mat rng_normal_mat(Rng& rng, Eigen::Index rows, Eigen::Index cols, double stddev);

// Natural logarithm of a positive normal double (what the normal sampler passes) from + - * / and
// the number's own bits only, within a few ulp; used instead of std::log so that the normal sampler
// is bit-identical everywhere.
double log_portable(double x);
// log_portable of n positive normal (not subnormal) doubles, bit for bit, with lane-parallel arithmetic.
void log_portable_batch(const double* x, double* out, size_t n);

}  // namespace attnviz
