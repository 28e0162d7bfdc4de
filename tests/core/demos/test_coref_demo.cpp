// The coreference demo trains from scratch to >= 99% held-out accuracy (word triples never seen
// in training), deterministically, into the shipped assets/demo_coref bit for bit, and then resolves
// "it" in the famous pair both ways.
#include <cmath>

#include <doctest/doctest.h>

#include "demos/coref_demo.h"
#include "support/weights_util.h"

using namespace attnviz;

TEST_CASE("coref demo: trains to >= 99% on held-out word combinations, the same way every time") {
  const CorefTrainOptions o;  // seed 78: the shipped demo's
  int calls = 0;
  auto r = coref_train(o, [&](const TrainProgress& p, const Model&) {
    ++calls;
    CHECK(p.heldout_accuracy >= 0.0f);
    return true;
  });
  REQUIRE_MESSAGE(r.ok(), r.error());
  MESSAGE("held-out accuracy " << r->heldout_accuracy << " after " << r->history.back().step << " steps, "
                               << r->history.back().seconds << " s");
  CHECK(r->heldout_accuracy >= 0.99f);
  CHECK(calls == static_cast<int>(r->history.size()));
  CHECK(r->history.front().loss > r->history.back().loss);

  auto tired = coref_predict(r->model, "The animal didn't cross the street because it was too tired.");
  auto wide = coref_predict(r->model, "The animal didn't cross the street because it was too wide.");
  REQUIRE((tired.ok() && wide.ok()));
  CHECK(tired->referent_text == "animal");
  CHECK(wide->referent_text == "street");
  CHECK(tired->pronoun == 7);
  test::check_shipped_retrain(r->model, test::load_asset("demo_coref"));

  // Deterministic: a second run with the same seed ends with identical weights.
  CorefTrainOptions short_run = o;
  short_run.max_steps = 20;
  short_run.eval_every = 20;
  auto a = coref_train(short_run);
  auto b = coref_train(short_run);
  REQUIRE((a.ok() && b.ok()));
  CHECK(a->model.weights.layers[1].attn.in_proj_w == b->model.weights.layers[1].attn.in_proj_w);
  CHECK(a->model.weights.output_w == b->model.weights.output_w);
}

TEST_CASE("coref demo: the callback can stop training, and bad input is an error") {
  CorefTrainOptions o;
  o.eval_every = 10;
  auto r = coref_train(o, [](const TrainProgress& p, const Model&) { return p.step < 20; });
  REQUIRE(r.ok());
  CHECK(r->stopped);
  CHECK(r->history.back().step == 20);
  auto m = coref_model_init(o);
  REQUIRE(m.ok());
  CHECK_FALSE(coref_predict(*m, "The cat sat on the mat.").ok());          // no "it"
  CHECK_FALSE(coref_predict(*m, "It was too tired.").ok());                // no candidates
  o.n_heads = 5;
  CHECK_FALSE(coref_model_init(o).ok());                                   // 64 % 5 != 0
}

