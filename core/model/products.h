// Matrix products whose bits do not depend on the CPU, the compiler's target or the thread count
// (model/lanes.h), for everything below OpenBLAS's share of linear() and for all of training. Each
// output value is computed whole by one thread, in one order, p = 0, 1, … in turn, starting from 0:
//   product_ab  (A·B):  C(i,j) = Σ_p A(i,p)·B(p,j);
//   product_atb (Aᵀ·B): C(i,j) = Σ_p A(p,i)·B(p,j);
//   product_abt (A·Bᵀ): C(i,j) = Σ_p A(i,p)·B(j,p).
// So each equals the plain loop `c = 0; for p: c += a·b;` (product_dot), bit for bit.
// Shapes: A (m, k) (for atb: (k, m)), B (k, n) (for abt: (n, k)), C (m, n). Inputs are rows of
// floats with any row stride (blocks of a Mat, a weight read in place); C may be a block too.
#pragma once
#include "base/tensor.h"

namespace attnviz {

using MatOut = Eigen::Ref<Mat>;  // a Mat or a block of one, written in place

void product_ab(MatRef a, MatRef b, MatOut c);
void product_atb(MatRef a, MatRef b, MatOut c);
void product_abt(MatRef a, MatRef b, MatOut c);
Mat product_ab(MatRef a, MatRef b);
Mat product_atb(MatRef a, MatRef b);
Mat product_abt(MatRef a, MatRef b);

// Σ_p a[p]·b[p], p in turn from 0: one value of any of the products above, with its bits.
float product_dot(const float* a, const float* b, Eigen::Index n);

// Σ_i x(i, j) for each column j, i in turn: (cols).
Vec column_sums(MatRef x);

}  // namespace attnviz
