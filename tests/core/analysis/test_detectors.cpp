// Head detectors on hand-built heads with known answers (perfect previous-token, sink and induction
// heads, uniform causal heads), the undefined cases, and every head of a random-weight model.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/detectors.h"
#include "demos/induction_data.h"
#include "model/trace.h"
#include "support/model_util.h"

using namespace attnviz;

namespace {

std::vector<std::string> words(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

// A causal head that spreads evenly: w[i][j] = 1/(i+1) for j <= i.
Mat uniform_causal(int t) {
  Mat w = Mat::Zero(t, t);
  for (int i = 0; i < t; ++i) w.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
  return w;
}

float score(Detector d, const Mat& w, const std::vector<std::string>& tokens) {
  const DetectorScore s = detector_score(d, w, tokens);
  CHECK(s.defined);
  return s.score;
}

}  // namespace

TEST_CASE("detectors: a perfect previous-token head scores 1, a perfect sink head scores 1") {
  const auto tok = words({"a", "b", "c", "d", "e"});
  Mat prev = Mat::Zero(5, 5);
  prev(0, 0) = 1;
  for (int i = 1; i < 5; ++i) prev(i, i - 1) = 1;
  CHECK(score(Detector::previous_token, prev, tok) == doctest::Approx(1.0));
  CHECK(score(Detector::first_token, prev, tok) == doctest::Approx(0.25));  // only query 1 looks at 0
  Mat sink = Mat::Zero(5, 5);
  sink.col(0).setOnes();
  CHECK(score(Detector::first_token, sink, tok) == doctest::Approx(1.0));
  CHECK(score(Detector::previous_token, sink, tok) == doctest::Approx(0.25));
  // No repeated token: the token-based detectors have nothing to measure.
  CHECK_FALSE(detector_score(Detector::duplicate_token, sink, tok).defined);
  CHECK_FALSE(detector_score(Detector::induction, sink, tok).defined);
  CHECK(detector_score(Detector::induction, sink, tok).score == 0.0f);
}

TEST_CASE("detectors: a perfect induction head on A B C D A B C D") {
  const auto tok = words({"A", "B", "C", "D", "A", "B", "C", "D"});
  Mat w = Mat::Zero(8, 8);
  for (int i = 0; i < 4; ++i) w(i, i) = 1;          // first copy: nothing to copy from, look at self
  for (int i = 4; i < 8; ++i) w(i, i - 3) = 1;      // second copy: the token after the earlier copy
  CHECK(score(Detector::induction, w, tok) == doctest::Approx(1.0));
  CHECK(score(Detector::previous_token, w, tok) == doctest::Approx(0.0));
  CHECK(score(Detector::duplicate_token, w, tok) == doctest::Approx(0.0));
  // A duplicate-token head on the same text: each query on its earlier copy.
  Mat dup = Mat::Zero(8, 8);
  for (int i = 0; i < 4; ++i) dup(i, i) = 1;
  for (int i = 4; i < 8; ++i) dup(i, i - 4) = 1;
  CHECK(score(Detector::duplicate_token, dup, tok) == doctest::Approx(1.0));
  CHECK(score(Detector::induction, dup, tok) == doctest::Approx(0.0));
}

TEST_CASE("detectors: uniform causal heads give the known 1/(i+1) averages") {
  const Mat w = uniform_causal(4);
  const auto tok = words({"A", "B", "A", "B"});
  // queries 1..3 put 1/2, 1/3, 1/4 on the previous token and on token 0
  CHECK(score(Detector::previous_token, w, tok) == doctest::Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3));
  CHECK(score(Detector::first_token, w, tok) == doctest::Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3));
  // queries 2 (A, copy at 0) and 3 (B, copy at 1): 1/3 and 1/4 on the copy, and on the token after it
  CHECK(score(Detector::duplicate_token, w, tok) == doctest::Approx((1.0 / 3 + 1.0 / 4) / 2));
  CHECK(score(Detector::induction, w, tok) == doctest::Approx((1.0 / 3 + 1.0 / 4) / 2));
  // Three copies of x: query 2 has copies at 0 and 1 (duplicate 2/3) but only j=0 has j+1 < 2
  // (induction 1/3); query 1's copy at 0 is directly before it, so it does not count for induction.
  const auto xxx = words({"x", "x", "x"});
  const Mat u3 = uniform_causal(3);
  CHECK(score(Detector::duplicate_token, u3, xxx) == doctest::Approx((1.0 / 2 + 2.0 / 3) / 2));
  CHECK(score(Detector::induction, u3, xxx) == doctest::Approx(1.0 / 3));
}

