// The kernels and their plain-loop twins. The fast ones are built on products.h and
// portable_math.h, whose bits do not depend on the CPU (OpenBLAS, for the large products of the
// forward pass, is the one exception); the naive versions accumulate in double so that a
// disagreement points at the fast kernel.
#include "model/kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include <omp.h>

#include "model/lanes.h"
#include "model/portable_math.h"
#include "model/products.h"

namespace attnviz {

namespace {

// Weight matrices from this size up go to OpenBLAS in the forward pass: the projections and FFNs of
// the sandbox and of checkpoints (GPT-2 small: 768 x 2304 and up), where its sgemm is 1.3-2x the
// other kernels here (bench/README.md). Training never uses it (Products::portable).
constexpr Eigen::Index kBlasMinWeights = Eigen::Index{1} << 18;
// ...and only for this many rows and more: for a few rows OpenBLAS's packing of the whole weight
// matrix costs more than the product (one row of GPT-2 small's FFN: 7 ms against Eigen's 0.3 ms),
// which is what typing costs once the unchanged prefix is reused (bench/README.md, "Typing").
constexpr Eigen::Index kBlasMinRows = 16;

}  // namespace

// Debian's OpenBLAS chooses its kernel when it loads, from the CPU's model number. On a CPU it does
// not know (a recent Xeon in a virtual machine, "Intel(R) Xeon(R) Processor", with AVX-512) it falls
// back to its Prescott kernel (SSE3): 33 GFLOP/s at GPT-2 small's FFN where Eigen's AVX-512 code
// reaches 155 (bench/README.md, "Forward on an Intel Xeon: 2026-11-26"). A build without AVX2 (the
// Debian package) trusts any OpenBLAS kernel: Eigen has no wider one there.
bool blas_kernel_fits(std::string_view corename) {
#if defined(__AVX2__)
  std::string core(corename);
  std::transform(core.begin(), core.end(), core.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* wide : {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"})
    if (core.rfind(wide, 0) == 0) return true;
  return false;
#else
  (void)corename;
  return true;
#endif
}

namespace {

// y = x · wᵀ with the output's columns (w's rows) cut into one contiguous part per OpenMP thread,
// each part one single-threaded Eigen product. Eigen's own threaded product shares packed blocks
// between its threads and waits for them in a spinning loop: on a busy machine a thread the kernel
// has descheduled keeps the other spinning, and a 12 x 768 forward at 16 tokens took 0.5-2.2 s
// instead of 0.15 s beside one training run (bench/README.md). Here the threads share nothing but
// x, and meet once, at the end. Small products, and any inside a parallel region (the head loop,
// training shards), run on the calling thread as one product, as before. A part rounds as Eigen
// rounds a product of its width, so y's last bits depend on the thread count (by up to about 2e-5
// in a review's random shapes), as they did with Eigen's own threading; training runs one thread
// per shard and uses products.h instead.
void product_split_by_columns(Mat& y, const Mat& x, MatRef w) {
  constexpr double kMinWorkPerThread = 50000;  // multiply-adds; Eigen's own threshold for a thread
  const double work = static_cast<double>(x.rows()) * static_cast<double>(w.rows()) * static_cast<double>(w.cols());
  constexpr Eigen::Index kColumnStep = 16;  // parts start at a vector's width: the kernel's full panels
  const Eigen::Index steps = (w.rows() + kColumnStep - 1) / kColumnStep;
  const int threads = static_cast<int>(std::min<Eigen::Index>(
      {omp_in_parallel() ? 1 : omp_get_max_threads(), static_cast<Eigen::Index>(work / kMinWorkPerThread), steps}));
  if (threads <= 1) {
    y.noalias() = x * w.transpose();
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int part = 0; part < threads; ++part) {
    const Eigen::Index first = std::min(w.rows(), steps * part / threads * kColumnStep);
    const Eigen::Index end = std::min(w.rows(), steps * (part + 1) / threads * kColumnStep);
    if (end > first) y.middleCols(first, end - first).noalias() = x * w.middleRows(first, end - first).transpose();
  }
}

// y = x · wᵀ for a few rows of x (fewer than kBlasMinRows), reading each row of w once: w's rows two
// at a time, each pair met by x's rows four at a time while the pair sits in L1, eight products in
// eight lanes of sums. A forward of a short input is then one pass over the weights. Eigen's and
// OpenBLAS's kernels first copy the whole weight matrix into panels and use each copy once: for a
// 12-token sandbox at 12 x 768 that copy was 28% of the process (bench/README.md, issue 40).
// Threads take contiguous pairs of w's rows (none inside a parallel region). Each value is one
// thread's sum in one order, so the bits do not depend on the thread count.
void product_few_rows(Mat& y, const Mat& x, MatRef w) {
  using Index = Eigen::Index;
  const Index rows = x.rows(), n = w.cols(), outs = w.rows(), whole = n / kLanes * kLanes;
  const Index pairs = (outs + 1) / 2;
  const int threads = omp_in_parallel() ? 1 : std::min<int>(omp_get_max_threads(), static_cast<int>(pairs));
  constexpr Index kRowGroup = 4;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (Index pair = 0; pair < pairs; ++pair) {
    const Index o = 2 * pair;
    const bool two = o + 1 < outs;
    const float* w0 = w.data() + o * w.outerStride();
    const float* w1 = two ? w0 + w.outerStride() : w0;
    for (Index t0 = 0; t0 < rows; t0 += kRowGroup) {
      const Index group = std::min(kRowGroup, rows - t0);
      const float* xr[kRowGroup];
      for (Index g = 0; g < kRowGroup; ++g) xr[g] = x.data() + (t0 + std::min(g, group - 1)) * x.outerStride();
      Lanes a0[kRowGroup] = {}, a1[kRowGroup] = {};
      for (Index p = 0; p < whole; p += kLanes) {
        const Lanes v0 = lanes_load(w0 + p), v1 = lanes_load(w1 + p);
        for (Index g = 0; g < kRowGroup; ++g) {
          const Lanes xv = lanes_load(xr[g] + p);
          a0[g] += xv * v0;
          a1[g] += xv * v1;
        }
      }
      if (whole < n) {
        const auto rest = static_cast<size_t>(n - whole);
        const Lanes v0 = lanes_load_partial(w0 + whole, rest), v1 = lanes_load_partial(w1 + whole, rest);
        for (Index g = 0; g < kRowGroup; ++g) {
          const Lanes xv = lanes_load_partial(xr[g] + whole, rest);
          a0[g] += xv * v0;
          a1[g] += xv * v1;
        }
      }
      for (Index g = 0; g < group; ++g) {
        y(t0 + g, o) = lanes_sum(a0[g]);
        if (two) y(t0 + g, o + 1) = lanes_sum(a1[g]);
      }
    }
  }
}

}  // namespace

bool linear_uses_blas() {
  static const bool fits = blas_kernel_fits(openblas_get_corename());
  return fits;
}

Mat linear(const Mat& x, MatRef w, const Vec& b, Products products) {
  Mat y(x.rows(), w.rows());
  const bool large = products == Products::fastest && w.size() >= kBlasMinWeights;
  if (large && x.rows() >= kBlasMinRows && linear_uses_blas()) {
    // Row-major y (T, out) = x (T, in) · wᵀ, w stored (out, in). OpenBLAS's OpenMP build shares
    // libgomp's threads and runs on one inside a parallel region (the head loop, training shards).
    const auto T = static_cast<blasint>(x.rows()), out = static_cast<blasint>(w.rows()), in = static_cast<blasint>(w.cols());
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, out, in, 1.0f, x.data(), in, w.data(),
                static_cast<blasint>(w.outerStride()), 0.0f, y.data(), out);
  } else if (large && x.rows() < kBlasMinRows) {
    product_few_rows(y, x, w);  // one pass over the weights, no copy of them
  } else if (large) {
    product_split_by_columns(y, x, w);  // Eigen's kernel: wider vectors and fused multiply-adds
  } else {
    product_abt(x, w, y);
  }
  y.rowwise() += b.transpose();
  return y;
}

Mat linear_naive(const Mat& x, MatRef w, const Vec& b) {
  Mat y(x.rows(), w.rows());
  for (Eigen::Index t = 0; t < x.rows(); ++t)
    for (Eigen::Index o = 0; o < w.rows(); ++o) {
      double acc = b(o);
      for (Eigen::Index i = 0; i < x.cols(); ++i) acc += static_cast<double>(x(t, i)) * w(o, i);
      y(t, o) = static_cast<float>(acc);
    }
  return y;
}

namespace {

// Softmax of one row with hidden entries already at -inf (their exponential is exactly 0). Returns
// zeros when nothing is visible; when some logits are +inf (overflowed scores) they share the
// weight equally.
template <class Row>
void softmax_row(Row&& row) {
  static_assert(std::decay_t<Row>::InnerStrideAtCompileTime == 1, "a row of a row-major matrix");
  const float max = row.maxCoeff();
  if (max == -std::numeric_limits<float>::infinity() || std::isnan(max)) {
    row.setZero();
    return;
  }
  if (max == std::numeric_limits<float>::infinity()) {
    row = (row.array() == max).template cast<float>();
    row /= row.sum();
    return;
  }
  const Eigen::Index n = row.size();
  row.array() -= max;
  exp_portable(row.data(), row.data(), static_cast<size_t>(n));
  row /= sum_portable(row.data(), static_cast<size_t>(n));
}

}  // namespace

void softmax_row_in_place(float* row, Eigen::Index n) { softmax_row(Eigen::Map<RowVec>(row, n)); }

Mat softmax_masked(const Mat& scores, const Mat& mask) {
  Mat w = scores + mask;
  for (Eigen::Index i = 0; i < w.rows(); ++i) softmax_row(w.row(i));
  return w;
}

void softmax_masked_in_place(Mat& scores, const Mat& mask) {
  scores += mask;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) softmax_row(scores.row(i));
}

Mat softmax_masked_naive(const Mat& scores, const Mat& mask) {
  Mat w(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    float max = -std::numeric_limits<float>::infinity();
    for (Eigen::Index j = 0; j < scores.cols(); ++j)
      if (std::isfinite(mask(i, j)) && scores(i, j) > max) max = scores(i, j);
    double sum = 0.0;
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      const bool visible = std::isfinite(mask(i, j)) && max > -std::numeric_limits<float>::infinity();
      w(i, j) = visible ? std::exp(scores(i, j) - max) : 0.0f;
      sum += w(i, j);
    }
    for (Eigen::Index j = 0; j < scores.cols(); ++j) w(i, j) = sum > 0 ? static_cast<float>(w(i, j) / sum) : 0.0f;
  }
  return w;
}

