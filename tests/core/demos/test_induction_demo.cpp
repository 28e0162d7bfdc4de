// The induction demo trains from scratch, in under a second, into a model whose layer-1 head copies
// on the repeat (>= 0.95, and >= 0.8 by our induction detector) fed by a previous-token head in
// layer 0, and predicts 99% of the held-out repeats, the shipped assets/demo_induction bit for bit;
// random weights score low; a seed gives the same weights every time.
#include <cmath>

#include <doctest/doctest.h>

#include "demos/induction_demo.h"
#include "model/trace.h"
#include "support/weights_util.h"

using namespace attnviz;

TEST_CASE("induction demo: targets cover the repeat after its first token, with a causal mask") {
  InductionSequence s;
  s.ids = {5, 6, 7, 1, 2, 5, 6, 7};
  s.repeat_start = 5;
  s.repeat_length = 3;
  const TrainExample ex = induction_train_example(s);
  CHECK(ex.ids == s.ids);
  // Position t predicts ids[t + 1]: 5 -> 6 and 6 -> 7; the 5 at position 5 itself is unpredictable.
  CHECK(ex.targets == std::vector<int>{-1, -1, -1, -1, -1, 6, 7, -1});
  CHECK(ex.mask.causal);
}

TEST_CASE("induction demo: trains to an induction head in layer 1 and a previous-token head in layer 0") {
  InductionTrainOptions o;
  int calls = 0;
  auto r = induction_train(o, [&](const TrainProgress& p, const Model&) {
    ++calls;
    CHECK(p.evaluated);  // report_every 0: called at evaluations only
    return true;
  });
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK_FALSE(r->stopped);
  CHECK(calls == static_cast<int>(r->history.size()));
  CHECK(r->history.front().loss > r->history.back().loss);
  CHECK(r->model.config.d_ff == 0);
  CHECK(r->model.config.n_layers == 2);

  auto s = induction_scores(r->model, o.seed);
  REQUIRE_MESSAGE(s.ok(), s.error());
  MESSAGE("after " << r->history.back().step << " steps, " << r->history.back().seconds << " s: held-out accuracy "
                   << r->heldout_accuracy << ", induction L" << s->best_on_repeat_layer << "H" << s->best_on_repeat_head
                   << " " << s->best_on_repeat << " on the repeat (detector " << s->best_on_repeat_general
                   << "), previous-token L0H" << s->best_previous_head << " " << s->best_previous);
  CHECK(r->history.back().step < o.max_steps);  // stopped on the target, not the step limit
  CHECK(r->history.back().target_reached);
  CHECK(r->heldout_accuracy >= 0.99f);
  CHECK(s->best_on_repeat_layer == 1);
  CHECK(s->best_on_repeat >= 0.95f);
  CHECK(s->best_on_repeat_general >= 0.8f);
  // A previous-token head: well above the ~0.1 of a causal average over ~12 keys.
  CHECK(s->best_previous >= 0.4f);
  // The induction head is not the previous-token head, and layer 0 does no induction.
  const auto& grid = s->induction.by_layer_head;
  for (const DetectorScore& d : grid[0]) CHECK(d.score < 0.3f);
  for (float copied : s->on_repeat[0]) CHECK(copied < 0.3f);
  CHECK(s->previous_token.by_layer_head[1][static_cast<size_t>(s->best_on_repeat_head)].score < 0.3f);
  test::check_shipped_retrain(r->model, test::load_asset("demo_induction"));
}

