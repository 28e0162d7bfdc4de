// The answer line's text in both languages, and why there is none: every NoAnswer code of core is
// said in English (exactly core's no_answer_english, which the CLI prints) and in Korean, with its
// values; the line reads "no answer: …" / "답 없음: …".
#include <doctest/doctest.h>

#include <set>
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
  CHECK(a.why() == NoAnswer{NoAnswerReason::no_output_head, {}});
  CHECK(a.error() == "the model has no output head (a random sandbox has none; BERT needs cls.predictions.*)");
  CHECK(no_answer_text(a.why(), Lang::en) == a.error());
  CHECK(no_answer_text(a.why(), Lang::ko) ==
        "모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)");
  CHECK(answer_line_text(nullptr, &a.why(), *t, Lang::ko) ==
        "답 없음: 모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)");
  CHECK(answer_line_text(nullptr, &a.why(), *t, Lang::en) == "no answer: " + a.error());
  CHECK(answer_line_text(nullptr, nullptr, *t, Lang::ko).empty());
}

TEST_CASE("answer text: every reason code reads the same in English as core's, and has its own Korean") {
  std::set<std::string> english, korean;
  for (const NoAnswerReason reason : kNoAnswerReasons) {
    const NoAnswer why{reason, reason == NoAnswerReason::unknown_word ? "animal" : ""};
    CAPTURE(name_of(reason));
    CHECK(name_of(reason) != "?");
    const std::string en = no_answer_text(why, Lang::en), ko = no_answer_text(why, Lang::ko);
    CHECK(en == no_answer_english(why));
    CHECK_FALSE(en.empty());
    CHECK(ko != en);
    // Korean throughout: some Hangul in every line (U+AC00..U+D7A3 is EA B0 80 .. ED 9E A3 in UTF-8).
    CHECK(ko.find_first_of("\xEA\xEB\xEC\xED") != std::string::npos);
    english.insert(en);
    korean.insert(ko);
  }
  CHECK(english.size() == std::size(kNoAnswerReasons));
  CHECK(korean.size() == std::size(kNoAnswerReasons));
}

TEST_CASE("answer text: a reason's values are in both languages' sentences") {
  const NoAnswer unknown{NoAnswerReason::unknown_word, "zebra"};
  CHECK(no_answer_text(unknown, Lang::en) == "the model does not know the word 'zebra'");
  CHECK(no_answer_text(unknown, Lang::ko) == "모델의 어휘에 없는 단어입니다: 'zebra'");
  CHECK(no_answer_english(unknown) == "the model does not know the word 'zebra'");
  // A word with a percent sign is a value, not a format.
  CHECK(no_answer_text(NoAnswer{NoAnswerReason::unknown_word, "50%s"}, Lang::ko) == "모델의 어휘에 없는 단어입니다: '50%s'");
  CHECK(no_answer_text(NoAnswer{NoAnswerReason::no_mask, {}}, Lang::ko) ==
        "모델이 채울 자리에 [MASK]를 입력하세요: 마스크드 언어 모델 헤드가 그 자리에서 답합니다");
  CHECK(no_answer_text(NoAnswer{NoAnswerReason::no_model, {}}, Lang::ko) == "어텐션 파일에는 가중치만 있고, 답할 모델이 없습니다");
}
