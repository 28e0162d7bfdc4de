// Max-pooled downsampling of long attention maps: exact tiling, peaks kept, small maps untouched.
#include <doctest/doctest.h>

#include "render/downsample.h"
#include "support/check_util.h"

namespace attnviz {
namespace {

TEST_CASE("downsample: every output cell is the max of the block it covers, a single peak survives") {
  Mat m = Mat::Constant(4096, 4096, 0.001f);
  m(2777, 1234) = 0.93f;  // one sharp peak
  const Mat d = downsample_max(m, 1024, 1024);
  REQUIRE(d.rows() == 1024);
  REQUIRE(d.cols() == 1024);
  CHECK(d(2777 / 4, 1234 / 4) == 0.93f);
  CHECK(d.maxCoeff() == 0.93f);
  CHECK((d.array() == 0.001f).count() == 1024 * 1024 - 1);
}

TEST_CASE("downsample: blocks of uneven size tile the matrix exactly") {
  const Mat m = attnviz::test::random_mat(1000, 7, 3);
  const Mat d = downsample_max(m, 300, 3);
  REQUIRE(d.rows() == 300);
  REQUIRE(d.cols() == 3);
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 3; ++j) {
      const int r0 = downsample_block_start(i, 1000, 300), r1 = downsample_block_start(i + 1, 1000, 300);
      const int c0 = downsample_block_start(j, 7, 3), c1 = downsample_block_start(j + 1, 7, 3);
      CHECK(r1 - r0 >= 3);
      CHECK(r1 - r0 <= 4);
      CHECK(d(i, j) == m.block(r0, c0, r1 - r0, c1 - c0).maxCoeff());
    }
  CHECK(downsample_block_start(300, 1000, 300) == 1000);
}

TEST_CASE("downsample: a map within the limits comes back unchanged, one long side shrinks alone") {
  const Mat m = attnviz::test::random_mat(12, 12, 5);
  CHECK(downsample_max(m, 1024, 1024) == m);
  const Mat wide = attnviz::test::random_mat(8, 5000, 6);
  const Mat d = downsample_max(wide, 1024, 1024);
  CHECK(d.rows() == 8);
  CHECK(d.cols() == 1024);
  CHECK(d.row(3).maxCoeff() == wide.row(3).maxCoeff());
}

}  // namespace
}  // namespace attnviz
