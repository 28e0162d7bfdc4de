// The numeric building blocks of the forward pass. Each optimised kernel has a plain-loop `_naive`
// twin (as llm.c does); tests compare the two. Shapes: T rows (tokens), C/F columns (features).
#pragma once
#include <string_view>

#include "base/tensor.h"
#include "model/config.h"

namespace attnviz {

// Which kernels a product may use: the fastest on this machine (OpenBLAS or Eigen for large weights,
// whose bits depend on the CPU), or only products.h, the same bits on every CPU, which training uses
// so that a model retrains to the same bytes anywhere. Below 2^18 weights both are products.h.
enum class Products { fastest, portable };

// y = x · wᵀ + b, PyTorch's nn.Linear: x (T, in), w (out, in), b (out) -> (T, out). With
// Products::fastest, weights of 2^18 values and more go to OpenBLAS (16 rows and more, when
// linear_uses_blas()) or Eigen (16 rows and more otherwise), or, for fewer rows, to a kernel that
// reads each weight once without copying them; everything else is product_abt.
Mat linear(const Mat& x, MatRef w, const Vec& b, Products products = Products::fastest);
// Whether this machine's OpenBLAS has a kernel for its CPU's vector unit (not the SSE3 fallback it
// takes on a CPU it does not know); when not, every product stays in Eigen.
bool linear_uses_blas();
// The rule behind it, for OpenBLAS's name of its kernel ("Haswell", "SkylakeX", "Zen", "Prescott").
bool blas_kernel_fits(std::string_view corename);
Mat linear_naive(const Mat& x, MatRef w, const Vec& b);

// Row-wise softmax of scores + mask (mask: 0 or -inf). Subtracts the row maximum so logits of
// ±1e4 stay finite; a hidden key's weight is exactly 0 (exp_portable(-inf)); a row whose every key
// is hidden becomes all zeros, never NaN.
Mat softmax_masked(const Mat& scores, const Mat& mask);
// The same, in place on scores (which become the weights): no second (Tq, Tk) matrix.
void softmax_masked_in_place(Mat& scores, const Mat& mask);
Mat softmax_masked_naive(const Mat& scores, const Mat& mask);
// One row of n scores, mask already added, in place: the same steps and bits as a row of softmax_masked.
void softmax_row_in_place(float* row, Eigen::Index n);

// LayerNorm over each row with biased variance, as torch.nn.LayerNorm.
Mat layer_norm(const Mat& x, const Vec& w, const Vec& b, float eps);
Mat layer_norm_naive(const Mat& x, const Vec& w, const Vec& b, float eps);
// RMSNorm over each row, as transformers' LlamaRMSNorm in float32: x · rsqrt(mean(x²) + eps) · w.
Mat rms_norm(const Mat& x, const Vec& w, float eps);
Mat rms_norm_naive(const Mat& x, const Vec& w, float eps);
// The model's norm (config.norm_kind): LayerNorm with w and b, or RMSNorm with w (b unused).
Mat norm_apply(const Mat& x, const Vec& w, const Vec& b, const ModelConfig& config);
Mat norm_apply_naive(const Mat& x, const Vec& w, const Vec& b, const ModelConfig& config);

// GELU's constants, shared by the kernels and their gradients (core/train/backward.cpp): 1/√2 and √(2/π).
inline constexpr float kInvSqrt2 = 0.70710678118654752f;
inline constexpr float kSqrt2OverPi = 0.79788456080286536f;

// relu, gelu (exact, erf), gelu_tanh (GPT-2's approximation) or silu (x·sigmoid(x)), in place.
void activation_apply(Mat& x, Activation a);
float activation_naive(float x, Activation a);

// Bahdanau additive scores: out(i, j) = Σ_a v_a tanh(pq(i, a) + pk(j, a)); pq (Tq, A), pk (Tk, A), v (A).
Mat additive_scores(const Mat& pq, const Mat& pk, const RowVec& v);
// Query row i's block of those tanh terms, th(j, a) = tanh(pq(i, a) + pk(j, a)) for every key j, into
// th (Tk, A); the additive backward recomputes it so.
void additive_tanh_block(const Mat& pq, Eigen::Index i, const Mat& pk, Mat& th);
Mat additive_scores_naive(const Mat& pq, const Mat& pk, const RowVec& v);

}  // namespace attnviz
