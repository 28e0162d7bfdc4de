// The answer line's text in both languages, and why there is none: core's named reasons are said
// in Korean too, anything else is shown as core wrote it.
#include <doctest/doctest.h>

#include <string>

#include "analysis/answer.h"
#include "model/model.h"
#include "model/trace.h"
#include "state/answer_text.h"
#include "support/model_util.h"

using namespace attnviz;

TEST_CASE("answer text: a random sandbox has no output head, said in the UI's language") {
  const Model m = model_init_random(test::sized_config({.d_model = 16, .n_heads = 2, .d_ff = 32}), 5);
  TraceInput in;
  in.text = "The animal didn't cross the street because it was too tired.";
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  auto a = model_answer(m, *t, in.text);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error() == kNoAnswerNoOutputHead);
  CHECK(no_answer_text(a.error(), Lang::en) == std::string(kNoAnswerNoOutputHead));
  CHECK(no_answer_text(a.error(), Lang::ko) ==
        "모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)");
}

TEST_CASE("answer text: every named reason has its own Korean, the English is core's, others pass through") {
  int distinct = 0;
  std::string previous;
  for (std::string_view reason : {kNoAnswerNoOutputHead, kNoAnswerCrossAttention, kNoAnswerNoPronoun,
                                  kNoAnswerNoCandidates, kNoAnswerNoMask, kNoAnswerNeedsCausal}) {
    const std::string error(reason);
    CAPTURE(error);
    CHECK(no_answer_text(error, Lang::en) == error);
    const std::string ko = no_answer_text(error, Lang::ko);
    CHECK(ko != error);
    CHECK(ko != previous);
    previous = ko;
    ++distinct;
  }
  CHECK(distinct == 6);
  CHECK(no_answer_text("the trace was not made by this model", Lang::ko) == "the trace was not made by this model");
}
