// The engine against PyTorch, number for number: every fixture in tests/fixtures/torch was written
// by make_torch_fixtures.py from nn.TransformerEncoder / nn.MultiheadAttention (or explicit torch
// formulas for the scoring functions PyTorch lacks). Tolerance 1e-5 everywhere.
#include <cmath>

#include <nlohmann/json.hpp>

#include "io/model_file.h"
#include "model/attention.h"
#include "model/embed.h"
#include "model/layer.h"
#include "model/mask.h"
#include "model/trace.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

constexpr float kTol = 1e-5f;

MaskSpec fixture_mask(const TensorFile& f) {
  auto m = mask_from_json(nlohmann::json::parse(f.metadata.at("fixture.mask")));
  REQUIRE_MESSAGE(m.ok(), m.error());
  return *m;
}

// Our mask must hide exactly the cells PyTorch hid.
void check_mask(const Mat& additive, const Mat& visible) {
  REQUIRE(additive.rows() == visible.rows());
  REQUIRE(additive.cols() == visible.cols());
  for (Eigen::Index i = 0; i < visible.rows(); ++i)
    for (Eigen::Index j = 0; j < visible.cols(); ++j)
      CHECK_MESSAGE((additive(i, j) == 0.0f) == (visible(i, j) == 1.0f), "mask cell (" << i << ", " << j << ")");
}

}  // namespace

TEST_CASE("torch reference: every encoder fixture agrees to 1e-5 on every head and layer output") {
  const auto files = fixture_files("encoder_");
  REQUIRE(files.size() >= 9);
  for (const std::string& path : files) {
    CAPTURE(path);
    const TensorFile f = load_fixture(path);
    auto model = model_from_tensors(f, std::nullopt);
    REQUIRE_MESSAGE(model.ok(), model.error());
    const ModelConfig& c = model->config;
    const MaskSpec spec = fixture_mask(f);
    const int real = std::stoi(f.metadata.at("fixture.real_tokens"));
    const Mat x0 = fixture_mat(f, "fixture.input");
    const int T = static_cast<int>(x0.rows());
    const Mat mask = mask_build(spec, T, T, real);
    check_mask(mask, fixture_mat(f, "fixture.visible"));

    Mat x = x0;
    for (int l = 0; l < c.n_layers; ++l) {
      CAPTURE(l);
      const LayerTrace lt = layer_forward(model->weights.layers[static_cast<size_t>(l)], c, x, nullptr, mask);
      for (int h = 0; h < c.n_heads; ++h) {
        CAPTURE(h);
        CHECK(max_abs_diff(lt.attn.heads[static_cast<size_t>(h)].weights_kept,
                           fixture_slice(f, "fixture.weights." + std::to_string(l), h)) < kTol);
      }
      CHECK(max_abs_diff(lt.attn.out, fixture_mat(f, "fixture.attn_out." + std::to_string(l))) < kTol);
      CHECK(max_abs_diff(lt.out, fixture_mat(f, "fixture.layer_out." + std::to_string(l))) < kTol);
      // The naive twin computes the same layer.
      const LayerTrace naive = layer_forward_naive(model->weights.layers[static_cast<size_t>(l)], c, x, nullptr, mask);
      CHECK(max_abs_diff(naive.out, lt.out) < kTol);
      x = lt.out;
    }
    // trace_run (the one forward function) reaches the same final hidden states.
    if (spec.pad_to == 0) {
      TraceInput in;
      in.embeddings = x0;
      in.mask = spec;
      auto trace = trace_run(*model, in);
      REQUIRE_MESSAGE(trace.ok(), trace.error());
      CHECK(max_abs_diff(trace->final, fixture_mat(f, "fixture.layer_out." + std::to_string(c.n_layers - 1))) < kTol);
    }
  }
}