TEST_CASE("induction demo: a head's score on the repeat is its attention from each repeated token to the one to copy") {
  const Model m = test::load_asset("demo_induction");
  const InductionTrainOptions o;
  auto s = induction_scores(m, o.seed);
  REQUIRE_MESSAGE(s.ok(), s.error());
  // The same sequences as the scores (the held-out set's first 16), each head's weights read by hand.
  auto seqs = induction_heldout(o, 16);
  REQUIRE(seqs.ok());
  std::vector<std::vector<double>> sum(2, std::vector<double>(2, 0.0));
  int n = 0;
  for (const InductionSequence& q : *seqs) {
    TraceInput in;
    in.token_ids = q.ids;
    in.mask.causal = true;
    auto t = trace_run(m, in);
    REQUIRE(t.ok());
    REQUIRE(q.repeat_length == 6);
    for (int k = 0; k < 5; ++k, ++n)  // the repeat's last token has nothing to predict
      for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 2; ++h) sum[l][h] += t->head(l, h).weights_kept(q.repeat_start + k, k + 1);
  }
  REQUIRE(n == 80);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) CHECK(s->on_repeat[l][h] == doctest::Approx(sum[l][h] / n).epsilon(1e-6));
  const int best = s->on_repeat[1][0] > s->on_repeat[1][1] ? 0 : 1;
  CHECK(s->best_on_repeat_layer == 1);
  CHECK(s->best_on_repeat_head == best);
  CHECK(s->best_on_repeat == s->on_repeat[1][static_cast<size_t>(best)]);
  CHECK(s->best_on_repeat_general == s->induction.by_layer_head[1][static_cast<size_t>(best)].score);
  // The detector also reads the filler's chance repeats, which the model is never asked to predict:
  // the head copies more sharply on the repeat than the detector says.
  CHECK(s->best_on_repeat > s->best_on_repeat_general + 0.02f);
}

TEST_CASE("induction demo: every head of an untrained model scores low") {
  InductionTrainOptions o;
  auto m = induction_model_init(o);
  REQUIRE(m.ok());
  auto s = induction_scores(*m, o.seed);
  REQUIRE_MESSAGE(s.ok(), s.error());
  for (size_t l = 0; l < s->induction.by_layer_head.size(); ++l)
    for (size_t h = 0; h < s->induction.by_layer_head[l].size(); ++h) {
      CAPTURE(l);
      CAPTURE(h);
      CHECK(s->induction.by_layer_head[l][h].defined);
      CHECK(s->induction.by_layer_head[l][h].score <= 0.2f);
      CHECK(s->previous_token.by_layer_head[l][h].score <= 0.3f);
    }
  auto heldout = induction_heldout(o, 16);
  REQUIRE(heldout.ok());
  CHECK(induction_evaluate(*m, *heldout) < 0.2f);
}

TEST_CASE("induction demo: deterministic for a seed, a new seed gives other weights") {
  InductionTrainOptions o;
  o.max_steps = 30;
  o.eval_every = 30;
  auto a = induction_train(o);
  auto b = induction_train(o);
  o.seed = 2;
  auto c = induction_train(o);
  REQUIRE((a.ok() && b.ok() && c.ok()));
  CHECK(a->model.weights.layers[1].attn.in_proj_w == b->model.weights.layers[1].attn.in_proj_w);
  CHECK(a->model.weights.pos_embed == b->model.weights.pos_embed);
  CHECK(a->model.weights.output_w == b->model.weights.output_w);
  CHECK(a->history.back().loss == b->history.back().loss);
  CHECK(a->model.weights.tok_embed != c->model.weights.tok_embed);
  // The held-out set is fixed by the seed too.
  auto h1 = induction_heldout(o, 4), h2 = induction_heldout(o, 4);
  REQUIRE((h1.ok() && h2.ok()));
  CHECK((*h1)[3].ids == (*h2)[3].ids);
  CHECK((*h1)[0].repeat_start == o.length - o.segment_length);
}

TEST_CASE("induction demo: the callback can stop training, and bad options are errors") {
  InductionTrainOptions o;
  o.eval_every = 10;
  o.report_every = 5;
  std::vector<int> seen;
  auto r = induction_train(o, [&](const TrainProgress& p, const Model&) {
    seen.push_back(p.step);
    return p.step < 20;
  });
  REQUIRE(r.ok());
  CHECK(r->stopped);
  CHECK(seen == std::vector<int>{5, 10, 15, 20});
  CHECK(r->history.back().step == 20);

  auto error_of = [](InductionTrainOptions bad) {
    auto m = induction_train(bad);
    return m.ok() ? std::string("(accepted)") : m.error();
  };
  InductionTrainOptions bad = o;
  bad.n_layers = 1;
  CHECK(error_of(bad).find("at least 2 layers") != std::string::npos);
  bad = o;
  bad.n_heads = 3;  // 32 % 3 != 0
  CHECK(error_of(bad).find("divisible") != std::string::npos);
  bad = o;
  bad.length = 10;  // two copies of 6 do not fit
  CHECK(error_of(bad).find("cannot hold two copies") != std::string::npos);
  bad = o;
  bad.vocab_size = 6;  // no token left for the filler
  CHECK(error_of(bad).find("too small") != std::string::npos);
  bad = o;
  bad.batch = 0;
  CHECK(error_of(bad).find("positive") != std::string::npos);
  bad = o;
  bad.lr = -1e-3f;
  CHECK(error_of(bad).find("learning rate") != std::string::npos);
  CHECK_FALSE(induction_heldout(bad, 4).ok());
}