Mat layer_norm(const Mat& x, const Vec& w, const Vec& b, float eps) {
  Mat y(x.rows(), x.cols());
  const float n = static_cast<float>(x.cols());
  const auto C = static_cast<size_t>(x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const float mean = sum_portable(x.row(t).data(), C) / n;
    const RowVec centred = x.row(t).array() - mean;
    const float var = dot_portable(centred.data(), centred.data(), C) / n;
    const float inv = 1.0f / std::sqrt(var + eps);
    y.row(t) = (centred.array() * inv) * w.transpose().array() + b.transpose().array();
  }
  return y;
}

Mat layer_norm_naive(const Mat& x, const Vec& w, const Vec& b, float eps) {
  Mat y(x.rows(), x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    double mean = 0, var = 0;
    for (Eigen::Index i = 0; i < x.cols(); ++i) mean += x(t, i);
    mean /= static_cast<double>(x.cols());
    for (Eigen::Index i = 0; i < x.cols(); ++i) var += (x(t, i) - mean) * (x(t, i) - mean);
    var /= static_cast<double>(x.cols());
    for (Eigen::Index i = 0; i < x.cols(); ++i)
      y(t, i) = static_cast<float>((x(t, i) - mean) / std::sqrt(var + eps) * w(i) + b(i));
  }
  return y;
}