TEST_CASE("torch reference: attention fixtures (scoring functions, temperature, cross-attention)") {
  const auto files = fixture_files("mha_");
  REQUIRE(files.size() >= 8);
  for (const std::string& path : files) {
    CAPTURE(path);
    const TensorFile f = load_fixture(path);
    auto config = config_from_json(nlohmann::json::parse(f.metadata.at(kConfigKey)));
    REQUIRE_MESSAGE(config.ok(), config.error());
    const ModelConfig& c = *config;
    const int HS = c.head_size();
    // Start from random weights so scoring parameters a fixture lacks still have the right shape.
    Model model = model_init_random(c, 1);
    AttentionWeights& w = model.weights.layers[0].attn;
    w.in_proj_w = fixture_mat(f, "self_attn.in_proj_weight");
    w.in_proj_b = fixture_mat(f, "self_attn.in_proj_bias").transpose();
    w.out_w = fixture_mat(f, "self_attn.out_proj.weight");
    w.out_b = fixture_mat(f, "self_attn.out_proj.bias").transpose();
    if (const Tensor* g = f.find("self_attn.score_general.w"))
      w.general_w = Eigen::Map<const Mat>(g->data.data(), c.n_heads * HS, HS);
    if (const Tensor* a = f.find("self_attn.score_additive.w_q")) {
      w.additive_wq = Eigen::Map<const Mat>(a->data.data(), c.n_heads * HS, HS);
      w.additive_wk = Eigen::Map<const Mat>(f.find("self_attn.score_additive.w_k")->data.data(), c.n_heads * HS, HS);
      w.additive_v = fixture_mat(f, "self_attn.score_additive.v");
    }
    const Mat xq = fixture_mat(f, "fixture.query");
    const Mat xkv = fixture_mat(f, "fixture.key_value");
    const int real = std::stoi(f.metadata.at("fixture.real_tokens"));
    const Mat mask = mask_build(fixture_mask(f), static_cast<int>(xq.rows()), static_cast<int>(xkv.rows()), real);
    check_mask(mask, fixture_mat(f, "fixture.visible"));

    for (bool naive : {false, true}) {
      CAPTURE(naive);
      const AttentionTrace t = naive ? attention_forward_naive(w, c, xq, xkv, mask) : attention_forward(w, c, xq, xkv, mask);
      for (int h = 0; h < c.n_heads; ++h) {
        CAPTURE(h);
        const HeadTrace& head = t.heads[static_cast<size_t>(h)];
        CHECK(max_abs_diff(head.scores_raw, fixture_slice(f, "fixture.raw_scores", h)) < kTol);
        CHECK(max_abs_diff(head.scores_scaled, fixture_slice(f, "fixture.scaled_scores", h)) < kTol);
        CHECK(max_abs_diff(head.weights_kept, fixture_slice(f, "fixture.weights", h)) < kTol);
        CHECK(max_abs_diff(head.out, fixture_slice(f, "fixture.head_out", h)) < kTol);
      }
      CHECK(max_abs_diff(t.concat, fixture_mat(f, "fixture.concat")) < kTol);
      CHECK(max_abs_diff(t.out, fixture_mat(f, "fixture.output")) < kTol);
    }
  }
}

TEST_CASE("torch reference: token embeddings plus sinusoidal or learned positions") {
  const TensorFile f = load_fixture(fixture_path("torch/embed.safetensors"));
  const Mat tok = fixture_mat(f, "tok_embed.weight");
  const Mat ids = fixture_mat(f, "fixture.ids");
  const int T = static_cast<int>(ids.cols()), C = static_cast<int>(tok.cols());
  CHECK(max_abs_diff(positions_sinusoidal(T, C), fixture_mat(f, "fixture.pos_sinusoidal")) < 1e-6f);

  ModelConfig c = test::sized_config({.d_model = C, .n_heads = 2, .d_ff = 8});
  c.max_positions = static_cast<int>(fixture_mat(f, "pos_embed.weight").rows());
  Model model = model_init_random(c, 3);
  model.weights.tok_embed = tok;
  std::vector<std::string> words;
  for (int v = 0; v < tok.rows(); ++v) model.vocab.push_back("w" + std::to_string(v));
  for (int t = 0; t < T; ++t) words.push_back("w" + std::to_string(static_cast<int>(ids(0, t))));

  auto sinus = embed_tokens(model, words);
  REQUIRE(sinus.ok());
  CHECK(max_abs_diff(sinus->x, fixture_mat(f, "fixture.embed_sinusoidal")) < 1e-6f);

  model.config.positions = PositionEncoding::learned;
  model.weights.pos_embed = fixture_mat(f, "pos_embed.weight");
  auto learned = embed_tokens(model, words);
  REQUIRE(learned.ok());
  CHECK(max_abs_diff(learned->x, fixture_mat(f, "fixture.embed_learned")) < 1e-6f);
}

TEST_CASE("torch reference: a raw state dict without our metadata loads with the head count alone and agrees") {
  // As a user would save it: nn.TransformerEncoder(...).state_dict() and nothing else.
  TensorFile f = load_fixture(fixture_path("torch/encoder_c64_h4_post_relu_causal.safetensors"));
  f.metadata.clear();
  ModelConfig fallback;  // PyTorch's defaults: post-norm, relu, eps 1e-5
  fallback.n_heads = 4;
  fallback.positions = PositionEncoding::none;
  auto model = model_from_tensors(f, fallback);
  REQUIRE_MESSAGE(model.ok(), model.error());
  CHECK(model->config.d_model == 64);
  CHECK(model->config.n_layers == 2);
  CHECK(model->config.d_ff == 48);
  TraceInput in;
  in.embeddings = fixture_mat(f, "fixture.input");
  in.mask.causal = true;
  auto trace = trace_run(*model, in);
  REQUIRE_MESSAGE(trace.ok(), trace.error());
  CHECK(max_abs_diff(trace->final, fixture_mat(f, "fixture.layer_out.1")) < kTol);
  for (int h = 0; h < 4; ++h) CHECK(max_abs_diff(trace->head(1, h).weights_kept, fixture_slice(f, "fixture.weights.1", h)) < kTol);
}
