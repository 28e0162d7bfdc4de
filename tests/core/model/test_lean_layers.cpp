// A trace that forms its maps on demand keeps each layer's input, its heads and the last layer's
// output (model/lean_layers.h): what it releases is recomputed, where a reader needs it, to what the
// same forward keeping everything holds — the residual stream, the logit lens, direct logit
// attribution, the heads' output terms, Step by step's layer — and a continued trace stays lean.
#include <doctest/doctest.h>

#include "analysis/logit_attribution.h"
#include "analysis/logit_lens.h"
#include "analysis/measures.h"
#include "model/lean_layers.h"
#include "model/trace.h"
#include "model/trace_reuse.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

namespace attnviz::lean_layers_tests {

using test::max_abs_diff;

// A word model (its own vocabulary and output head) of the Llama shape, or of Gemma's.
Model word_model(ModelConfig c) {
  c.max_positions = 64;
  Model m = model_init_random(c, 21);
  m.vocab = {"the", "animal", "didn't", "cross", "street", "because", "it", "was", "too", "tired", "wide", "a"};
  m.weights.tok_embed = test::random_mat(static_cast<int>(m.vocab.size()), c.d_model, 22);
  m.weights.output_w = test::random_mat(static_cast<int>(m.vocab.size()), c.d_model, 23);
  m.weights.output_b = Vec::Zero(static_cast<int>(m.vocab.size()));
  return m;
}

struct Pair {
  Trace kept, lean;
};
Pair traces(const Model& m) {
  TraceInput in;
  in.text = "the animal didn't cross the street because it was too tired";
  auto kept = trace_run(m, in);
  in.maps_on_demand = true;
  auto lean = trace_run(m, in);
  REQUIRE_MESSAGE(kept.ok(), kept.error());
  REQUIRE_MESSAGE(lean.ok(), lean.error());
  return {std::move(*kept), std::move(*lean)};
}

TEST_CASE("lean layers: a trace forming its maps keeps each layer's input, its heads and the last output") {
  const Model m = word_model(test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 3, .d_ff = 48}, 2));
  const Pair p = traces(m);
  CHECK_FALSE(trace_layers_lean(p.kept));
  REQUIRE(trace_layers_lean(p.lean));
  for (int l = 0; l < 3; ++l) {
    CAPTURE(l);
    const LayerTrace& lt = p.lean.layers[static_cast<size_t>(l)];
    CHECK(lt.x_in.size() > 0);
    for (const Mat* gone : {&lt.attn_in, &lt.resid1, &lt.ffn_in, &lt.ffn_hidden, &lt.ffn_out, &lt.attn.concat, &lt.attn.out})
      CHECK(gone->size() == 0);
    CHECK((lt.out.size() > 0) == (l == 2));
    for (const HeadTrace& h : lt.attn.heads) {
      CHECK(h.q.size() > 0);
      CHECK(h.k.size() > 0);
      CHECK(h.v.size() > 0);
      CHECK(h.out.size() > 0);
      CHECK(h.q_unrotated.size() == 0);
    }
    // The same forward otherwise (the maps formed from Q and K round a little differently).
    CHECK(max_abs_diff(trace_layer_output(p.lean, l), p.kept.layers[static_cast<size_t>(l)].out) < 1e-5f);
  }
  CHECK(max_abs_diff(p.lean.final, p.kept.final) < 1e-5f);
}

