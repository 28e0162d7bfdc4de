// Interventions (model/intervention.h): validation names what is wrong; a patch that puts back what
// the run computed anyway changes nothing, bit for bit; a zero patch is zero ablation; replacing
// the residual entering a layer at every position turns the run into the run it came from.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/intervention.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::max_abs_diff;
using attnviz::test::random_mat;

namespace {

struct TwoRuns {
  Model model;
  Trace a, b;  // the same model on two inputs of 7 tokens
};

TwoRuns two_runs(bool causal) {
  ModelConfig c = test::gpt_config({.d_model = 32, .n_heads = 4, .n_layers = 3, .d_ff = 48}, 16);
  c.positions = PositionEncoding::none;  // X is given as is
  TwoRuns r{model_init_random(c, 7), {}, {}};
  TraceInput in;
  in.mask.causal = causal;
  in.embeddings = random_mat(7, 32, 8);
  auto a = trace_run(r.model, in);
  REQUIRE_MESSAGE(a.ok(), a.error());
  in.embeddings = random_mat(7, 32, 9);
  auto b = trace_run(r.model, in);
  REQUIRE_MESSAGE(b.ok(), b.error());
  r.a = std::move(*a);
  r.b = std::move(*b);
  return r;
}

}  // namespace

TEST_CASE("interventions: validation names the head, the layer, the position or the size that is wrong") {
  const ModelConfig c = test::gpt_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 0}, 16);
  const auto message = [&](const Interventions& iv) {
    const Status s = interventions_validate(iv, c, 5);
    return s ? std::string("ok") : s.error();
  };
  Interventions ok;
  ok.heads.push_back(HeadPatch{{1, 3}, Mat::Zero(5, 8)});
  ok.residual.push_back(ResidualPatch{1, 4, RowVec::Zero(32)});
  CHECK(message(ok) == "ok");
  Interventions iv = ok;
  iv.heads.push_back(HeadPatch{{2, 0}, Mat::Zero(5, 8)});
  CHECK(message(iv) == "cannot patch head 2:0: the model has layers 0 to 1 and heads 0 to 3");
  iv = ok;
  iv.heads.front().z = Mat::Zero(4, 8);
  CHECK(message(iv) == "the patch for head 1:3 is 4 x 8, not 5 x 8 (tokens x head size)");
  iv = ok;
  iv.heads.push_back(iv.heads.front());
  CHECK(message(iv) == "head 1:3 is patched twice");
  iv = ok;
  iv.residual.front().position = 5;
  CHECK(message(iv) == "cannot patch position 5: the input has 5 tokens");
  iv = ok;
  iv.residual.front().layer = -1;
  CHECK(message(iv) == "cannot patch the residual entering layer -1: the model has layers 0 to 1");
  iv = ok;
  iv.residual.front().x = RowVec::Zero(31);
  CHECK(message(iv) == "the residual patch at layer 1, position 4 has 31 values, not d_model 32");
  iv = ok;
  iv.residual.push_back(iv.residual.front());
  CHECK(message(iv) == "the residual entering layer 1 at position 4 is patched twice");
  iv = ok;
  iv.ablation.heads = {{0, 4}};
  CHECK(message(iv) == "cannot switch off head 0:4: the model has heads 0 to 3");
}

TEST_CASE("interventions: a head patched with its own output, or a residual row with its own, is the run itself") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const TwoRuns r = two_runs(causal);
    for (int l = 0; l < 3; ++l) {
      CAPTURE(l);
      Interventions own;
      own.heads.push_back(HeadPatch{{l, 2}, r.a.head(l, 2).out});
      own.residual.push_back(ResidualPatch{l, 3, r.a.layers[static_cast<size_t>(l)].x_in.row(3)});
      auto f = trace_final_intervened(r.model, r.a, own);
      REQUIRE_MESSAGE(f.ok(), f.error());
      CHECK(*f == r.a.final);
    }
  }
}

TEST_CASE("interventions: a zero patch is zero ablation; patching every position of a layer's input gives the other run") {
  const TwoRuns r = two_runs(true);
  const int HS = 8;
  for (int l = 0; l < 3; ++l) {
    CAPTURE(l);
    Interventions zero;
    zero.heads.push_back(HeadPatch{{l, 1}, Mat::Zero(7, HS)});
    auto patched = trace_final_intervened(r.model, r.a, zero);
    auto ablated = trace_final_ablated(r.model, r.a, Ablation{{{l, 1}}, AblationMode::zero});
    REQUIRE(patched.ok());
    REQUIRE(ablated.ok());
    CHECK(*patched == *ablated);
    CHECK(max_abs_diff(*patched, r.a.final) > 1e-3f);

    // Run a, with the residual entering layer l replaced at every position by run b's: from there on
    // it is run b (the layers before l are not run again).
    Interventions all;
    for (int t = 0; t < 7; ++t) all.residual.push_back(ResidualPatch{l, t, r.b.layers[static_cast<size_t>(l)].x_in.row(t)});
    auto f = trace_final_intervened(r.model, r.a, all);
    REQUIRE(f.ok());
    CHECK(max_abs_diff(*f, r.b.final) < 1e-5f);
    // Under the causal mask, a row patched at position t changes nothing before t.
    Interventions one;
    one.residual.push_back(ResidualPatch{l, 4, r.b.layers[static_cast<size_t>(l)].x_in.row(4)});
    auto g = trace_final_intervened(r.model, r.a, one);
    REQUIRE(g.ok());
    CHECK(max_abs_diff(Mat(g->topRows(4)), Mat(r.a.final.topRows(4))) == 0.0f);
    CHECK(max_abs_diff(Mat(g->bottomRows(3)), Mat(r.a.final.bottomRows(3))) > 1e-3f);
  }
  // Every head of layer 1 patched with run b's outputs, and the residual entering layer 1 with run
  // a's own: layer 1's attention output is run b's at every position.
  Interventions heads;
  for (int h = 0; h < 4; ++h) heads.heads.push_back(HeadPatch{{1, h}, r.b.head(1, h).out});
  auto f = trace_final_intervened(r.model, r.a, heads);
  REQUIRE(f.ok());
  CHECK(max_abs_diff(*f, r.a.final) > 1e-3f);
  // Patching b's heads into a's run where a's inputs are b's too is b's run: the patch changes nothing then.
  for (int t = 0; t < 7; ++t) heads.residual.push_back(ResidualPatch{1, t, r.b.layers[1].x_in.row(t)});
  auto g = trace_final_intervened(r.model, r.a, heads);
  REQUIRE(g.ok());
  CHECK(max_abs_diff(*g, r.b.final) < 1e-5f);
}
