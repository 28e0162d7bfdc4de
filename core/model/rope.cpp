// Frequencies follow transformers' _compute_default_rope_parameters, the linear variant and
// _compute_llama3_parameters step by step in float32 (Python scalars meet float32 tensors there, so
// they are rounded to float first).
#include "model/rope.h"

#include <cmath>

namespace attnviz {

std::vector<float> rope_inv_freq(const ModelConfig& c) {
  const int dims = c.rotary_dims();
  const RopeConfig& r = c.rope;
  std::vector<float> inv(static_cast<size_t>(dims / 2));
  for (int d = 0; d < dims / 2; ++d) {
    // 1.0 / (base ** (arange(0, dims, 2).float() / dims))
    const float exponent = static_cast<float>(2 * d) / static_cast<float>(dims);
    inv[static_cast<size_t>(d)] = 1.0f / std::pow(r.theta, exponent);
  }
  if (r.scaling == RopeScaling::linear) {
    for (float& f : inv) f /= r.factor;
  } else if (r.scaling == RopeScaling::divisors) {
    for (size_t d = 0; d < inv.size() && d < r.divisors.size(); ++d) inv[d] /= r.divisors[d];
  } else if (r.scaling == RopeScaling::llama3) {
    const float orig = static_cast<float>(r.original_max_positions);
    const float low_wavelen = static_cast<float>(static_cast<double>(r.original_max_positions) / r.low_freq_factor);
    const float high_wavelen = static_cast<float>(static_cast<double>(r.original_max_positions) / r.high_freq_factor);
    const float band = static_cast<float>(static_cast<double>(r.high_freq_factor) - r.low_freq_factor);
    const float two_pi = static_cast<float>(2.0 * 3.14159265358979323846);
    for (float& f : inv) {
      const float wavelen = two_pi / f;
      const float scaled = wavelen > low_wavelen ? f / r.factor : f;  // long wavelengths: divided
      const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
      if (medium) {  // in between: blended from divided to unchanged
        const float smooth = (orig / wavelen - r.low_freq_factor) / band;
        f = (1.0f - smooth) * scaled / r.factor + smooth * scaled;
      } else {
        f = scaled;
      }
    }
  }
  return inv;
}

RopeTable rope_table(const std::vector<float>& inv, int first_position, int rows) {
  const auto half = static_cast<Eigen::Index>(inv.size());
  RopeTable t{Mat(rows, half), Mat(rows, half)};
  for (Eigen::Index r = 0; r < rows; ++r) {
    const float position = static_cast<float>(first_position + r);
    for (Eigen::Index d = 0; d < half; ++d) {
      const double angle = static_cast<double>(position * inv[static_cast<size_t>(d)]);
      t.cos(r, d) = static_cast<float>(std::cos(angle));
      t.sin(r, d) = static_cast<float>(std::sin(angle));
    }
  }
  return t;
}

void rope_apply(Mat& x, int heads, int hs, const RopeTable& t) {
  const Eigen::Index half = t.cos.cols();
  for (int h = 0; h < heads; ++h) {
    auto a = x.middleCols(h * hs, half);
    auto b = x.middleCols(h * hs + half, half);
    const Mat a0 = a;
    a = (a0.array() * t.cos.array() - b.array() * t.sin.array()).matrix();
    b = (b.array() * t.cos.array() + a0.array() * t.sin.array()).matrix();
  }
}

void rope_apply_naive(Mat& x, int heads, int hs, const std::vector<float>& inv, int first_position) {
  const auto half = static_cast<Eigen::Index>(inv.size());
  for (int h = 0; h < heads; ++h)
    for (Eigen::Index t = 0; t < x.rows(); ++t) {
      const float position = static_cast<float>(first_position + t);
      for (Eigen::Index d = 0; d < half; ++d) {
        const double angle = static_cast<double>(position * inv[static_cast<size_t>(d)]);
        const Eigen::Index i = h * hs + d, j = i + half;
        const double a = x(t, i), b = x(t, j);
        x(t, i) = static_cast<float>(a * std::cos(angle) - b * std::sin(angle));
        x(t, j) = static_cast<float>(b * std::cos(angle) + a * std::sin(angle));
      }
    }
}

}  // namespace attnviz