TEST_CASE("lean layers: rows recomputed from the input and the heads are the forward's") {
  for (const bool gemma : {false, true}) {
    CAPTURE(gemma);
    const Model m = word_model(gemma ? test::gemma_config({.d_model = 32, .n_heads = 4, .n_layers = 3, .d_ff = 48}, 2, 12, 4)
                                     : test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 3, .d_ff = 48}, 2));
    const Pair p = traces(m);
    for (int l = 0; l < 3; ++l) {
      CAPTURE(l);
      auto rows = trace_layer_rows(m, p.lean, l, 4, 3);
      REQUIRE_MESSAGE(rows.ok(), rows.error());
      const LayerTrace& k = p.kept.layers[static_cast<size_t>(l)];
      CHECK(max_abs_diff(rows->attn.concat, k.attn.concat.middleRows(4, 3)) < 1e-5f);
      CHECK(max_abs_diff(rows->attn.out, k.attn.out.middleRows(4, 3)) < 1e-5f);
      CHECK(max_abs_diff(rows->resid1, k.resid1.middleRows(4, 3)) < 1e-5f);
      CHECK(max_abs_diff(rows->ffn_hidden, k.ffn_hidden.middleRows(4, 3)) < 1e-5f);
      CHECK(max_abs_diff(rows->out, k.out.middleRows(4, 3)) < 1e-5f);
      if (gemma) CHECK(max_abs_diff(rows->ffn_normed, k.ffn_normed.middleRows(4, 3)) < 1e-5f);
    }
    // Direct logit attribution and the logit lens read the same numbers from either trace.
    auto a_kept = logit_attribution(m, p.kept, -1, -1, -1);
    auto a_lean = logit_attribution(m, p.lean, a_kept->answer_id, a_kept->wrong_id, a_kept->position);
    REQUIRE_MESSAGE((a_kept.ok() && a_lean.ok()), (a_kept.ok() ? a_lean.error() : a_kept.error()));
    CHECK(a_lean->total == doctest::Approx(a_kept->total).epsilon(1e-4));
    CHECK(a_lean->total == doctest::Approx(a_lean->logit_diff).epsilon(1e-4));
    for (size_t l = 0; l < a_kept->mlps.size(); ++l) CHECK(a_lean->mlps[l] == doctest::Approx(a_kept->mlps[l]).epsilon(1e-4));
    auto lens_kept = logit_lens_at(m, p.kept, 6, 3);
    auto lens_lean = logit_lens_at(m, p.lean, 6, 3);
    REQUIRE((lens_kept.ok() && lens_lean.ok()));
    REQUIRE(lens_kept->size() == 4);
    REQUIRE(lens_lean->size() == 4);
    for (size_t l = 0; l < 4; ++l) {
      CHECK((*lens_lean)[l].top.front().id == (*lens_kept)[l].top.front().id);
      CHECK((*lens_lean)[l].top.front().p == doctest::Approx((*lens_kept)[l].top.front().p).epsilon(1e-4));
    }
    auto terms_kept = head_output_terms(m, p.kept, 1, 5);
    auto terms_lean = head_output_terms(m, p.lean, 1, 5);
    REQUIRE((terms_kept.ok() && terms_lean.ok()));
    CHECK(max_abs_diff(*terms_lean, *terms_kept) < 1e-5f);
  }
}

TEST_CASE("lean layers: Step by step's layer, its norm, concat, W_O and the head's Q and K before rotation") {
  const Model m = word_model(test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 48}, 2));
  const Pair p = traces(m);
  auto filled = trace_layer_for_lecture(m, p.lean, 1, 3);
  REQUIRE_MESSAGE(filled.ok(), filled.error());
  const LayerTrace& k = p.kept.layers[1];
  CHECK(max_abs_diff(filled->attn_in, k.attn_in) < 1e-6f);
  CHECK(max_abs_diff(filled->attn.concat, k.attn.concat) < 1e-5f);
  CHECK(max_abs_diff(filled->attn.out, k.attn.out) < 1e-5f);
  const HeadTrace& h = filled->attn.heads[3];
  CHECK(max_abs_diff(h.q_unrotated, k.attn.heads[3].q_unrotated) < 1e-5f);
  CHECK(max_abs_diff(h.k_unrotated, k.attn.heads[3].k_unrotated) < 1e-5f);
  CHECK(max_abs_diff(h.q, k.attn.heads[3].q) < 1e-5f);
  CHECK(filled->attn.heads[0].q.size() == 0);  // only the head shown
}

TEST_CASE("lean layers: a lean trace continued stays lean, with the rows of a whole run") {
  const Model m = word_model(test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 48}, 2));
  TraceInput in;
  in.text = "the animal didn't cross the street";
  in.maps_on_demand = true;
  auto start = trace_run(m, in);
  REQUIRE(start.ok());
  in.text += " because it was too tired";
  auto continued = trace_run_reusing(m, in, *start);
  auto whole = trace_run(m, in);
  REQUIRE((continued.ok() && whole.ok()));
  CHECK(continued->reused_rows > 0);
  CHECK(trace_layers_lean(*continued));
  CHECK(continued->layers[0].attn_in.size() == 0);
  CHECK(continued->layers[0].out.size() == 0);
  CHECK(max_abs_diff(continued->layers[1].out, whole->layers[1].out) < 1e-5f);
  CHECK(max_abs_diff(continued->final, whole->final) < 1e-5f);
}

}  // namespace attnviz::lean_layers_tests
