// e^x for a short run of floats, several at a time in vector lanes, with exactly the bits std::exp
// (glibc's expf) gives each value. A softmax row shorter than one vector register (16 floats with
// AVX-512: every coreference training example) is out of Eigen's vector code, so each of its
// exponentials was a libm call: 9% of a training step with 16 heads, 3% in lanes. Keeping libm's
// bits keeps every trained model the same bytes (the shipped demos retrain bit for bit).
#pragma once
#include <cstddef>

namespace attnviz {

// out[i] = std::exp(x[i]) for i < n, bit for bit; out may be x itself. Uses glibc's
// algorithm (a 32-entry table of 2^(i/32) and a cubic, in double precision, with its FMA build's
// fused operations) where the build targets AVX-512 and links glibc; elsewhere, and for |x| ≥ 88
// or NaN, it calls std::exp.
void exp_lanes(const float* x, float* out, size_t n);

// Whether exp_lanes computes in lanes on this build (false: it calls std::exp for every value).
bool exp_lanes_vectorised();

}  // namespace attnviz
