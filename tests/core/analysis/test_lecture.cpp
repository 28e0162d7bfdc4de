// The lecture's bookkeeping against real traces: the default query, clamping, head columns that
// tile the concat, the score divisor the engine actually used, and mask reasons that agree with
// mask_build on every cell.
#include <doctest/doctest.h>

#include <cmath>

#include "analysis/lecture.h"
#include "model/mask.h"
#include "support/model_util.h"

using namespace attnviz;

namespace {

Trace animal_trace(const ModelConfig& config, const MaskSpec& mask = {}) {
  const Model m = model_init_random(config, 7);
  TraceInput in;
  in.text = "The animal didn't cross the street because it was too tired.";
  in.mask = mask;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return *t;
}

std::vector<TraceToken> tokens(std::initializer_list<const char*> words) {
  std::vector<TraceToken> out;
  for (const char* w : words) out.push_back(TraceToken{w});
  return out;
}

}  // namespace

TEST_CASE("lecture: steps clamp into the ten steps") {
  CHECK(lecture_step_clamp(-3) == 0);
  CHECK(lecture_step_clamp(4) == 4);
  CHECK(lecture_step_clamp(10) == 9);
  CHECK(lecture_step_at(3) == LectureStep::scores);
  CHECK(lecture_step_at(99) == LectureStep::out_proj);
  CHECK(lecture_step_at(-1) == LectureStep::input);
}

TEST_CASE("lecture: the default query is the pronoun \"it\", in any case, else the first token") {
  CHECK(lecture_default_query(tokens({"The", "animal", "because", "it", "was", "it"})) == 3);
  CHECK(lecture_default_query(tokens({"It", "rains"})) == 0);
  CHECK(lecture_default_query(tokens({"a", "IT", "b"})) == 1);
  CHECK(lecture_default_query(tokens({"its", "item", "bit"})) == 0);  // whole tokens only
  CHECK(lecture_default_query({}) == 0);
}

TEST_CASE("lecture: focus clamps layer, head and query into the trace and resolves the default") {
  const Trace t = animal_trace(test::sized_config({.d_model = 64, .n_heads = 4, .n_layers = 2, .d_ff = 128}));
  LectureFocus f = lecture_focus(t, 5, 9, -1);
  CHECK(f.layer == 1);
  CHECK(f.head == 3);
  CHECK(f.query == 7);  // "it"
  CHECK(t.queries[static_cast<size_t>(f.query)].text == "it");
  f = lecture_focus(t, -2, -1, 40);
  CHECK(f.layer == 0);
  CHECK(f.head == 0);
  CHECK(f.query == 11);
}

TEST_CASE("lecture: head columns tile the concat, and the concat holds each head's output there") {
  const ModelConfig c = test::sized_config({.d_model = 96, .n_heads = 3, .d_ff = 64});
  const Trace t = animal_trace(c);
  CHECK(lecture_head_columns(c, 0).first == 0);
  CHECK(lecture_head_columns(c, 0).last == 31);
  CHECK(lecture_head_columns(c, 2).first == 64);
  CHECK(lecture_head_columns(c, 2).last == 95);
  const AttentionTrace& a = t.layers[0].attn;
  for (int h = 0; h < 3; ++h) {
    const HeadColumns cols = lecture_head_columns(c, h);
    CHECK(a.concat.middleCols(cols.first, cols.last - cols.first + 1) == a.heads[static_cast<size_t>(h)].out);
  }
}

TEST_CASE("lecture: the score divisor is √64 = 8 on the paper's model, and the engine divided by it") {
  const Trace t = animal_trace(ModelConfig{});
  // The config of a model whose heads are `hs` wide, at temperature tau.
  const auto config = [](int hs, float tau) {
    ModelConfig c = test::sized_config({.d_model = 4 * hs, .n_heads = 4});
    c.temperature = tau;
    return c;
  };
  const ScoreDivisor d = lecture_score_divisor(config(64, 1.0f), ScoreKind::scaled_dot);
  CHECK(d.uses_root);
  CHECK(d.root == 8.0f);
  CHECK(d.total == 8.0f);
  const HeadTrace& h = t.head(0, 2);
  CHECK(((h.scores_raw / d.total) - h.scores_scaled).cwiseAbs().maxCoeff() < 1e-6f);

  const ScoreDivisor tau = lecture_score_divisor(config(16, 0.5f), ScoreKind::scaled_dot);
  CHECK(tau.root == 4.0f);
  CHECK(tau.total == 2.0f);
  const ScoreDivisor dot = lecture_score_divisor(config(64, 2.0f), ScoreKind::dot);
  CHECK_FALSE(dot.uses_root);
  CHECK(dot.root == 1.0f);
  CHECK(dot.total == 2.0f);
  CHECK_FALSE(lecture_score_divisor(config(64, 1.0f), ScoreKind::additive).uses_root);
  CHECK_FALSE(lecture_score_divisor(config(64, 1.0f), ScoreKind::general).uses_root);
  // Gemma 27B divides by √(d_model / h) = √144 = 12 where its heads are 128 wide.
  ModelConfig gemma = config(128, 1.0f);
  gemma.scaled_dot_scale = 1.0f / 12.0f;
  CHECK(lecture_score_divisor(gemma, ScoreKind::scaled_dot).total == doctest::Approx(12.0f));
}

TEST_CASE("lecture: the divisor matches the engine under a temperature and dot-product scoring") {
  ModelConfig c = test::sized_config({.d_model = 64, .n_heads = 4, .d_ff = 64});
  c.temperature = 0.5f;
  c.head_scores = {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive};
  const Trace t = animal_trace(c);
  for (int h = 0; h < 4; ++h) {
    const HeadTrace& head = t.head(0, h);
    const ScoreDivisor d = lecture_score_divisor(c, head.score);
    CHECK(d.total == doctest::Approx(h == 0 ? 2.0 : 0.5));
    CHECK(((head.scores_raw / d.total) - head.scores_scaled).cwiseAbs().maxCoeff() < 1e-5f);
  }
}

TEST_CASE("lecture: mask reasons name each rule and agree with mask_build on every cell") {
  MaskSpec spec;
  spec.causal = true;
  spec.window = 3;
  spec.stride = 2;
  spec.pad_to = 14;
  spec.hidden_cells = {{7, 1}, {2, 2}};
  const int T = 14, real = 12;
  const Mat mask = mask_build(spec, T, T, real);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) CHECK(lecture_mask_why(spec, i, j, real).any() == !std::isfinite(mask(i, j)));

  const MaskWhy future = lecture_mask_why(spec, 2, 13, real);  // after the query, a pad, far, off-stride
  CHECK(future.causal);
  CHECK(future.padding);
  CHECK(future.window);
  CHECK(future.strided);
  CHECK_FALSE(future.custom);
  const MaskWhy hand = lecture_mask_why(spec, 7, 1, real);  // far back, on the stride, hidden by hand
  CHECK_FALSE(hand.causal);
  CHECK(hand.window);
  CHECK_FALSE(hand.strided);
  CHECK(hand.custom);
  const MaskWhy near = lecture_mask_why(spec, 7, 6, real);
  CHECK_FALSE(near.any());
  CHECK_FALSE(lecture_mask_why(MaskSpec{}, 0, 5, 12).any());
}
