// The one place Eigen types are named for the rest of attnviz: float, dynamic, row-major.
// Row = query position, column = key position, everywhere. No expression templates leave core:
// public functions take `const Mat&` and return plain structs holding these types.
#pragma once
#include <Eigen/Core>

namespace attnviz {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::Matrix<float, Eigen::Dynamic, 1>;       // column vector
using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic>;   // one row of a Mat

}  // namespace attnviz