Mat rms_norm(const Mat& x, const Vec& w, float eps) {
  Mat y(x.rows(), x.cols());
  const float n = static_cast<float>(x.cols());
  const auto C = static_cast<size_t>(x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const float inv = 1.0f / std::sqrt(dot_portable(x.row(t).data(), x.row(t).data(), C) / n + eps);
    y.row(t) = (x.row(t).array() * inv) * w.transpose().array();
  }
  return y;
}

Mat rms_norm_naive(const Mat& x, const Vec& w, float eps) {
  Mat y(x.rows(), x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    double ms = 0;
    for (Eigen::Index i = 0; i < x.cols(); ++i) ms += static_cast<double>(x(t, i)) * x(t, i);
    ms /= static_cast<double>(x.cols());
    for (Eigen::Index i = 0; i < x.cols(); ++i) y(t, i) = static_cast<float>(x(t, i) / std::sqrt(ms + eps) * w(i));
  }
  return y;
}

Mat norm_apply(const Mat& x, const Vec& w, const Vec& b, const ModelConfig& c) {
  return c.norm_kind == NormKind::rms_norm ? rms_norm(x, w, c.ln_eps) : layer_norm(x, w, b, c.ln_eps);
}

Mat norm_apply_naive(const Mat& x, const Vec& w, const Vec& b, const ModelConfig& c) {
  return c.norm_kind == NormKind::rms_norm ? rms_norm_naive(x, w, c.ln_eps) : layer_norm_naive(x, w, b, c.ln_eps);
}

