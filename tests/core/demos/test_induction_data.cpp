// The induction-demo data: same seed same sequence, the segment really comes back, ids in range,
// the filler never reuses a segment token, and impossible requests are errors.
#include <doctest/doctest.h>

#include <set>

#include "demos/induction_data.h"
#include "model/config.h"

using namespace attnviz;

TEST_CASE("induction data: one seed gives one sequence, another seed another") {
  Rng a(7), b(7), c(8);
  auto x = induction_sequence(a, 64, 32, 8);
  auto y = induction_sequence(b, 64, 32, 8);
  auto z = induction_sequence(c, 64, 32, 8);
  REQUIRE(x.ok());
  REQUIRE(y.ok());
  REQUIRE(z.ok());
  CHECK(x->ids == y->ids);
  CHECK(x->ids != z->ids);
  // The stream moves on: the next draw from the same generator is a different sequence.
  auto x2 = induction_sequence(a, 64, 32, 8);
  REQUIRE(x2.ok());
  CHECK(x2->ids != x->ids);
}

TEST_CASE("induction data: the segment repeats at the end, distinct, and the filler avoids it") {
  Rng rng(1);
  for (int trial = 0; trial < 50; ++trial) {
    auto s = induction_sequence(rng, 20, 32, 10);
    REQUIRE(s.ok());
    REQUIRE(s->ids.size() == 32);
    CHECK(s->repeat_start == 22);
    CHECK(s->repeat_length == 10);
    std::set<int> segment;
    for (int k = 0; k < 10; ++k) {
      CHECK(s->ids[static_cast<size_t>(k)] == s->ids[static_cast<size_t>(22 + k)]);
      segment.insert(s->ids[static_cast<size_t>(k)]);
    }
    CHECK(segment.size() == 10);
    for (int k = 10; k < 22; ++k) CHECK(segment.count(s->ids[static_cast<size_t>(k)]) == 0);
    for (int id : s->ids) {
      CHECK(id >= 0);
      CHECK(id < 20);
    }
  }
}

TEST_CASE("induction data: no filler when the length is exactly two segments, the whole vocabulary fits") {
  Rng rng(3);
  auto s = induction_sequence(rng, 5, 10, 5);
  REQUIRE(s.ok());
  CHECK(s->repeat_start == 5);
  CHECK(std::set<int>(s->ids.begin(), s->ids.begin() + 5) == std::set<int>{0, 1, 2, 3, 4});
}

TEST_CASE("induction data: impossible requests are errors") {
  Rng rng(3);
  CHECK_FALSE(induction_sequence(rng, 64, 32, 0).ok());
  CHECK_FALSE(induction_sequence(rng, 64, 15, 8).ok());
  CHECK_FALSE(induction_sequence(rng, 7, 20, 8).ok());   // not enough distinct tokens
  CHECK_FALSE(induction_sequence(rng, 8, 20, 8).ok());   // no token left for the filler
  CHECK(induction_sequence(rng, 8, 16, 8).ok());         // no filler needed
  CHECK_FALSE(induction_sequence(rng, 64, kMaxTokens + 1, 8).ok());
}

TEST_CASE("induction data: vocabulary names and the text form") {
  const auto vocab = induction_vocabulary(3);
  CHECK(vocab == std::vector<std::string>{"t0", "t1", "t2"});
  InductionSequence s;
  s.ids = {2, 0, 7};
  CHECK(induction_text(s, vocab) == "t2 t0 ?");
}