TEST_CASE("coref demo: unscaled dot-product and general heads start with scores 1/HS the default's") {
  // The same seed draws the same tensors whatever the scoring function; the unscaled kinds then
  // shrink W_q and W_k by HS^-1/2 each (dot) or G by HS^-1 (general). Scaled and additive keep them.
  CorefTrainOptions o;
  o.d_model = 64;
  o.n_heads = 4;  // HS 16: factors 1/4 and 1/16
  auto scaled = coref_model_init(o);
  o.score = ScoreKind::dot;
  auto dot = coref_model_init(o);
  o.score = ScoreKind::general;
  auto general = coref_model_init(o);
  o.score = ScoreKind::additive;
  auto additive = coref_model_init(o);
  REQUIRE((scaled.ok() && dot.ok() && general.ok() && additive.ok()));
  for (size_t l = 0; l < scaled->weights.layers.size(); ++l) {
    const AttentionWeights& s = scaled->weights.layers[l].attn;
    const AttentionWeights& d = dot->weights.layers[l].attn;
    CHECK(s.in_proj_w.cwiseAbs().maxCoeff() > 0.1f);
    CHECK((Mat(d.in_proj_w.topRows(128)) - Mat(s.in_proj_w.topRows(128)) * 0.25f).cwiseAbs().maxCoeff() < 1e-7f);
    CHECK(Mat(d.in_proj_w.bottomRows(64)) == Mat(s.in_proj_w.bottomRows(64)));  // W_v as drawn
    const AttentionWeights& g = general->weights.layers[l].attn;
    CHECK((Mat(g.general_w) - Mat(s.general_w) / 16.0f).cwiseAbs().maxCoeff() < 1e-8f);
    CHECK(Mat(g.in_proj_w) == Mat(s.in_proj_w));
    CHECK(Mat(additive->weights.layers[l].attn.in_proj_w) == Mat(s.in_proj_w));
    CHECK(Mat(additive->weights.layers[l].attn.additive_v) == Mat(s.additive_v));
  }
}

TEST_CASE("coref demo: deep models start with their residual branches' last projections 0.5/sqrt(2L) the default") {
  // Each layer's W_O and second FFN linear; every other tensor as drawn. Models of 1-2 layers (the
  // shipped demo and grid among them) keep the default draw.
  for (const int layers : {1, 2, 3, 4}) {
    CAPTURE(layers);
    CorefTrainOptions o;
    o.n_layers = layers;
    o.d_ff = 64;
    const auto m = coref_model_init(o);
    REQUIRE(m.ok());
    const Model drawn = model_init_random(m->config, o.seed);
    const float scale = layers >= 3 ? 0.5f / std::sqrt(2.0f * static_cast<float>(layers)) : 1.0f;
    for (size_t l = 0; l < drawn.weights.layers.size(); ++l) {
      const LayerWeights& a = m->weights.layers[l];
      const LayerWeights& d = drawn.weights.layers[l];
      CHECK(Mat(d.attn.out_w).cwiseAbs().maxCoeff() > 0.1f);
      CHECK((Mat(a.attn.out_w) - Mat(d.attn.out_w) * scale).cwiseAbs().maxCoeff() < 1e-7f);
      CHECK((Mat(a.ff2_w) - Mat(d.ff2_w) * scale).cwiseAbs().maxCoeff() < 1e-7f);
      CHECK(Mat(a.attn.in_proj_w) == Mat(d.attn.in_proj_w));
      CHECK(Mat(a.ff1_w) == Mat(d.ff1_w));
      CHECK(a.attn.out_b == d.attn.out_b);
      CHECK(a.ff2_b == d.ff2_b);
    }
  }
}

TEST_CASE("coref demo: the learning rate follows the architecture, --lr overrides it") {
  CorefTrainOptions o;  // the shipped demo
  CHECK(coref_learning_rate(o) == doctest::Approx(3e-3f));
  o.d_model = 128;
  CHECK(coref_learning_rate(o) == doctest::Approx(1.5e-3f));  // scaled by 64 / d_model above 64
  o.n_layers = 1;
  CHECK(coref_learning_rate(o) == doctest::Approx(7.5e-4f));  // one wide layer: halved again
  o.d_model = 64;
  CHECK(coref_learning_rate(o) == doctest::Approx(3e-3f));    // not at 64 and below
  o.score = ScoreKind::dot;
  CHECK(coref_learning_rate(o) == doctest::Approx(1.5e-3f));  // unscaled scores
  o.score = ScoreKind::scaled_dot;
  o.n_layers = 3;
  CHECK(coref_learning_rate(o) == doctest::Approx(1.5e-3f));  // three layers or more at d_model 64: halved
  o.n_layers = 4;
  o.d_model = 128;
  CHECK(coref_learning_rate(o) == doctest::Approx(7.5e-4f));  // and wider: 64 / d_model, then halved
  o.score = ScoreKind::general;
  CHECK(coref_learning_rate(o) == doctest::Approx(7.5e-4f));  // unscaled, deep and wide: halved once
  o.score = ScoreKind::additive;
  o.d_model = 32;
  CHECK(coref_learning_rate(o) == doctest::Approx(3e-3f));  // not below 64
  o.lr = 1e-2f;
  CHECK(coref_learning_rate(o) == doctest::Approx(1e-2f));
  CHECK(coref_arch_key(CorefTrainOptions{}) == "heads4_dmodel32");
}

