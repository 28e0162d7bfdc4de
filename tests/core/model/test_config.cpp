// Config validation, mask parsing and JSON round trips.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "model/config.h"
#include "support/model_util.h"

using namespace attnviz;

TEST_CASE("config: d_model not divisible by heads is a clear error") {
  ModelConfig c;
  c.d_model = 10;
  c.n_heads = 3;
  Status s = config_validate(c);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find("not divisible by 3 heads") != std::string::npos);
}

TEST_CASE("config: zero heads, zero layers and huge d_model are refused") {
  ModelConfig c;
  c.n_heads = 0;
  CHECK_FALSE(config_validate(c).ok());
  c = ModelConfig{};
  c.n_layers = 0;
  CHECK_FALSE(config_validate(c).ok());
  c = ModelConfig{};
  c.d_model = 1 << 20;
  c.n_heads = 1;
  CHECK_FALSE(config_validate(c).ok());
  c = ModelConfig{};
  c.temperature = 0.0f;
  CHECK_FALSE(config_validate(c).ok());
  c.temperature = -1.0f;
  CHECK_FALSE(config_validate(c).ok());
  CHECK(config_validate(ModelConfig{}).ok());
}

TEST_CASE("config: JSON round trip keeps every field") {
  // Pre-norm, GELU, learned positions (max_positions at its default 1024) and a final LayerNorm.
  ModelConfig c = test::gpt_config({.d_model = 96, .n_heads = 12, .n_layers = 3, .d_ff = 200}, 1024);
  c.ln_eps = 1e-6f;
  c.score = ScoreKind::general;
  c.temperature = 0.5f;
  auto back = config_from_json(config_to_json(c));
  REQUIRE(back.ok());
  CHECK(back->d_model == 96);
  CHECK(back->n_heads == 12);
  CHECK(back->n_layers == 3);
  CHECK(back->d_ff == 200);
  CHECK(back->activation == Activation::gelu);
  CHECK(back->norm == NormPlacement::pre);
  CHECK(back->positions == PositionEncoding::learned);
  CHECK(back->ln_eps == doctest::Approx(1e-6));
  CHECK(back->score == ScoreKind::general);
  CHECK(back->temperature == doctest::Approx(0.5));
  CHECK(back->final_norm);
}

