// What Qwen3 and Gemma 2/3 add to the engine (ModelConfig's head_dim, qk_norm, sublayer_norm, soft
// caps, scaled_dot_scale, embed_multiplier, per-layer windows and rotation), on random models: the
// config's checks and JSON, each layer's config and mask, the fast layer against its naive twin, and
// what each part does to the numbers. The GGUF models of these families are checked against
// PyTorch and llama.cpp in tests/reference/test_gguf_models_vs_torch.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/answer.h"
#include "model/attention.h"
#include "model/embed.h"
#include "model/head_map.h"
#include "model/layer.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

namespace attnviz::later_families_tests {

using test::has;
using test::max_abs_diff;

ModelConfig gemma() { return test::gemma_config({.d_model = 40, .n_heads = 4, .n_layers = 4, .d_ff = 56}, 2, 24, 4); }

std::string invalid(const ModelConfig& c) {
  const Status s = config_validate(c);
  return s ? std::string() : s.error();
}

TEST_CASE("later families: the config's checks name what is wrong") {
  CHECK(invalid(gemma()).empty());
  ModelConfig c = gemma();
  c.d_model = 42;  // not a multiple of 4 heads: fine when head_dim gives the heads' width
  CHECK(invalid(c).empty());
  c.head_dim = 0;
  CHECK(has(invalid(c), "not divisible by 4 heads"));
  c = gemma();
  c.head_dim = 5000;
  CHECK(has(invalid(c), "head width (head_dim)"));
  c = gemma();
  c.sliding_window_pattern = 1;
  CHECK(has(invalid(c), "period of 2 or more"));
  c = gemma();
  c.sliding_window = 0;
  CHECK(has(invalid(c), "needs a sliding window"));
  c = gemma();
  c.sliding_window_pattern = 0;
  CHECK(has(invalid(c), "local rotary base"));
  c = gemma();
  c.norm_kind = NormKind::layer_norm;
  CHECK(has(invalid(c), "qk_norm"));
  c = gemma();
  c.norm = NormPlacement::post;
  CHECK(has(invalid(c), "sublayer_norm"));
  c = gemma();
  c.attn_softcap = -1;
  CHECK(has(invalid(c), "attn_softcap"));
  c = gemma();
  c.embed_multiplier = 0;
  CHECK(has(invalid(c), "embedding multiplier"));
}

TEST_CASE("later families: the new fields go through JSON; the earlier models' JSON does not change") {
  const ModelConfig c = gemma();
  const nlohmann::json j = config_to_json(c);
  for (const char* key : {"head_dim", "qk_norm", "sublayer_norm", "attn_softcap", "logit_softcap", "embed_multiplier",
                          "sliding_window_pattern", "rope_local_theta"})
    CHECK(j.contains(key));
  auto back = config_from_json(j);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(config_to_json(*back) == j);
  CHECK(back->head_size() == 24);
  CHECK(back->q_dim() == 96);
  const nlohmann::json plain = config_to_json(test::llama_config({.d_model = 32, .n_heads = 4}, 2));
  for (const char* key : {"head_dim", "qk_norm", "sublayer_norm", "attn_softcap", "sliding_window_pattern"})
    CHECK_FALSE(plain.contains(key));
  nlohmann::json bad = j;
  bad["head_dimm"] = 3;
  CHECK(has(config_from_json(bad).error(), "head_dimm"));
}

TEST_CASE("later families: each layer's window and rotation") {
  const ModelConfig c = gemma();  // pattern 3: layers 0, 1 slide, 2 sees every key, 3 slides
  CHECK(layers_differ(c));
  const bool slides[] = {true, true, false, true};
  for (int l = 0; l < 4; ++l) {
    CAPTURE(l);
    CHECK(layer_slides(c, l) == slides[l]);
    const ModelConfig lc = config_of_layer(c, l);
    CHECK(lc.sliding_window == (slides[l] ? 4 : 0));
    CHECK(lc.rope.theta == (slides[l] ? 1e4f : 1e6f));
    CHECK_FALSE(layers_differ(lc));
    CHECK(config_validate(lc));
  }
  ModelConfig mistral = test::llama_config({.d_model = 32, .n_heads = 4}, 2);
  mistral.sliding_window = 6;  // every layer slides, one mask
  CHECK_FALSE(layers_differ(mistral));
  CHECK(layer_slides(mistral, 3));
}

TEST_CASE("later families: every layer's fast forward equals its naive twin, and the trace's masks are per layer") {
  const ModelConfig c = gemma();
  const Model m = model_init_random(c, 5);
  TraceInput in;
  in.embeddings = test::random_mat(11, c.d_model, 6);
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  REQUIRE(t->mask_sliding.rows() == 11);
  for (int l = 0; l < c.n_layers; ++l) {
    CAPTURE(l);
    const LayerTrace& lt = t->layers[static_cast<size_t>(l)];
    const ModelConfig lc = config_of_layer(c, l);
    const Mat& mask = trace_layer_mask(*t, l);
    CHECK(&mask == (layer_slides(c, l) ? &t->mask_sliding : &t->mask));
    const LayerTrace naive = layer_forward_naive(m.weights.layers[static_cast<size_t>(l)], lc, lt.x_in, nullptr, mask);
    CHECK(max_abs_diff(lt.out, naive.out) < 1e-4f);
    CHECK(max_abs_diff(lt.attn_normed, naive.attn_normed) < 1e-4f);
    CHECK(lt.attn.concat.cols() == 96);  // 4 heads of 24, whatever d_model (40) is
    for (int h = 0; h < c.n_heads; ++h) {
      const HeadTrace& head = lt.attn.heads[static_cast<size_t>(h)];
      CHECK(max_abs_diff(head.weights_kept, naive.attn.heads[static_cast<size_t>(h)].weights_kept) < 1e-5f);
      // Q after its RMSNorm (weights 1 in a fresh model) and before the rotation has mean square 1.
      CHECK(head.q_unrotated.row(3).squaredNorm() / 24.0f == doctest::Approx(1.0f).epsilon(1e-3));
      // The scores are soft-capped: |s| < cap, and s = cap·tanh(raw·scale / cap).
      CHECK(head.scores_scaled.cwiseAbs().maxCoeff() < c.attn_softcap);
      const float raw = head.scores_raw(5, 2), scale = 1.0f / std::sqrt(24.0f);
      CHECK(head.scores_scaled(5, 2) == doctest::Approx(2.0f * std::tanh(raw * scale / 2.0f)).epsilon(1e-6));
      // Query 10 sees key 6 (4 back) only on the layer that does not slide.
      CHECK((head.weights_kept(10, 6) > 0.0f) == !layer_slides(c, l));
    }
  }
  // The sublayer norms are what the residual adds.
  const LayerTrace& l0 = t->layers[0];
  CHECK(max_abs_diff(l0.resid1, l0.x_in + l0.attn_normed) == 0.0f);
  CHECK(max_abs_diff(l0.out, l0.resid1 + l0.ffn_normed) == 0.0f);
}

TEST_CASE("later families: embeddings times the multiplier, logits soft-capped, a scale of the model's own") {
  ModelConfig c = gemma();
  Model m = model_init_random(c, 8);
  m.weights.tok_embed = test::random_mat(30, c.d_model, 9);
  TraceInput in;
  in.token_ids = {3, 7, 1};
  m.vocab.assign(30, "w");
  m.weights.output_w = test::random_mat(30, c.d_model, 11);  // a word model's output head
  auto embedded = embed_ids(m, in.token_ids, {});
  REQUIRE(embedded.ok());
  CHECK(embedded->row(1) == (m.weights.tok_embed.row(7) * std::sqrt(40.0f)));
  const RowVec h = test::random_mat(1, c.d_model, 10).row(0);
  auto capped = output_logits(m, h);
  auto uncapped = output_logits_uncapped(m, h);
  REQUIRE((capped.ok() && uncapped.ok()));
  CHECK(uncapped->cwiseAbs().maxCoeff() > 5.0f);  // large enough that the cap bends them
  CHECK(capped->cwiseAbs().maxCoeff() <= 5.0f);  // tanh rounds to 1 in float for the largest
  CHECK((*capped)(4) == doctest::Approx(5.0f * std::tanh((*uncapped)(4) / 5.0f)));
  // Gemma 27B's scale replaces 1/√HS.
  c.scaled_dot_scale = 0.125f;
  CHECK(score_scale(c, ScoreKind::scaled_dot) == 0.125f);
  CHECK(score_scale(c, ScoreKind::dot) == 1.0f);
  c.scaled_dot_scale = 0;
  CHECK(score_scale(c, ScoreKind::scaled_dot) == 1.0f / std::sqrt(24.0f));
}

TEST_CASE("later families: maps formed on demand use each layer's own mask") {
  const ModelConfig c = gemma();
  const Model m = model_init_random(c, 12);
  TraceInput in;
  in.embeddings = test::random_mat(12, c.d_model, 13);
  in.maps_on_demand = true;
  auto formed = trace_run(m, in);
  REQUIRE(formed.ok());
  for (int l = 0; l < c.n_layers; ++l) {
    CAPTURE(l);
    const Mat map = *head_map(*formed, l, 1);
    CHECK((map(11, 5) > 0.0f) == !layer_slides(c, l));
    CHECK(head_map_at(*formed, l, 1, 11, 9) == map(11, 9));
    CHECK(head_map_rows(*formed, l, 1, 11, 1) == map.row(11));
  }
}

}  // namespace attnviz::later_families_tests
