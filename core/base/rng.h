// Deterministic random numbers for weight initialisation: the same seed gives the same bits on
// every machine and compiler. Two normal generators, both ours (std::normal_distribution and libm
// are implementation-defined): Philox4x32-10 with a float Box-Muller, counter-based, for new
// weights; SplitMix64 with Marsaglia's polar method, serial, for weights saved before it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "base/tensor.h"

namespace attnviz {

// Which generator a model's random weights come from. Files record it by name beside the seed,
// because a seed alone no longer says which weights it means.
enum class RngGenerator {
  polar_splitmix64,  // "polar-splitmix64": Rng::fill_normal, one stream drawn in order
  philox4x32_10,     // "philox4x32-10": philox_fill_normal, any part of a stream on its own
};
inline constexpr RngGenerator kRngNewest = RngGenerator::philox4x32_10;         // what new weights use
inline constexpr RngGenerator kRngUnrecorded = RngGenerator::polar_splitmix64;  // a file naming none
std::string_view rng_generator_name(RngGenerator generator);
// The generator with that name; an unknown name is an error naming it and the known ones.
Result<RngGenerator> rng_generator_from_name(std::string_view name);
// Whether a stream can be drawn in parts (philox_fill_normal's `first`), e.g. on several threads.
bool rng_generator_splits(RngGenerator generator);
// out[i] = the i-th of `stream`'s N(0, stddev²) values, i in [0, n), from either generator.
void rng_fill_normal(RngGenerator generator, uint64_t stream, float* out, size_t n, double stddev);

// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC'11): the 128-bit block for `counter` under `key`, as Random123's philox4x32 with 10 rounds.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);
// Values [first, first + n) of the normal stream keyed by `stream`: out[i] is value first + i, the
// same bits however the stream is cut into parts, on any thread, CPU or compiler. Value v comes from
// block b = 8 (v / 32) + v % 8 (counter (b, b >> 32, 0, 0), key `stream`), by Box-Muller in float:
// the block's words (w0, w1) give the pair (r cos t, r sin t) at v % 32 in [0, 8) and [8, 16) of
// its group of 32, and (w2, w3) the pair at [16, 24) and [24, 32), with r = sqrt(-2 ln u) stddev,
// u = ((w0 >> 1) + 1/2) / 2^31 and t = 2 pi w1 / 2^32 (w2, w3 alike). |value| < 6.67 stddev.
void philox_fill_normal(uint64_t stream, uint64_t first, float* out, size_t n, double stddev);

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next_u64();
  double uniform();   // [0, 1), 53 random bits
  double normal();    // N(0, 1)
  // next_u64() % n as an int, for n in [1, INT_MAX]: a draw from [0, n) (its slight bias toward
  // small values is part of the demos' recorded data, so it stays).
  int below(int n) { return static_cast<int>(next_u64() % static_cast<uint64_t>(n)); }
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
