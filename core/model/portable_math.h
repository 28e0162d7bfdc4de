// e^x, tanh, erf and sums whose bits are the same on every x86-64 CPU and for every -march: written
// with + − × ÷ in a fixed order on eight lanes (model/lanes.h), no libm and no fused multiply-add.
// Everything the trainer computes goes through these (and model/products.h), so a model trains to
// the same bytes on an AVX2 laptop and an AVX-512 server, in a build for x86-64-v2 or for the
// native CPU; the forward pass shares them, so what a view shows is what training computed.
// Accuracy (tests/core/model/test_portable_math.cpp): exp within 2 ulp, tanh and erf within 4.
#pragma once
#include <cstddef>

namespace attnviz {

// out[i] = e^x[i]; out may be x. Exactly 0 for -inf (a hidden key of a masked softmax row) and below
// -104 (where e^x rounds to 0), +inf above 89, NaN for NaN.
void exp_portable(const float* x, float* out, size_t n);
float exp_portable(float x);

// out[i] = tanh(x[i]); out may be x. ±1 for ±inf, NaN for NaN.
void tanh_portable(const float* x, float* out, size_t n);
float tanh_portable(float x);

// out[i] = erf(x[i]); out may be x. ±1 beyond |x| ≥ 4 (where erf rounds to ±1), NaN for NaN.
void erf_portable(const float* x, float* out, size_t n);
float erf_portable(float x);

// Σ x[i] over eight partial sums (i mod 8, each in index order) added in one fixed order.
float sum_portable(const float* x, size_t n);
// Σ a[i]·b[i] in the same order.
float dot_portable(const float* a, const float* b, size_t n);
// Σ x[i]² in double, over four partial sums added in one fixed order (a gradient's norm).
double square_sum_portable(const float* x, size_t n);

}  // namespace attnviz
