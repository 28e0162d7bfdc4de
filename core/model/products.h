// Matrix products whose bits do not depend on the CPU, the compiler's target or the thread count
// (model/lanes.h), for everything below OpenBLAS's share of linear() and for all of training. Each
// output value is computed whole by one thread, in an order fixed by its formula alone:
//   product_ab  (A·B):  C(i,j) = Σ_p A(i,p)·B(p,j), p = 0, 1, … in turn;
//   product_atb (Aᵀ·B): C(i,j) = Σ_p A(p,i)·B(p,j), p in turn;
//   product_abt (A·Bᵀ): C(i,j) = the eight partial sums of A(i,p)·B(j,p) over p ≡ l (mod 8), each
//                       in turn, added as lanes_sum adds them.
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

// Σ_i x(i, j) for each column j, i in turn: (cols).
Vec column_sums(MatRef x);

}  // namespace attnviz
