// Max-pooling over exact tilings: rows first, then columns, one pass each.
#include "render/downsample.h"

#include <algorithm>

namespace attnviz {

Mat downsample_max(const Eigen::Ref<const Mat>& m, int max_rows, int max_cols) {
  const int R = static_cast<int>(m.rows()), C = static_cast<int>(m.cols());
  const int out_r = std::clamp(R, 1, std::max(1, max_rows)), out_c = std::clamp(C, 1, std::max(1, max_cols));
  if (R == 0 || C == 0) return Mat(R, C);
  Mat rows(out_r, C);  // each output row: the max over its block of input rows
  for (int i = 0; i < out_r; ++i) {
    const int r0 = downsample_block_start(i, R, out_r), r1 = downsample_block_start(i + 1, R, out_r);
    rows.row(i) = m.middleRows(r0, r1 - r0).colwise().maxCoeff();
  }
  Mat out(out_r, out_c);
  for (int j = 0; j < out_c; ++j) {
    const int c0 = downsample_block_start(j, C, out_c), c1 = downsample_block_start(j + 1, C, out_c);
    out.col(j) = rows.middleCols(c0, c1 - c0).rowwise().maxCoeff();
  }
  return out;
}

}  // namespace attnviz
