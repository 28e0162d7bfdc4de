// Reading the coreference answer off a computed trace: it matches coref_predict (its own forward
// pass) on fresh and briefly trained weights, follows the output projection when that is set by
// hand, and refuses a trace of another sentence or a model without an output projection.
#include <doctest/doctest.h>

#include <cmath>

#include "analysis/coref_readout.h"
#include "support/coref_sentences.h"

using namespace attnviz;
using attnviz::test::kTired;
using attnviz::test::kWide;

namespace {


Trace trace_of(const Model& m, const std::string& text) {
  TraceInput in;
  in.text = text;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

void check_matches_predict(const Model& m, const std::string& text) {
  auto r = coref_readout(m, trace_of(m, text), text);
  REQUIRE_MESSAGE(r.ok(), r.error());
  auto p = coref_predict(m, text);
  REQUIRE(p.ok());
  CHECK(r->prediction.pronoun == p->pronoun);
  CHECK(r->prediction.referent == p->referent);
  CHECK(r->prediction.referent_text == p->referent_text);
  CHECK(r->prediction.probability == doctest::Approx(p->probability).epsilon(1e-4));
}

}  // namespace

TEST_CASE("coref readout: the same answer as coref_predict, fresh and after some training") {
  CorefTrainOptions o;
  o.max_steps = 40;
  o.eval_every = 40;
  auto fresh = coref_model_init(o);
  REQUIRE(fresh.ok());
  check_matches_predict(*fresh, kTired);
  check_matches_predict(*fresh, kWide);
  auto run = coref_train(o);
  REQUIRE(run.ok());
  check_matches_predict(run->model, kTired);
  check_matches_predict(run->model, kWide);

  auto r = coref_readout(run->model, trace_of(run->model, kTired), kTired);
  REQUIRE(r.ok());
  CHECK(r->example.pronoun == 7);
  CHECK(r->example.candidate_a == 1);  // animal
  CHECK(r->example.candidate_b == 5);  // street
  CHECK(r->example.property == 10);    // tired
  CHECK(r->prediction.probability >= 0.5f);
  CHECK(r->prediction.probability <= 1.0f);
}

TEST_CASE("coref readout: follows the output projection's rows for the two candidates") {
  auto m = coref_model_init(CorefTrainOptions{});
  REQUIRE(m.ok());
  Model model = std::move(*m);
  const Trace t = trace_of(model, kTired);
  int animal = -1, street = -1;
  for (size_t i = 0; i < model.vocab.size(); ++i) {
    if (model.vocab[i] == "animal") animal = static_cast<int>(i);
    if (model.vocab[i] == "street") street = static_cast<int>(i);
  }
  REQUIRE((animal >= 0 && street >= 0));
  // Logits: animal = 0 + 2, street = 0 + 0, so p(animal) = 1 / (1 + e^-2) = 0.880797.
  model.weights.output_w.row(animal).setZero();
  model.weights.output_w.row(street).setZero();
  model.weights.output_b(animal) = 2.0f;
  model.weights.output_b(street) = 0.0f;
  auto r = coref_readout(model, t, kTired);
  REQUIRE(r.ok());
  CHECK(r->prediction.referent_text == "animal");
  CHECK(r->prediction.referent == 1);
  CHECK(r->prediction.probability == doctest::Approx(0.880797f).epsilon(1e-5));
  // The pronoun's final state along the street row: the street's logit is |final[7]|² > 2 here.
  model.weights.output_w.row(street) = t.final.row(7);
  const float sq = t.final.row(7).squaredNorm();
  REQUIRE(sq > 2.0f);
  r = coref_readout(model, t, kTired);
  REQUIRE(r.ok());
  CHECK(r->prediction.referent_text == "street");
  CHECK(r->prediction.probability == doctest::Approx(1.0f / (1.0f + std::exp(-(sq - 2.0f)))).epsilon(1e-4));
}

TEST_CASE("coref readout: errors for a sentence without a pronoun, a mismatched trace, no output projection") {
  auto m = coref_model_init(CorefTrainOptions{});
  REQUIRE(m.ok());
  const Trace t = trace_of(*m, kTired);
  CHECK_FALSE(coref_readout(*m, t, "The cat sat on the mat.").ok());
  CHECK_FALSE(coref_readout(*m, t, "It was too tired.").ok());
  CHECK_FALSE(coref_readout(*m, trace_of(*m, "The animal didn't cross the street because it was tired."), kTired).ok());
  Model bare = *m;
  bare.weights.output_w = Mat();
  bare.weights.output_b = Vec();
  CHECK_FALSE(coref_readout(bare, t, kTired).ok());
}
