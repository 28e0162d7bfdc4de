// The products of products.h, in register blocks: a block of 4 rows × 16 columns of C is kept in
// lanes and one row of B (times a broadcast value of A) is added per step of p; product_abt first
// copies B transposed, then does the same.
// A block's shape changes only how many values are computed at once, never the order within one,
// so rows and columns left over at the edges give the same bits as those inside. Large products
// split their rows over OpenMP threads (each value still computed whole by one thread).
#include "model/products.h"

#include <omp.h>

#include <vector>

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

// C rows [i, i + R), columns [j, j + 8·G) of A·B, or Aᵀ·B when ATransposed. With `width` < 8·G
// (the last columns, B then a zero-padded copy of them), only that many columns are stored.
template <bool ATransposed, int R, int G>
ATTNVIZ_LANES_INLINE void ab_block(const In& a, const In& b, const Out& c, Index i, Index j, Index bj, Index width) {
  const Index k = ATransposed ? a.rows : a.cols;
  Lanes acc[R][G] = {};
  for (Index p = 0; p < k; ++p) {
    const float* brow = b.row(p) + bj;
    Lanes bv[G];
    for (int g = 0; g < G; ++g) bv[g] = lanes_load(brow + kLanes * g);
    for (int r = 0; r < R; ++r) {
      const Lanes av = lanes_splat(ATransposed ? a.row(p)[i + r] : a.row(i + r)[p]);
      for (int g = 0; g < G; ++g) acc[r][g] += av * bv[g];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int g = 0; g < G; ++g) {
      float* out = c.row(i + r) + j + kLanes * g;
      if (width >= kLanes * (g + 1))
        lanes_store(out, acc[r][g]);
      else
        lanes_store_partial(out, acc[r][g], static_cast<size_t>(width - kLanes * g));
    }
}

template <bool ATransposed>
void ab_product(const In& a, const In& b, const Out& c) {
  const Index m = c.rows, n = c.cols, k = ATransposed ? a.rows : a.cols;
  // The last n mod 8 columns of B, zero-padded to a lane group: full-lane loads there too. A padded
  // lane computes a value nobody stores; the others compute exactly what they would anyway.
  const Index full = n / kLanes * kLanes, left = n - full;
  std::vector<float> panel(left > 0 ? static_cast<size_t>(k * kLanes) : 0, 0.0f);
  for (Index p = 0; p < k && left > 0; ++p)
    for (Index col = 0; col < left; ++col) panel[static_cast<size_t>(p * kLanes + col)] = b.row(p)[full + col];
  const In padded{panel.data(), k, kLanes, kLanes};
  over_row_blocks(m, m * n * k, [&](Index i, auto rows) {
    constexpr int R = decltype(rows)::value;
    Index j = 0;
    for (; j + kLanes * kBlockGroups <= n; j += kLanes * kBlockGroups)
      ab_block<ATransposed, R, kBlockGroups>(a, b, c, i, j, j, kLanes * kBlockGroups);
    for (; j + kLanes <= n; j += kLanes) ab_block<ATransposed, R, 1>(a, b, c, i, j, j, kLanes);
    if (left > 0) ab_block<ATransposed, R, 1>(a, padded, c, i, full, 0, left);
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
  // B transposed into (k, n) rows, so that the product runs as product_ab does: lanes over the
  // columns of C, p in turn. Copying B costs k·n moves against m·k·n multiply-adds; a small B (a
  // head's keys in a demo) goes to the stack, a large one to the heap.
  const Index k = b.cols(), n = b.rows();
  constexpr Index kStackValues = 2048;
  float stack[kStackValues];
  std::vector<float> heap;
  float* bt = stack;
  if (k * n > kStackValues) {
    heap.resize(static_cast<size_t>(k * n));
    bt = heap.data();
  }
  for (Index j = 0; j < n; ++j) {
    const float* row = b.data() + j * b.outerStride();
    for (Index p = 0; p < k; ++p) bt[p * n + j] = row[p];
  }
  ab_product<false>(in_of(a), In{bt, k, n, n}, out_of(c));
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

float product_dot(const float* a, const float* b, Index n) {
  float c = 0;
  for (Index p = 0; p < n; ++p) c += a[p] * b[p];
  return c;
}

Vec column_sums(MatRef x) {
  Vec out = Vec::Zero(x.cols());
  for (Index i = 0; i < x.rows(); ++i) out += x.row(i).transpose();
  return out;
}

}  // namespace attnviz