TEST_CASE("coref demo: deep and wide models are evaluated every 50 steps, the rest every 100") {
  CorefTrainOptions o;  // the shipped demo: 2 layers at d_model 32
  CHECK(coref_eval_every(o) == 100);
  o.n_layers = 4;
  CHECK(coref_eval_every(o) == 100);  // deep but narrow
  o.d_model = 64;
  CHECK(coref_eval_every(o) == 50);
  o.n_layers = 2;
  o.d_model = 128;
  CHECK(coref_eval_every(o) == 100);  // wide but shallow
  o.eval_every = 7;
  CHECK(coref_eval_every(o) == 7);
  // The run evaluates where the rule says: with a target of 0 the first evaluation ends it, at step
  // 50 (100 for the shipped shape).
  CorefTrainOptions deep;
  deep.d_model = 64;
  deep.n_heads = 2;
  deep.n_layers = 3;
  deep.max_steps = 100;
  deep.target_accuracy = 0;
  const auto run = coref_train(deep);
  REQUIRE_MESSAGE(run.ok(), run.error());
  REQUIRE(run->history.size() == 1);
  CHECK(run->history[0].step == 50);
  deep.eval_every = -1;
  const auto bad = coref_train(deep);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("steps between evaluations must not be negative") != std::string::npos);
}

TEST_CASE("coref demo: the batch size follows the depth, an explicit one overrides it") {
  CorefTrainOptions o;  // the shipped demo: 2 layers
  CHECK(coref_batch_size(o) == 16);
  o.n_layers = 1;
  CHECK(coref_batch_size(o) == 16);
  o.n_layers = 3;
  CHECK(coref_batch_size(o) == 32);
  o.n_layers = 4;
  CHECK(coref_batch_size(o) == 32);
  o.batch = 8;
  CHECK(coref_batch_size(o) == 8);
  o.batch = -1;
  o.max_steps = 1;
  const auto r = coref_train(o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("batch size must not be negative") != std::string::npos);
}

TEST_CASE("coref demo: the held-out check stops early only when the target is out of reach") {
  // Models at several stages of training: the early-stopping check must make the full
  // evaluation's decision every time, and agree with it exactly whenever it scores every example.
  CorefTrainOptions o;
  const CorefSplit data = coref_generate(o.seed);
  const int n = static_cast<int>(data.heldout.size());
  int stopped_early = 0, complete = 0;
  for (const int steps : {1, 60, 200}) {  // short runs: this test also runs under the sanitizers
    CAPTURE(steps);
    CorefTrainOptions run = o;
    run.max_steps = steps;
    run.eval_every = steps;
    auto r = coref_train(run);
    REQUIRE(r.ok());
    const float full = coref_evaluate(r->model, data.heldout);
    CHECK(r->heldout_accuracy == full);  // the last step always scores every example
    for (const float target : {0.5f, 0.9f, 0.99f, 0.999f}) {
      CAPTURE(target);
      const CorefEvaluation e = coref_evaluate_for_target(r->model, data.heldout, target);
      CHECK(e.reached == (full >= target));
      if (e.complete) {
        ++complete;
        CHECK(e.examples == n);
        CHECK(e.accuracy == full);
      } else {
        ++stopped_early;
        CHECK(full < target);
        CHECK(e.examples < n);
        CHECK(e.examples >= n / 8);
      }
    }
  }
  CHECK(stopped_early > 0);  // both paths were taken
  CHECK(complete > 0);
}
