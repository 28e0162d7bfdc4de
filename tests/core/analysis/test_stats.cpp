// Per-head statistics on hand-made attention maps with known answers.
#include <doctest/doctest.h>

#include <cmath>

#include "analysis/stats.h"

using namespace attnviz;

TEST_CASE("stats: a one-hot diagonal head — zero entropy, zero distance, max weight 1") {
  const Mat w = Mat::Identity(4, 4);
  const HeadStats s = head_stats(w, {false, false, false, true});
  CHECK(s.entropy == doctest::Approx(0.0));
  CHECK(s.max_weight == doctest::Approx(1.0));
  CHECK(s.mean_distance == doctest::Approx(0.0));
  CHECK(s.first_token_share == doctest::Approx(0.25));
  CHECK(s.punct_share == doctest::Approx(0.25));
}

TEST_CASE("stats: a uniform head — entropy ln T, known mean distance, masked rows left out") {
  Mat w = Mat::Constant(3, 3, 1.0f / 3.0f);
  HeadStats s = head_stats(w, {});
  CHECK(s.entropy == doctest::Approx(std::log(3.0)));
  CHECK(s.max_weight == doctest::Approx(1.0 / 3.0));
  // distances: row0 (0+1+2)/3, row1 (1+0+1)/3, row2 (2+1+0)/3 -> mean 8/9
  CHECK(s.mean_distance == doctest::Approx(8.0 / 9.0));
  w.row(1).setZero();  // a fully masked query
  s = head_stats(w, {});
  CHECK(s.mean_distance == doctest::Approx(1.0));
  CHECK(s.first_token_share == doctest::Approx(1.0 / 3.0));
}

TEST_CASE("stats: top keys, strongest first, ties in key order") {
  Mat w(2, 5);
  w << 0.1f, 0.4f, 0.1f, 0.3f, 0.1f,  //
      0.2f, 0.2f, 0.2f, 0.2f, 0.2f;
  auto top = top_keys(w, 0, 3);
  REQUIRE(top.size() == 3);
  CHECK(top[0].key == 1);
  CHECK(top[1].key == 3);
  CHECK(top[2].key == 0);
  CHECK(top[0].weight == doctest::Approx(0.4));
  auto ties = top_keys(w, 1, 2);
  CHECK(ties[0].key == 0);
  CHECK(ties[1].key == 1);
  CHECK(top_keys(w, 5, 2).empty());
  CHECK(top_keys(w, 0, 10).size() == 5);
}
