// Where the model came from and how a retrain ended, in both languages: the labels core and the
// retrain make are translated exactly, anything else (a path) is shown as it is.
#include <doctest/doctest.h>

#include <string>

#include "demos/coref_demo.h"
#include "model/model.h"
#include "state/demo_retrain.h"
#include "state/source_text.h"
#include "support/model_util.h"

using namespace attnviz;

TEST_CASE("source text: made models' labels read in Korean; English stays core's own words") {
  const Model sandbox = model_init_random(test::sized_config({.d_model = 16, .n_heads = 2, .d_ff = 32}), 7);
  CHECK(sandbox.source == "sandbox (seed 7)");
  CHECK(model_source_text(sandbox.source, Lang::en) == "sandbox (seed 7)");
  CHECK(model_source_text(sandbox.source, Lang::ko) == "샌드박스 (시드 7)");
  auto demo = coref_model_init(CorefTrainOptions{});
  REQUIRE_MESSAGE(demo.ok(), demo.error());
  CHECK(model_source_text(demo->source, Lang::en) == "demo: coreference (seed 78)");
  CHECK(model_source_text(demo->source, Lang::ko) == "데모: 상호참조 (시드 78)");
  CHECK(model_source_text(made_source(kSourceInductionDemo, 3), Lang::ko) == "데모: 인덕션 헤드 (시드 3)");
  CHECK(model_source_text("trained: heads2_dmodel128_layers1", Lang::ko) == "학습됨: heads2_dmodel128_layers1");
  CHECK(model_source_text("cache: heads2_dmodel64", Lang::ko) == "캐시: heads2_dmodel64");
  CHECK(model_source_text("trained: heads2_dmodel128_layers1", Lang::en) == "trained: heads2_dmodel128_layers1");
}

TEST_CASE("source text: paths and near misses are shown as they are") {
  for (const char* s : {"assets/demo_coref", "/home/me/gpt2", "sandbox", "sandbox (seed )", "sandbox (seed 1x)",
                        "sandbox (seed 1) copy", "my sandbox (seed 1)", "trained:x", ""}) {
    CAPTURE(s);
    CHECK(model_source_text(s, Lang::ko) == s);
  }
  uint64_t seed = 0;
  CHECK(made_source_seed("sandbox (seed 18446744073709551615)", kSourceSandbox, seed));
  CHECK(seed == 18446744073709551615ull);
  CHECK_FALSE(made_source_seed("sandbox (seed 18446744073709551616)", kSourceSandbox, seed));  // overflows
  CHECK_FALSE(made_source_seed("sandbox (seed -1)", kSourceSandbox, seed));
  CHECK_FALSE(made_source_seed("sandbox (seed 007)", kSourceSandbox, seed));  // not how made_source writes 7
  CHECK(model_source_text("sandbox (seed 007)", Lang::ko) == "sandbox (seed 007)");
}

TEST_CASE("source text: a retrain's outcome, reached, short of the target or failed, in both languages") {
  RetrainOutcome o;
  o.arch = "heads2_dmodel128_layers1";
  o.accuracy = 0.9942f;
  o.target = 0.99f;
  o.steps = 800;
  o.seconds = 1.8;
  o.target_met = true;
  REQUIRE(o.reached());
  CHECK(retrain_outcome_text(o, Lang::en) == "heads2_dmodel128_layers1: 99.42% held-out after 800 steps, 1.8 s");
  CHECK(retrain_outcome_text(o, Lang::ko) == "heads2_dmodel128_layers1: 검증 정확도 99.42% (800단계, 1.8초)");
  o.accuracy = 0.9731f;
  o.steps = 2000;
  o.target_met = false;
  REQUIRE_FALSE(o.reached());
  CHECK(retrain_outcome_text(o, Lang::en) == "heads2_dmodel128_layers1 did not reach 99% within 2000 steps: 97.31% held-out");
  CHECK(retrain_outcome_text(o, Lang::ko) ==
        "heads2_dmodel128_layers1: 목표 99%에 2000단계 안에 이르지 못했습니다 (검증 정확도 97.31%)");
  // The induction demo's target is a head as well as answers: short of it, the run says no head formed.
  RetrainOutcome ind = o;
  ind.demo = ModelSource::demo_induction;
  ind.arch = "induction heads2_dmodel32_layers3";
  ind.accuracy = 0.9625f;
  ind.steps = 3000;
  CHECK(
      retrain_outcome_text(ind, Lang::en) ==
      "induction heads2_dmodel32_layers3 formed no induction head within 3000 steps: 96.25% of the repeats predicted");
  CHECK(retrain_outcome_text(ind, Lang::ko) ==
        "induction heads2_dmodel32_layers3: 3000단계 안에 인덕션 헤드가 생기지 않았습니다 (반복 구간 예측 96.25%)");
  // With its best head described (the app does so when a run falls short), the numbers that fell short.
  ind.head_layer = 1;
  ind.head = 0;
  ind.head_on_repeat = 0.8951f;
  ind.head_general = 0.8243f;
  ind.head_target = 0.95f;
  ind.head_general_target = 0.8f;
  CHECK(retrain_outcome_text(ind, Lang::en) ==
        "induction heads2_dmodel32_layers3 formed no induction head within 3000 steps: its best head, L2 H1, puts 0.90 "
        "of its attention on the token to copy, short of the 0.95 asked (96.25% of the repeats predicted)");
  CHECK(retrain_outcome_text(ind, Lang::ko) ==
        "induction heads2_dmodel32_layers3: 3000단계 안에 인덕션 헤드가 생기지 않았습니다. 가장 나은 헤드 L2 H1의 "
        "어텐션 가운데 베낄 토큰에 가는 몫은 0.90(목표 0.95)에 그칩니다(반복 구간 예측 96.25%).");
  // A head that copies, short on the answers.
  ind.head_on_repeat = 0.9712f;
  CHECK(retrain_outcome_text(ind, Lang::en) ==
        "induction heads2_dmodel32_layers3: head L2 H1 copies the repeat (0.97 of its attention on the token to copy), "
        "but after 3000 steps 96.25% of the repeats are predicted, short of the 99% asked");
  // A head that copies on the repeat and answers, short only as a detector of induction elsewhere.
  ind.head_general = 0.6104f;
  ind.accuracy = 0.9953f;
  CHECK(retrain_outcome_text(ind, Lang::en) ==
        "induction heads2_dmodel32_layers3: head L2 H1 copies the repeat (0.97 of its attention on the token to copy) "
        "but after 3000 steps does little induction on other repeated tokens (0.61 by the induction detector, 0.80 "
        "asked)");
  o.target_met = true;
  o.error = "out of memory";
  CHECK_FALSE(o.reached());
  CHECK(retrain_outcome_text(o, Lang::ko) == "heads2_dmodel128_layers1 학습 실패: out of memory");
}