TEST_CASE("config: JSON of the wrong type or with unknown names is an error") {
  CHECK_FALSE(config_from_json(nlohmann::json::array()).ok());
  CHECK_FALSE(config_from_json(nlohmann::json{{"d_model", "big"}}).ok());
  CHECK_FALSE(config_from_json(nlohmann::json{{"norm", "sideways"}}).ok());
  CHECK_FALSE(config_from_json(nlohmann::json{{"d_model", 1e12}}).ok());
  auto r = config_from_json(nlohmann::json{{"d_model", 64}, {"n_heads", 5}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().find("divisible") != std::string::npos);
}

TEST_CASE("config: an unknown key is an error naming it and every known one, never a default") {
  const std::string known =
      "d_model, n_heads, n_layers, d_ff, activation, norm, positions, ln_eps, score, temperature, max_positions, "
      "final_norm, causal, embed_norm, type_vocab, n_kv_heads, norm_kind, gated_ffn, parallel_residual, sliding_window, "
      "position_padding_idx, rope, head_scores, head_dim, qk_norm, scaled_dot_scale, attn_softcap, logit_softcap, "
      "embed_multiplier, sublayer_norm, sliding_window_pattern, rope_local_theta";
  // "heads" for "n_heads": read leniently, this was 8 heads.
  const nlohmann::json typo{{"d_model", 64}, {"heads", 4}};
  CHECK(config_from_json(typo).error() == "model config: unknown key 'heads' (known: " + known + ")");
  CHECK(config_from_json(typo, "attnviz.config").error() ==
        "attnviz.config: unknown key 'heads' (known: " + known + ")");
  const nlohmann::json rope{{"d_model", 64}, {"n_heads", 4}, {"positions", "rotary"}, {"rope", {{"base", 500000}}}};
  CHECK(config_from_json(rope).error() ==
        "model config: rope: unknown key 'base' (known: theta, fraction, scaling, factor, low_freq_factor, "
        "high_freq_factor, original_max_positions, divisors)");
  CHECK(mask_from_json(nlohmann::json{{"causal", true}, {"windows", 2}}).error() ==
        "mask: unknown key 'windows' (known: causal, pad_to, window, stride, hidden_cells)");

  // Every key config_to_json writes is known: between them these two configs write all of them.
  ModelConfig rotary;
  rotary.d_model = 64;
  rotary.n_heads = 8;
  rotary.n_kv_heads = 2;
  rotary.norm_kind = NormKind::rms_norm;
  rotary.gated_ffn = true;
  rotary.parallel_residual = true;
  rotary.sliding_window = 16;
  rotary.positions = PositionEncoding::rotary;
  ModelConfig learned;
  learned.d_model = 64;
  learned.n_heads = 2;
  learned.positions = PositionEncoding::learned;
  learned.position_padding_idx = 1;
  learned.head_scores = {ScoreKind::dot, ScoreKind::general};
  learned.type_vocab = 2;
  std::set<std::string> written;
  for (const ModelConfig& c : {rotary, learned}) {
    const nlohmann::json j = config_to_json(c);
    for (const auto& item : j.items()) written.insert(item.key());
    auto back = config_from_json(j);
    CHECK_MESSAGE(back.ok(), back.error());
  }
  CHECK(written.size() == 23);  // the known list above
}

TEST_CASE("mask: --mask values parse and combine") {
  MaskSpec m;
  CHECK(mask_spec_add(m, "causal").ok());
  CHECK(mask_spec_add(m, "window:2").ok());
  CHECK(mask_spec_add(m, "strided:3").ok());
  CHECK(mask_spec_add(m, "pad:12").ok());
  CHECK(m.causal);
  CHECK(m.window == 2);
  CHECK(m.stride == 3);
  CHECK(m.pad_to == 12);
  CHECK_FALSE(mask_spec_add(m, "window:x").ok());
  CHECK_FALSE(mask_spec_add(m, "strided:0").ok());
  CHECK_FALSE(mask_spec_add(m, "diagonal").ok());
  auto back = mask_from_json(mask_to_json(m));
  REQUIRE(back.ok());
  CHECK(back->window == 2);
  CHECK(back->pad_to == 12);
}

TEST_CASE("config: d_ff 0 means attention-only layers, a negative width is refused") {
  ModelConfig c;
  c.d_ff = 0;
  CHECK(config_validate(c).ok());
  auto back = config_from_json(config_to_json(c));
  REQUIRE(back.ok());
  CHECK(back->d_ff == 0);
  c.d_ff = -1;
  const Status s = config_validate(c);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find("between 0 (no feed-forward block)") != std::string::npos);
  c.d_ff = kMaxFF + 1;
  CHECK_FALSE(config_validate(c).ok());
  CHECK_FALSE(config_from_json(nlohmann::json{{"d_ff", -4}}).ok());
}

TEST_CASE("config: the later families' fields round-trip through JSON and are validated") {
  ModelConfig c;
  c.d_model = 64;
  c.n_heads = 8;
  c.n_kv_heads = 2;
  c.norm_kind = NormKind::rms_norm;
  c.gated_ffn = true;
  c.parallel_residual = true;
  c.sliding_window = 16;
  c.positions = PositionEncoding::rotary;
  c.rope = {.theta = 500000.0f, .fraction = 0.5f, .scaling = RopeScaling::llama3, .factor = 8.0f,
            .low_freq_factor = 1.0f, .high_freq_factor = 4.0f, .original_max_positions = 8192, .divisors = {}};
  auto back = config_from_json(config_to_json(c));
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->n_kv_heads == 2);
  CHECK(back->norm_kind == NormKind::rms_norm);
  CHECK(back->gated_ffn);
  CHECK(back->parallel_residual);
  CHECK(back->sliding_window == 16);
  CHECK(back->rope == c.rope);
  // A GGUF file's per-pair divisors round-trip too.
  c.rope = RopeConfig{};
  c.rope.scaling = RopeScaling::divisors;
  c.rope.divisors.assign(static_cast<size_t>(c.rotary_dims() / 2), 2.0f);
  c.rope.divisors[0] = 1.0f;
  auto with_divisors = config_from_json(config_to_json(c));
  REQUIRE_MESSAGE(with_divisors.ok(), with_divisors.error());
  CHECK(with_divisors->rope == c.rope);
  CHECK(back->kv_group(7) == 1);
  CHECK(back->kv_dim() == 16);
  // An earlier model's JSON has none of these keys, and gets none back.
  CHECK_FALSE(config_to_json(ModelConfig{}).contains("rope"));
  CHECK_FALSE(config_to_json(ModelConfig{}).contains("n_kv_heads"));
  c.n_kv_heads = 3;
  CHECK(config_validate(c).error() == "the 8 query heads cannot be shared evenly by 3 key/value heads");
  c.n_kv_heads = 2;
  c.rope.fraction = 0.1f;  // 0.8 of a dimension of each 8-wide head
  CHECK(config_validate(c).error() == "the rotary share of each head rotates no pair of dimensions");
}