TEST_CASE("induction demo: the Model panel's architecture, its key and the model it starts") {
  const InductionTrainOptions shipped;
  CHECK(induction_arch_key(shipped) == "heads2_dmodel32");
  InductionTrainOptions o;
  o.n_layers = 3;
  o.d_ff = 64;
  o.score = ScoreKind::dot;
  o.norm = NormPlacement::post;
  o.positions = PositionEncoding::sinusoidal;
  CHECK(induction_arch_key(o) == "heads2_dmodel32_layers3_ffn64_dot_post_sinusoidal");
  // To the shared description and back: the same architecture and seed, the demo's other options.
  o.seed = 9;
  const InductionTrainOptions back = induction_options(induction_arch(o));
  CHECK(induction_arch(back) == induction_arch(o));
  CHECK(back.batch == shipped.batch);
  CHECK(back.lr == shipped.lr);
  // The learning rate follows the width and the scoring function unless given.
  CHECK(induction_learning_rate(shipped) == doctest::Approx(5e-3f));
  InductionTrainOptions wide;
  wide.d_model = 128;
  CHECK(induction_learning_rate(wide) == doctest::Approx(2.5e-3f));
  wide.score = ScoreKind::dot;
  CHECK(induction_learning_rate(wide) == doctest::Approx(1.25e-3f));
  wide.score = ScoreKind::general;
  CHECK(induction_learning_rate(wide) == doctest::Approx(1.25e-3f));
  wide.norm = NormPlacement::post;
  wide.n_layers = 3;
  CHECK(induction_learning_rate(wide) == doctest::Approx(1.25e-3f));  // halved once for either reason
  wide.score = ScoreKind::scaled_dot;
  CHECK(induction_learning_rate(wide) == doctest::Approx(1.25e-3f));
  wide.n_layers = 2;
  CHECK(induction_learning_rate(wide) == doctest::Approx(2.5e-3f));  // post-norm with 2 layers keeps it...
  wide.d_ff = 64;
  CHECK(induction_learning_rate(wide) == doctest::Approx(1.25e-3f));  // ...unless it has an FFN
  wide.norm = NormPlacement::pre;
  CHECK(induction_learning_rate(wide) == doctest::Approx(2.5e-3f));
  wide.lr = 1e-2f;
  CHECK(induction_learning_rate(wide) == doctest::Approx(1e-2f));
  auto m = induction_model_init(o);
  REQUIRE_MESSAGE(m.ok(), m.error());
  CHECK(m->config.n_layers == 3);
  CHECK(m->config.d_ff == 64);
  CHECK(m->config.activation == Activation::gelu);
  CHECK(m->config.score == ScoreKind::dot);
  CHECK(m->config.norm == NormPlacement::post);
  CHECK(m->config.positions == PositionEncoding::sinusoidal);
  // The same starting adjustments as the coreference demo: unscaled heads' W_q, W_k by HS^-1/2
  // (HS 16), each residual branch's last projection by 0.5/sqrt(2L).
  const Model drawn = model_init_random(m->config, o.seed);
  const float residual = 0.5f / std::sqrt(6.0f);
  for (size_t l = 0; l < drawn.weights.layers.size(); ++l) {
    const LayerWeights& a = m->weights.layers[l];
    const LayerWeights& d = drawn.weights.layers[l];
    CHECK((Mat(a.attn.in_proj_w.topRows(64)) - Mat(d.attn.in_proj_w.topRows(64)) * 0.25f).cwiseAbs().maxCoeff() <
          1e-7f);
    CHECK((Mat(a.attn.out_w) - Mat(d.attn.out_w) * residual).cwiseAbs().maxCoeff() < 1e-7f);
    CHECK((Mat(a.ff2_w) - Mat(d.ff2_w) * residual).cwiseAbs().maxCoeff() < 1e-7f);
  }
  // One layer cannot hold an induction head: said, not trained.
  o.n_layers = 1;
  auto one = induction_model_init(o);
  REQUIRE_FALSE(one.ok());
  CHECK(one.error() == "an induction head needs at least 2 layers (got 1)");
}