float activation_naive(float x, Activation a) {
  switch (a) {
    case Activation::relu: return x > 0.0f ? x : 0.0f;
    case Activation::gelu: return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
    case Activation::gelu_tanh: return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
    case Activation::silu: return x / (1.0f + std::exp(-x));
  }
  return x;
}

void activation_apply(Mat& x, Activation a) {
  auto arr = x.array();
  const auto n = static_cast<size_t>(x.size());
  Mat f(x.rows(), x.cols());  // the transcendental part, value by value
  switch (a) {
    case Activation::relu: x = x.cwiseMax(0.0f); return;
    case Activation::gelu:
      f = x * kInvSqrt2;
      erf_portable(f.data(), f.data(), n);
      x = (0.5f * arr * (1.0f + f.array())).matrix();
      return;
    case Activation::gelu_tanh:
      f = (kSqrt2OverPi * (arr + 0.044715f * arr.cube())).matrix();
      tanh_portable(f.data(), f.data(), n);
      x = (0.5f * arr * (1.0f + f.array())).matrix();
      return;
    case Activation::silu:
      f = -x;
      exp_portable(f.data(), f.data(), n);
      x = (arr / (1.0f + f.array())).matrix();
      return;
  }
}

void additive_tanh_block(const Mat& pq, Eigen::Index i, const Mat& pk, Mat& th) {
  th = pk.rowwise() + pq.row(i);
  tanh_portable(th.data(), th.data(), static_cast<size_t>(th.size()));
}

Mat additive_scores(const Mat& pq, const Mat& pk, const RowVec& v) {
  Mat out(pq.rows(), pk.rows());
  Mat th(pk.rows(), pk.cols());
  for (Eigen::Index i = 0; i < pq.rows(); ++i) {
    additive_tanh_block(pq, i, pk, th);
    product_abt(v, th, out.row(i));  // Σ_a v_a th(j, a) for every key j
  }
  return out;
}

Mat additive_scores_naive(const Mat& pq, const Mat& pk, const RowVec& v) {
  Mat out(pq.rows(), pk.rows());
  for (Eigen::Index i = 0; i < pq.rows(); ++i)
    for (Eigen::Index j = 0; j < pk.rows(); ++j) {
      double acc = 0;
      for (Eigen::Index a = 0; a < v.size(); ++a) acc += v(a) * std::tanh(static_cast<double>(pq(i, a)) + pk(j, a));
      out(i, j) = static_cast<float>(acc);
    }
  return out;
}

}  // namespace attnviz
