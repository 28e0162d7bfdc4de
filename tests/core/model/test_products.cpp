// products.h: the three products against double-precision references at every edge of the register
// blocks, blocks of matrices (row strides) in and out, each value independent of where it falls in
// a block and of the thread count, and pinned bits every build must give.
#include <doctest/doctest.h>

#include <omp.h>

#include <cstdint>
#include <cstring>

#include "model/products.h"

using namespace attnviz;

namespace {

// Values from a fixed recurrence (not the weight initialiser, whose stream may change): the same
// matrices in every build.
Mat fixed_matrix(Eigen::Index rows, Eigen::Index cols, uint32_t seed) {
  Mat m(rows, cols);
  uint32_t s = seed * 2654435761u + 1u;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    m.data()[i] = static_cast<float>(static_cast<int32_t>(s >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
  }
  return m;
}

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

double worst(const Mat& got, const MatD& want) {
  return got.size() == 0 ? 0.0 : (got.cast<double>() - want).cwiseAbs().maxCoeff();
}

uint64_t hash_of(const Mat& m, uint64_t h = 1469598103934665603ull) {
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    uint32_t b;
    std::memcpy(&b, m.data() + i, sizeof b);
    h = (h ^ b) * 1099511628211ull;
  }
  return h;
}

}  // namespace

TEST_CASE("products: A·B, Aᵀ·B and A·Bᵀ against double precision, at every block edge") {
  // m around the 4-row blocks, n around the 8- and 16-column groups, k around the 8-value steps.
  for (int m : {1, 3, 4, 5, 9})
    for (int k : {0, 1, 7, 8, 9, 17})
      for (int n : {1, 7, 8, 15, 16, 17, 33}) {
        CAPTURE(m);
        CAPTURE(k);
        CAPTURE(n);
        const Mat a = fixed_matrix(m, k, 1), b = fixed_matrix(k, n, 2), at = fixed_matrix(k, m, 3), bt = fixed_matrix(n, k, 4);
        const double tol = 2e-6 * (k + 1);
        CHECK(worst(product_ab(a, b), a.cast<double>() * b.cast<double>()) <= tol);
        CHECK(worst(product_atb(at, b), at.cast<double>().transpose() * b.cast<double>()) <= tol);
        CHECK(worst(product_abt(a, bt), a.cast<double>() * bt.cast<double>().transpose()) <= tol);
      }
}

TEST_CASE("products: blocks in and out, and each value independent of its place in a block") {
  const Mat big = fixed_matrix(20, 30, 5), b = fixed_matrix(11, 19, 6), bt = fixed_matrix(19, 11, 7);
  const auto a = big.block(2, 3, 13, 11);  // row stride 30
  Mat out = Mat::Constant(13, 25, 7.0f);
  product_ab(a, b, out.middleCols(2, 19));
  const Mat whole = product_ab(Mat(a), b);
  CHECK(Mat(out.middleCols(2, 19)) == whole);
  CHECK(out.col(0).isConstant(7.0f));  // nothing written outside the block
  CHECK(out.col(24).isConstant(7.0f));
  // Row 5 alone (a 1-row product) and column group 16..18 alone give the bits they have in the whole.
  for (Eigen::Index i = 0; i < 13; ++i) {
    CHECK(product_ab(a.row(i), b) == whole.row(i));
    CHECK(product_abt(a.row(i), bt) == product_abt(Mat(a), bt).row(i));
  }
  CHECK(product_ab(a, b.rightCols(3)) == whole.rightCols(3));
  CHECK(product_abt(a, bt.bottomRows(3)) == product_abt(Mat(a), bt).rightCols(3));
  const Mat at = fixed_matrix(11, 13, 8);
  CHECK(product_atb(at.rightCols(1), b) == product_atb(at, b).bottomRows(1));
}

TEST_CASE("products: every value is the plain loop over p, bit for bit (product_dot)") {
  const Mat a = fixed_matrix(9, 21, 16), b = fixed_matrix(21, 19, 17), bt = fixed_matrix(19, 21, 18), at = fixed_matrix(21, 9, 19);
  const Mat ab = product_ab(a, b), abt = product_abt(a, bt), atb = product_atb(at, b);
  const Mat b_cols = b.transpose(), at_cols = at.transpose();  // columns as rows, for product_dot
  for (Eigen::Index i = 0; i < 9; ++i)
    for (Eigen::Index j = 0; j < 19; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(ab(i, j) == product_dot(a.row(i).data(), b_cols.row(j).data(), 21));
      CHECK(abt(i, j) == product_dot(a.row(i).data(), bt.row(j).data(), 21));
      CHECK(atb(i, j) == product_dot(at_cols.row(i).data(), b_cols.row(j).data(), 21));
    }
}

TEST_CASE("products: large products split over threads give the thread count's bits") {
  const Mat a = fixed_matrix(300, 130, 9), b = fixed_matrix(130, 200, 10), bt = fixed_matrix(200, 130, 11);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Mat ab1 = product_ab(a, b), abt1 = product_abt(a, bt), atb1 = product_atb(b, Mat(a.transpose()));
  omp_set_num_threads(std::max(2, threads));
  CHECK(product_ab(a, b) == ab1);
  CHECK(product_abt(a, bt) == abt1);
  CHECK(product_atb(b, Mat(a.transpose())) == atb1);
  omp_set_num_threads(threads);
}

TEST_CASE("products: the same bits in every build") {
  const Mat a = fixed_matrix(13, 37, 12), b = fixed_matrix(37, 21, 13), bt = fixed_matrix(21, 37, 14),
            at = fixed_matrix(37, 13, 15);
  CHECK(hash_of(product_ab(a, b)) == 0xd736d33c3be08448ull);
  CHECK(hash_of(product_atb(at, b)) == 0x97cd1c9094c74980ull);
  CHECK(hash_of(product_abt(a, bt)) == 0x915d8c32787e5053ull);
  CHECK(hash_of(Mat(column_sums(a).transpose())) == 0x3e4a53dfaa198e5bull);
}
