// Shrinking a long input's (T, T) attention map for display: each output cell is the MAXIMUM of
// the block of cells it covers, so a sharp peak (one key getting all the weight) is never averaged
// away. Blocks tile the matrix exactly; their sizes differ by at most one cell.
#pragma once
#include <Eigen/Core>

#include "base/tensor.h"

namespace attnviz {

// The first row (or column) of output block i when n cells are shared among `out` blocks.
inline int downsample_block_start(int i, int n, int out) {
  return static_cast<int>(static_cast<int64_t>(i) * n / out);
}

// At most max_rows x max_cols cells (a side already within its limit is kept cell for cell).
// max_rows, max_cols >= 1.
Mat downsample_max(const Eigen::Ref<const Mat>& m, int max_rows, int max_cols);

}  // namespace attnviz
