// Compiled with -ffp-contract=off (see core/CMakeLists.txt) so no fused multiply-add can change
// a rounding between machines.
#include "base/rng.h"

#include <cmath>

namespace attnviz {

uint64_t Rng::next_u64() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(z), z = (m - 1) / (m + 1), |z| < 0.172.
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1): exact
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  const double z = (m - 1.0) / (m + 1.0);
  const double z2 = z * z;
  double term = z, sum = 0.0;
  for (int k = 1; k < 40; k += 2) {  // z^2 < 0.03: 20 terms reach far below one ulp
    sum += term / k;
    term *= z2;
  }
  return 2.0 * sum + e * 0.69314718055994530942;
}

Mat rng_normal_mat(Rng& rng, Eigen::Index rows, Eigen::Index cols, double stddev) {
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal() * stddev);
  return m;
}

}  // namespace attnviz