TEST_CASE("detectors: masked rows are skipped, coreference reads one cell, undefined cases") {
  const auto tok = words({"the", "cat", "sat", "it"});
  Mat w = uniform_causal(4);
  w.row(2).setZero();  // a fully masked query
  CHECK(score(Detector::previous_token, w, tok) == doctest::Approx((1.0 / 2 + 1.0 / 4) / 2));
  Mat c = Mat::Zero(4, 4);
  c.row(0) << 1, 0, 0, 0;
  c.row(1) << 0.5f, 0.5f, 0, 0;
  c.row(2) << 0.2f, 0.3f, 0.5f, 0;
  c.row(3) << 0.1f, 0.7f, 0.1f, 0.1f;
  const DetectorScore it_cat = detector_score(Detector::coreference, c, tok, 3, 1);
  CHECK(it_cat.defined);
  CHECK(it_cat.score == doctest::Approx(0.7));
  CHECK_FALSE(detector_score(Detector::coreference, c, tok).defined);        // no indices given
  CHECK_FALSE(detector_score(Detector::coreference, c, tok, 4, 1).defined);  // out of range
  CHECK_FALSE(detector_score(Detector::coreference, w, tok, 2, 1).defined);  // masked query
  // One token: no query i >= 1.
  const Mat one = Mat::Ones(1, 1);
  CHECK_FALSE(detector_score(Detector::previous_token, one, words({"a"})).defined);
  CHECK_FALSE(detector_score(Detector::first_token, one, words({"a"})).defined);
  CHECK_FALSE(detector_score(Detector::first_token, Mat(), {}).defined);
}

TEST_CASE("detectors: names round-trip and every detector has a definition") {
  for (Detector d : kAllDetectors) {
    CHECK(detector_from_name(name_of(d)) == d);
    CHECK(detector_definition(d).size() > 20);
  }
  CHECK(name_of(Detector::induction) == "induction");
  CHECK_FALSE(detector_from_name("copying").has_value());
}

TEST_CASE("detectors: a random-weight causal model has no induction heads (every score <= 0.2)") {
  const Model m = test::sized_model({.d_model = 64, .n_heads = 4, .n_layers = 2, .d_ff = 128}, 11);
  Rng rng(5);
  auto seq = induction_sequence(rng, 50, 40, 15);
  REQUIRE(seq.ok());
  TraceInput in;
  in.text = induction_text(*seq, induction_vocabulary(50));
  in.mask.causal = true;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  REQUIRE(t->n_queries() == 40);
  const DetectorGrid g = detector_grid(Detector::induction, *t);
  CHECK(g.detector == Detector::induction);
  REQUIRE(g.by_layer_head.size() == 2);
  for (size_t l = 0; l < 2; ++l) {
    REQUIRE(g.by_layer_head[l].size() == 4);
    for (size_t h = 0; h < 4; ++h) {
      CAPTURE(l);
      CAPTURE(h);
      const DetectorScore s = g.by_layer_head[l][h];
      CAPTURE(s.score);
      CHECK(s.defined);
      CHECK(s.score >= 0.0f);
      CHECK(s.score <= 0.2f);
    }
  }
  // The grid agrees with scoring the head directly.
  std::vector<std::string> tokens;
  for (const TraceToken& q : t->queries) tokens.push_back(q.text);
  CHECK(g.by_layer_head[1][2].score == detector_score(Detector::induction, t->head(1, 2).weights_kept, tokens).score);
}

TEST_CASE("detectors: the grid cuts padding off and leaves cross-attention undefined") {
  const Model m = test::sized_model({.d_model = 16, .n_heads = 2, .d_ff = 32}, 2);
  TraceInput in;
  in.text = "a b c";
  in.mask.pad_to = 8;
  auto t = trace_run(m, in);
  REQUIRE(t.ok());
  // "a b c" has no repeated token; five [PAD]s would otherwise be duplicates of each other.
  const DetectorGrid dup = detector_grid(Detector::duplicate_token, *t);
  REQUIRE(dup.by_layer_head.size() == 1);
  CHECK_FALSE(dup.by_layer_head[0][0].defined);
  CHECK(detector_grid(Detector::previous_token, *t).by_layer_head[0][1].defined);
  TraceInput cross;
  cross.text = "a b c";
  cross.source_text = "x y";
  auto tc = trace_run(m, cross);
  REQUIRE(tc.ok());
  const DetectorGrid g = detector_grid(Detector::previous_token, *tc);
  REQUIRE(g.by_layer_head.size() == 1);
  CHECK_FALSE(g.by_layer_head[0][0].defined);
  CHECK_FALSE(g.by_layer_head[0][1].defined);
}
