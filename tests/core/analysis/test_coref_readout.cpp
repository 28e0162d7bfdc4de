// The Coreference view's numbers: per-head attention from "it" to the candidates (hand-made
// weights, then the shipped demo), the best head, and the answer read from the trace's final
// hidden states, which must match coref_predict's full forward pass; and why there is no answer, as
// analysis/answer.h's codes.
#include <doctest/doctest.h>

#include "analysis/coref_readout.h"
#include "analysis/importance.h"
#include "io/model_file.h"
#include "support/coref_sentences.h"

using namespace attnviz;
using attnviz::test::kTired;
using attnviz::test::kWide;

namespace {

constexpr int kIt = 7, kAnimal = 1, kStreet = 5, kProperty = 10;

Model load_demo() {
  auto m = model_load(std::string(ATTNVIZ_ASSETS) + "/demo_coref/model.safetensors", std::nullopt);
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

Trace run(const Model& m, const std::string& text, const MaskSpec& mask = {}) {
  TraceInput in;
  in.text = text;
  in.mask = mask;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

// A 1-layer trace of the tired sentence whose heads' "it" rows are set by hand.
Trace hand_trace(const std::vector<std::array<float, 3>>& it_rows) {  // per head: animal, street, tired
  Trace t;
  for (const Token& tok : coref_make(kTired).tokens) t.queries.push_back(TraceToken{.text = tok.text, .kind = tok.kind});
  t.keys = t.queries;
  t.config.n_heads = static_cast<int>(it_rows.size());
  t.config.n_layers = 1;
  t.layers.resize(1);
  for (const auto& r : it_rows) {
    HeadTrace h;
    h.weights_kept = Mat::Zero(t.n_queries(), t.n_keys());
    h.weights_kept(kIt, kAnimal) = r[0];
    h.weights_kept(kIt, kStreet) = r[1];
    h.weights_kept(kIt, kProperty) = r[2];
    t.layers[0].attn.heads.push_back(h);
  }
  return t;
}

}  // namespace

TEST_CASE("coref view: per-head weights on the candidates, which heads resolve, and the best head") {
  const CorefExample e = coref_make(kTired);
  REQUIRE(e.pronoun == kIt);
  REQUIRE(e.candidate_a == kAnimal);
  REQUIRE(e.candidate_b == kStreet);
  REQUIRE(e.referent == kAnimal);
  const Trace t = hand_trace({{0.6f, 0.1f, 0.2f}, {0.4f, 0.3f, 0.0f}, {0.1f, 0.7f, 0.1f}, {0.5f, 0.5f, 0.0f}, {0.9f, 0.05f, 0.0f}});
  auto s = coref_head_scores(t, e);
  REQUIRE_MESSAGE(s.ok(), s.error());
  REQUIRE(s->size() == 5);
  CHECK((*s)[0].to_a == doctest::Approx(0.6f));
  CHECK((*s)[0].to_b == doctest::Approx(0.1f));
  CHECK((*s)[0].to_property == doctest::Approx(0.2f));
  CHECK((*s)[0].resolves);
  CHECK_FALSE((*s)[0].reads_property);  // 0.2 on "tired": under half
  CHECK_FALSE((*s)[1].resolves);  // more on animal, but under half of the attention
  CHECK_FALSE((*s)[2].resolves);  // looks at the wrong noun
  CHECK_FALSE((*s)[3].resolves);  // a tie is not "more"
  CHECK((*s)[4].resolves);
  CHECK((*s)[4].head == 4);
  CHECK((*s)[4].layer == 0);
  CHECK(coref_best_head(*s, e) == 4);  // margin 0.85 beats 0.5

  // With the referent unknown nothing resolves and the best head is the most decided either way.
  CorefExample unknown = e;
  unknown.referent = -1;
  auto u = coref_head_scores(t, unknown);
  REQUIRE(u.ok());
  for (const CorefHeadScore& h : *u) CHECK_FALSE(h.resolves);
  CHECK(coref_best_head(*u, unknown) == 4);
  CorefExample street = e;
  street.referent = kStreet;
  CHECK(coref_best_head(*coref_head_scores(t, street), street) == 2);
  CHECK(coref_best_head({}, e) == -1);
}

TEST_CASE("coref view: sentences and traces that do not fit are errors, not crashes") {
  const Trace t = hand_trace({{0.6f, 0.1f, 0.2f}});
  CHECK_FALSE(coref_head_scores(t, coref_make("")).ok());
  CHECK_FALSE(coref_head_scores(t, coref_make("The animal didn't cross the street.")).ok());  // no "it"
  CHECK_FALSE(coref_head_scores(t, coref_make("It was too tired.")).ok());                    // no candidates
  const CorefExample other = coref_make("The dog didn't cross the road because it was too tired.");
  REQUIRE(other.pronoun == kIt);
  CHECK(coref_head_scores(t, other).error() == "the trace is of another sentence");
  Trace cross = t;
  cross.cross = true;
  CHECK_FALSE(coref_head_scores(cross, coref_make(kTired)).ok());
  // A padded trace still fits: the sentence's tokens come first.
  Trace padded = t;
  padded.queries.push_back(TraceToken{.text = "[PAD]", .kind = TokenKind::special, .pad = true});
  padded.keys = padded.queries;
  CHECK(coref_head_scores(padded, coref_make(kTired)).ok());
}

TEST_CASE("coref view: the answer read from the trace equals coref_predict on the demo model") {
  const Model m = load_demo();
  std::vector<std::string> texts = {kTired, kWide};
  const CorefSplit data = coref_generate(kCorefDemoSeed);
  for (size_t i = 0; i < 30 && i < data.heldout.size(); ++i) texts.push_back(data.heldout[i].text);
  for (const std::string& text : texts) {
    CAPTURE(text);
    const CorefExample e = coref_make(text);
    auto want = coref_predict(m, text);
    auto got = coref_answer(m, run(m, text), e);
    REQUIRE_MESSAGE(want.ok(), want.error());
    REQUIRE_MESSAGE(got.ok(), got.error());
    CHECK(got->referent == want->referent);
    CHECK(got->referent_text == want->referent_text);
    CHECK(got->pronoun == want->pronoun);
    CHECK(got->probability == doctest::Approx(want->probability).epsilon(1e-4));
  }
  auto tired = coref_answer(m, run(m, kTired), coref_make(kTired));
  auto wide = coref_answer(m, run(m, kWide), coref_make(kWide));
  CHECK(tired->referent_text == "animal");
  CHECK(wide->referent_text == "street");
  CHECK(tired->probability > 0.5f);

  // The demo grows a head that resolves "it" both ways in the famous pair (layer 1 head 0: 0.999 on
  // "animal" with "tired", 0.998 on "street" with "wide"), the best head of each sentence is a
  // resolving one, and layer 0 head 2 alone reads "tired" into "it" (0.97; the head whose loss
  // changes the answer: tests/cli/test_cli_predict.cpp).
  auto st = coref_head_scores(run(m, kTired), coref_make(kTired));
  auto sw = coref_head_scores(run(m, kWide), coref_make(kWide));
  REQUIRE((st.ok() && sw.ok()));
  REQUIRE(st->size() == 8);
  int both = 0;
  for (size_t i = 0; i < st->size(); ++i) both += (*st)[i].resolves && (*sw)[i].resolves;
  CHECK(both == 1);
  CHECK(((*st)[4].resolves && (*sw)[4].resolves));
  CHECK((*st)[4].to_a > 0.99f);
  CHECK((*sw)[4].to_b > 0.99f);
  CHECK((*st)[2].reads_property);
  CHECK((*st)[2].to_property > 0.95f);
  int reading = 0;
  for (const CorefHeadScore& h : *st) reading += h.reads_property;
  CHECK(reading == 1);
  CHECK((*st)[static_cast<size_t>(coref_best_head(*st, coref_make(kTired)))].resolves);
  CHECK((*sw)[static_cast<size_t>(coref_best_head(*sw, coref_make(kWide)))].resolves);
}

TEST_CASE("coref view: models that cannot answer, and a trace made by another model") {
  const Model demo = load_demo();
  const CorefExample e = coref_make(kTired);
  // The sandbox has no output projection.
  ModelConfig c;
  c.d_model = 64;
  c.n_heads = 4;
  c.n_layers = 1;
  const Model sandbox = model_init_random(c, 1);
  const Trace ts = run(sandbox, kTired);
  CHECK(coref_head_scores(ts, e).ok());  // attention exists in any model
  CHECK_FALSE(coref_answer(sandbox, ts, e).ok());
  // The demo's output projection does not fit a 16-wide trace.
  c.d_model = 16;
  const Trace narrow = run(model_init_random(c, 1), kTired);
  CHECK(coref_answer(demo, narrow, e).error() == "the trace was not made by this model");
  // A vocabulary without the candidate's word.
  Model no_animal = demo;
  for (std::string& w : no_animal.vocab)
    if (w == "animal") w = "beast";
  CHECK(coref_answer(no_animal, run(demo, kTired), e).error() == "the model does not know the word 'animal'");
  // A mask changes the trace and so the answer: a causal mask hides "tired" from "it".
  MaskSpec causal;
  causal.causal = true;
  auto masked = coref_answer(demo, run(demo, kTired, causal), e);
  REQUIRE(masked.ok());
  CHECK(masked->probability != doctest::Approx(coref_answer(demo, run(demo, kTired), e)->probability));
}

TEST_CASE("answers: each way of having no answer is a code with its values, and importance reports the same codes") {
  const Model demo = load_demo();
  const Trace tired = run(demo, kTired);
  CHECK(model_answer(demo, tired, kTired).ok());
  auto reason_of = [](const auto& result) {
    REQUIRE_FALSE(result.ok());
    CHECK(result.error() == no_answer_english(result.why()));  // error() is the same reason in English
    return result.why().reason;
  };
  const char* no_it = "The animal didn't cross the street.";
  CHECK(reason_of(model_answer(demo, run(demo, no_it), no_it)) == NoAnswerReason::no_pronoun);
  const char* one_noun = "It was too tired.";
  CHECK(reason_of(model_answer(demo, run(demo, one_noun), one_noun)) == NoAnswerReason::no_candidates);
  CHECK(reason_of(coref_head_scores(tired, coref_make(""))) == NoAnswerReason::no_tokens);
  CHECK(reason_of(coref_head_scores(run(demo, kWide), coref_make(kTired))) == NoAnswerReason::other_sentence);
  // The word the vocabulary lacks travels with its code.
  Model no_animal = demo;
  for (std::string& w : no_animal.vocab)
    if (w == "animal") w = "beast";
  auto unknown = model_answer(no_animal, tired, kTired);
  CHECK(reason_of(unknown) == NoAnswerReason::unknown_word);
  CHECK(unknown.why().word == "animal");
  // Sandbox: no output head, in model_answer, importance_grid and output_logits alike.
  ModelConfig c;
  c.d_model = 16;
  c.n_heads = 2;
  c.n_layers = 1;
  const Model sandbox = model_init_random(c, 1);
  const Trace ts = run(sandbox, kTired);
  CHECK(reason_of(model_answer(sandbox, ts, kTired)) == NoAnswerReason::no_output_head);
  CHECK(reason_of(importance_grid(sandbox, ts, kTired)) == NoAnswerReason::no_output_head);
  CHECK(reason_of(output_logits(sandbox, RowVec::Zero(16))) == NoAnswerReason::no_output_head);
  CHECK(reason_of(coref_answer(sandbox, ts, coref_make(kTired))) == NoAnswerReason::no_word_readout);
  // Another model's trace, a trace read from an attention file, cross-attention, a cancelled grid.
  CHECK(reason_of(model_answer(demo, ts, kTired)) == NoAnswerReason::other_model);
  Trace weights_only = tired;
  weights_only.weights_only = true;
  CHECK(reason_of(model_answer(demo, weights_only, kTired)) == NoAnswerReason::no_model);
  TraceInput cross;
  cross.text = kTired;
  cross.source_text = kWide;
  auto tc = trace_run(demo, cross);
  REQUIRE(tc.ok());
  CHECK(reason_of(model_answer(demo, *tc, kTired)) == NoAnswerReason::cross_attention);
  CHECK(reason_of(importance_grid(demo, *tc, kTired)) == NoAnswerReason::cross_attention);
  const std::atomic<bool> cancel{true};
  CHECK(reason_of(importance_grid(demo, tired, kTired, AblationMode::zero, &cancel)) == NoAnswerReason::cancelled);
}
