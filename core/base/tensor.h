// The one place Eigen types are named for the rest of attnviz: float, dynamic, row-major.
// Row = query position, column = key position, everywhere. No expression templates leave core:
// public functions take `const Mat&` (or `MatRef` where a weight is read: no copy of a WeightMat or
// of a block of rows) and return plain structs holding these types.
#pragma once
#include <Eigen/Core>

namespace attnviz {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::Matrix<float, Eigen::Dynamic, 1>;       // column vector
using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic>;   // one row of a Mat
// A read-only view of a Mat, a WeightMat (base/weight_matrix.h) or a block of either, not a copy.
using MatRef = Eigen::Ref<const Mat>;

}  // namespace attnviz
