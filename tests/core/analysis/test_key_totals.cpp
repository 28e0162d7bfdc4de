// top_keys_received on hand-made weight matrices whose column sums are known.
#include <doctest/doctest.h>

#include "analysis/key_totals.h"

using namespace attnviz;

TEST_CASE("key_totals: column sums over the queries, divided by the attending queries") {
  Mat w(3, 4);
  w << 0.7f, 0.1f, 0.1f, 0.1f,  //
      0.1f, 0.6f, 0.2f, 0.1f,   //
      0.5f, 0.1f, 0.0f, 0.4f;
  // column sums 1.3, 0.8, 0.3, 0.6 over 3 queries
  const auto top = top_keys_received(w, 3);
  REQUIRE(top.size() == 3);
  CHECK(top[0].key == 0);
  CHECK(top[0].weight == doctest::Approx(1.3 / 3));
  CHECK(top[1].key == 1);
  CHECK(top[1].weight == doctest::Approx(0.8 / 3));
  CHECK(top[2].key == 3);
  CHECK(top[2].weight == doctest::Approx(0.6 / 3));
  // every key listed: the means add up to 1 when every row sums to 1
  float sum = 0;
  for (const KeyWeight& kw : top_keys_received(w, 10)) sum += kw.weight;
  CHECK(sum == doctest::Approx(1.0));
}

TEST_CASE("key_totals: hidden queries are not counted, unattended keys are not listed, ties keep key order") {
  Mat w(3, 3);
  w << 0.5f, 0.5f, 0.0f,  //
      0.0f, 0.0f, 0.0f,   // a fully masked query
      0.5f, 0.5f, 0.0f;
  const auto top = top_keys_received(w, 3);
  REQUIRE(top.size() == 2);  // key 2 gets nothing
  CHECK(top[0].key == 0);
  CHECK(top[1].key == 1);
  CHECK(top[0].weight == doctest::Approx(0.5));  // 1.0 over the 2 attending queries, not 3
  CHECK(top_keys_received(w, 0).empty());
  CHECK(top_keys_received(Mat::Zero(2, 2), 3).empty());
}
