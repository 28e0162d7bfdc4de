// The products of products.h, in register blocks: product_ab and product_atb keep a block of 4 rows
// × 16 columns of C in lanes and add one row of B (times a broadcast value of A) per step of p;
// product_abt keeps 4 × 2 dot products, eight lanes each, and adds eight values of p per step.
// A block's shape changes only how many values are computed at once, never the order within one,
// so rows and columns left over at the edges give the same bits as those inside. Large products
// split their rows over OpenMP threads (each value still computed whole by one thread).
#include "model/products.h"

#include <omp.h>

#include "model/lanes.h"

namespace attnviz {

namespace {

using Index = Eigen::Index;

struct In {
  const float* p;
  Index rows, cols, stride;
  const float* row(Index i) const { return p + i * stride; }
};
struct Out {
  float* p;
  Index rows, cols, stride;
  float* row(Index i) const { return p + i * stride; }
};
In in_of(const MatRef& m) { return {m.data(), m.rows(), m.cols(), m.outerStride()}; }
Out out_of(MatOut& m) { return {m.data(), m.rows(), m.cols(), m.outerStride()}; }

constexpr int kBlockRows = 4;
constexpr int kBlockGroups = 2;                 // lane groups of columns in a product_ab block
constexpr Index kParallelWork = Index{1} << 22;  // multiply-adds from which threads repay their start

// Rows [0, m) of C by blocks of kBlockRows, the last ones one at a time: block(i, rows). Small
// products stay out of OpenMP altogether: entering a parallel region, even one that runs on one
// thread, costs more than a demo's (12, 16) × (16, 12) product.
template <class Block>
void over_row_blocks(Index m, Index work, const Block& block) {
  const Index blocks = (m + kBlockRows - 1) / kBlockRows;
  auto run = [&](Index bi) {
    const Index i = bi * kBlockRows;
    if (i + kBlockRows <= m)
      block(i, std::integral_constant<int, kBlockRows>{});
    else
      for (Index r = i; r < m; ++r) block(r, std::integral_constant<int, 1>{});
  };
  if (work < kParallelWork || omp_in_parallel()) {
    for (Index bi = 0; bi < blocks; ++bi) run(bi);
    return;
  }
#pragma omp parallel for schedule(static)
  for (Index bi = 0; bi < blocks; ++bi) run(bi);
}

// C rows [i, i + R), columns [j, j + 8·G) (the last group `tail` < 8 columns when Partial) of
// A·B, or Aᵀ·B when ATransposed.
template <bool ATransposed, int R, int G, bool Partial>
ATTNVIZ_LANES_INLINE void ab_block(const In& a, const In& b, const Out& c, Index i, Index j, Index tail) {
  const Index k = ATransposed ? a.rows : a.cols;
  Lanes acc[R][G] = {};
  for (Index p = 0; p < k; ++p) {
    const float* brow = b.row(p) + j;
    Lanes bv[G];
    for (int g = 0; g < G; ++g)
      bv[g] = Partial && g == G - 1 ? lanes_load_partial(brow + kLanes * g, static_cast<size_t>(tail))
                                    : lanes_load(brow + kLanes * g);
    for (int r = 0; r < R; ++r) {
      const Lanes av = lanes_splat(ATransposed ? a.row(p)[i + r] : a.row(i + r)[p]);
      for (int g = 0; g < G; ++g) acc[r][g] += av * bv[g];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int g = 0; g < G; ++g) {
      float* out = c.row(i + r) + j + kLanes * g;
      if (Partial && g == G - 1)
        lanes_store_partial(out, acc[r][g], static_cast<size_t>(tail));
      else
        lanes_store(out, acc[r][g]);
    }
}

template <bool ATransposed>
void ab_product(const In& a, const In& b, const Out& c) {
  const Index m = c.rows, n = c.cols, k = ATransposed ? a.rows : a.cols;
  over_row_blocks(m, m * n * k, [&](Index i, auto rows) {
    constexpr int R = decltype(rows)::value;
    Index j = 0;
    for (; j + kLanes * kBlockGroups <= n; j += kLanes * kBlockGroups)
      ab_block<ATransposed, R, kBlockGroups, false>(a, b, c, i, j, 0);
    for (; j + kLanes <= n; j += kLanes) ab_block<ATransposed, R, 1, false>(a, b, c, i, j, 0);
    if (j < n) ab_block<ATransposed, R, 1, true>(a, b, c, i, j, n - j);
  });
}

// C(i + r, j + s) for r < R, s < S of A·Bᵀ: dot products of rows, eight lanes each.
template <int R, int S>
ATTNVIZ_LANES_INLINE void abt_block(const In& a, const In& b, const Out& c, Index i, Index j) {
  const Index k = a.cols;
  Lanes acc[R][S] = {};
  Index p = 0;
  for (; p + kLanes <= k; p += kLanes) {
    Lanes av[R], bv[S];
    for (int r = 0; r < R; ++r) av[r] = lanes_load(a.row(i + r) + p);
    for (int s = 0; s < S; ++s) bv[s] = lanes_load(b.row(j + s) + p);
    for (int r = 0; r < R; ++r)
      for (int s = 0; s < S; ++s) acc[r][s] += av[r] * bv[s];
  }
  if (p < k) {
    const auto rest = static_cast<size_t>(k - p);
    Lanes av[R], bv[S];
    for (int r = 0; r < R; ++r) av[r] = lanes_load_partial(a.row(i + r) + p, rest);
    for (int s = 0; s < S; ++s) bv[s] = lanes_load_partial(b.row(j + s) + p, rest);
    for (int r = 0; r < R; ++r)
      for (int s = 0; s < S; ++s) acc[r][s] += av[r] * bv[s];
  }
  for (int r = 0; r < R; ++r)
    for (int s = 0; s < S; ++s) c.row(i + r)[j + s] = lanes_sum(acc[r][s]);
}

void abt_product(const In& a, const In& b, const Out& c) {
  constexpr int kBlockCols = 2;
  const Index m = c.rows, n = c.cols;
  over_row_blocks(m, m * n * a.cols, [&](Index i, auto rows) {
    constexpr int R = decltype(rows)::value;
    Index j = 0;
    for (; j + kBlockCols <= n; j += kBlockCols) abt_block<R, kBlockCols>(a, b, c, i, j);
    for (; j < n; ++j) abt_block<R, 1>(a, b, c, i, j);
  });
}

}  // namespace

void product_ab(MatRef a, MatRef b, MatOut c) {
  eigen_assert(a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
  ab_product<false>(in_of(a), in_of(b), out_of(c));
}

void product_atb(MatRef a, MatRef b, MatOut c) {
  eigen_assert(a.rows() == b.rows() && c.rows() == a.cols() && c.cols() == b.cols());
  ab_product<true>(in_of(a), in_of(b), out_of(c));
}

void product_abt(MatRef a, MatRef b, MatOut c) {
  eigen_assert(a.cols() == b.cols() && c.rows() == a.rows() && c.cols() == b.rows());
  abt_product(in_of(a), in_of(b), out_of(c));
}

Mat product_ab(MatRef a, MatRef b) {
  Mat c(a.rows(), b.cols());
  product_ab(a, b, c);
  return c;
}

Mat product_atb(MatRef a, MatRef b) {
  Mat c(a.cols(), b.cols());
  product_atb(a, b, c);
  return c;
}

Mat product_abt(MatRef a, MatRef b) {
  Mat c(a.rows(), b.rows());
  product_abt(a, b, c);
  return c;
}

Vec column_sums(MatRef x) {
  Vec out = Vec::Zero(x.cols());
  for (Index i = 0; i < x.rows(); ++i) out += x.row(i).transpose();
  return out;
}

}  // namespace attnviz
