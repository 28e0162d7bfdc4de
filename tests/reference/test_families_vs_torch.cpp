// The checkpoint families after GPT-2 / BERT (tests/fixtures/families, made by
// make_family_checkpoints.py and make_tf5_checkpoints.py from the published model definitions)
// against PyTorch: every head's weights to 1e-5, Q and K before and after the rotation, final hidden
// states and the output head's logits to 1e-4, with config.json in transformers 4's layout and in
// 5's. The inputs are token ids (these folders carry no tokenizer).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/answer.h"
#include "base/file_io.h"
#include "io/hf_checkpoint.h"
#include "io/model_open.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"

namespace attnviz {
namespace {

using namespace test;
namespace fs = std::filesystem;

struct FamilyCase {
  std::vector<int> ids, attention_mask;
};

std::string folder_of(const std::string& name) { return fixture_path("families/" + name); }

Result<Model> open_family(const std::string& name) {
  const fs::path dir = folder_of(name);
  auto text = file_read_bytes((dir / "config.json").string());
  if (!text) return make_error(text.error());
  auto hf = hf_config_parse(std::string(text->begin(), text->end()));
  if (!hf) return make_error(hf.error());
  const fs::path index = dir / "model.safetensors.index.json";
  auto file = fs::exists(index) ? safetensors_read_sharded(index.string(), true)
                                : safetensors_map((dir / "model.safetensors").string());
  if (!file) return make_error(file.error());
  auto model = hf_model_from_tensors(std::move(*file), *hf);
  // No tokenizer here: a stand-in word "#id" per row, so the model is complete as a word-level one.
  if (model) for (int i = 0; i < hf->vocab_size; ++i) model->vocab.push_back("#" + std::to_string(i));
  return model;
}

std::vector<FamilyCase> family_cases(const std::string& name) {
  std::ifstream in(folder_of(name) + "/reference.json");
  const auto j = nlohmann::json::parse(in);
  std::vector<FamilyCase> out;
  for (const auto& c : j["cases"])
    out.push_back({c["ids"].get<std::vector<int>>(), c.value("attention_mask", std::vector<int>{})});
  return out;
}

// Slice i of an (N, R, C) reference tensor.
Mat slice(const TensorFile& ref, const std::string& name, int i) { return fixture_slice(ref, name, i); }

struct FamilyWorst {
  float attn = 0, rot = 0, hidden = 0, logits = 0;
};

// Logits the way the checkpoint's head makes them: its own head when the engine has one for it,
// else the token table (a tied head; the engine's tied head also needs the tokenizer these folders lack).
Mat logits_of(const Model& model, const Mat& final) {
  Mat out(final.rows(), model.weights.tok_embed.rows());
  for (Eigen::Index t = 0; t < final.rows(); ++t) {
    if (model_output_head(model) == OutputHead::none) {
      out.row(t) = final.row(t) * model.weights.tok_embed.transpose();
      continue;
    }
    auto row = output_logits(model, final.row(t));
    REQUIRE_MESSAGE(row.ok(), row.error());
    out.row(t) = *row;
  }
  return out;
}

FamilyWorst check_family(const std::string& name) {
  CAPTURE(name);
  auto model = open_family(name);
  REQUIRE_MESSAGE(model.ok(), model.error());
  const ModelConfig& c = model->config;
  const TensorFile ref = load_fixture(folder_of(name) + "/reference.safetensors");
  const auto cases = family_cases(name);
  REQUIRE(cases.size() == 3);
  FamilyWorst w;
  for (size_t k = 0; k < cases.size(); ++k) {
    CAPTURE(k);
    TraceInput in;
    in.token_ids = cases[k].ids;
    const int T = static_cast<int>(in.token_ids.size());
    for (int j = 0; j < static_cast<int>(cases[k].attention_mask.size()); ++j)  // padding: its keys hidden
      if (cases[k].attention_mask[static_cast<size_t>(j)] == 0)
        for (int i = 0; i < T; ++i) in.mask.hidden_cells.emplace_back(i, j);
    auto t = trace_run(*model, in);
    REQUIRE_MESSAGE(t.ok(), t.error());
    const std::string p = "case" + std::to_string(k) + ".";
    for (int l = 0; l < c.n_layers; ++l)
      for (int h = 0; h < c.n_heads; ++h)
        w.attn = std::max(w.attn, max_abs_diff(t->head(l, h).weights_kept, slice(ref, p + "attn." + std::to_string(l), h)));
    if (c.positions == PositionEncoding::rotary) {
      for (int h = 0; h < c.n_heads; ++h) {
        const HeadTrace& head = t->head(0, h);
        w.rot = std::max(w.rot, max_abs_diff(head.q_unrotated, slice(ref, p + "q_pre_rot.0", h)));
        w.rot = std::max(w.rot, max_abs_diff(head.q, slice(ref, p + "q_rot.0", h)));
        w.rot = std::max(w.rot, max_abs_diff(head.k_unrotated, slice(ref, p + "k_pre_rot.0", c.kv_group(h))));
        w.rot = std::max(w.rot, max_abs_diff(head.k, slice(ref, p + "k_rot.0", c.kv_group(h))));
      }
    }
    const Mat hidden = fixture_mat(ref, p + "hidden");
    w.hidden = std::max(w.hidden, max_abs_diff(t->final, hidden) / std::max(1.0f, hidden.cwiseAbs().maxCoeff()));
    const Mat logits = fixture_mat(ref, p + "logits");
    w.logits = std::max(w.logits, max_abs_diff(logits_of(*model, t->final), logits) /
                                      std::max(1.0f, logits.cwiseAbs().maxCoeff()));
  }
  MESSAGE(name << ": worst |attention - torch| " << w.attn << ", Q/K " << w.rot << ", hidden (relative) " << w.hidden
               << ", logits (relative) " << w.logits);
  CHECK(w.attn < 1e-5f);
  CHECK(w.rot < 1e-5f);
  CHECK(w.hidden < 1e-4f);
  CHECK(w.logits < 1e-4f);
  return w;
}

TEST_CASE("families: Llama (grouped key/value heads 4:2, separate lm_head, F32) matches PyTorch") {
  check_family("llama_tiny");
  auto m = open_family("llama_tiny");
  REQUIRE(m.ok());
  CHECK(m->config.n_kv_heads == 2);
  CHECK(m->config.norm_kind == NormKind::rms_norm);
  CHECK(m->config.gated_ffn);
  CHECK(m->config.causal);
  CHECK(model_output_head(*m) == OutputHead::linear);
}

TEST_CASE("families: Llama 3 rotary scaling, tied head, BF16 in two shards (4 query heads, 1 key/value head)") {
  check_family("llama_tied_llama3rope");
  auto m = open_family("llama_tied_llama3rope");
  REQUIRE(m.ok());
  CHECK(m->config.rope.scaling == RopeScaling::llama3);
  CHECK(m->config.kv_heads() == 1);
  CHECK(m->weights.output_w.size() == 0);
}

TEST_CASE("families: Llama with linear rotary scaling (older 'type' key), F16") {
  check_family("llama_linear_rope");
  auto m = open_family("llama_linear_rope");
  REQUIRE(m.ok());
  CHECK(m->config.rope.scaling == RopeScaling::linear);
  CHECK(m->config.rope.factor == 2.0f);
}

TEST_CASE("families: Mistral's sliding window is the local-window mask") {
  check_family("mistral_tiny");
  auto m = open_family("mistral_tiny");
  REQUIRE(m.ok());
  CHECK(m->config.sliding_window == 4);
  TraceInput in;
  in.token_ids = family_cases("mistral_tiny").back().ids;
  auto t = trace_run(*m, in);
  REQUIRE(t.ok());
  // Query 11 sees keys 8..11, itself included, and nothing before.
  CHECK(t->head(0, 0).weights_kept(11, 7) == 0.0f);
  CHECK(t->head(0, 0).weights_kept(11, 8) > 0.0f);
  CHECK(t->causal);
}

TEST_CASE("families: Qwen2 (q/k/v biases, no o_proj bias, tied head)") { check_family("qwen2_tiny"); }

TEST_CASE("families: GPT-NeoX / Pythia (a quarter of each head rotated, parallel residual, F16)") {
  check_family("pythia_tiny");
  auto m = open_family("pythia_tiny");
  REQUIRE(m.ok());
  CHECK(m->config.parallel_residual);
  CHECK(m->config.rotary_dims() == 4);
}

TEST_CASE("families: GPT-NeoX with the sequential residual and half of each head rotated") {
  check_family("pythia_sequential");
}

// The largest change of any head's weights when the model runs with `rope` instead of its own
// rotary settings (what a reader that ignored rope_parameters would show), over the reference cases.
float attention_change_with(const std::string& name, const RopeConfig& rope) {
  auto model = open_family(name), other = open_family(name);
  REQUIRE((model.ok() && other.ok()));
  other->config.rope = rope;
  float worst = 0;
  for (const FamilyCase& c : family_cases(name)) {
    TraceInput in;
    in.token_ids = c.ids;
    auto a = trace_run(*model, in);
    auto b = trace_run(*other, in);
    REQUIRE((a.ok() && b.ok()));
    for (int l = 0; l < model->config.n_layers; ++l)
      for (int h = 0; h < model->config.n_heads; ++h)
        worst = std::max(worst, max_abs_diff(a->head(l, h).weights_kept, b->head(l, h).weights_kept));
  }
  return worst;
}

TEST_CASE("families: Llama with transformers 5's config.json (llama3 scaling in rope_parameters) matches PyTorch") {
  const FamilyWorst w = check_family("llama_tf5_llama3rope");
  CHECK(w.attn < 1e-5f);
  auto m = open_family("llama_tf5_llama3rope");
  REQUIRE(m.ok());
  const RopeConfig& r = m->config.rope;
  CHECK(r.scaling == RopeScaling::llama3);
  CHECK(r.theta == 500000.0f);
  CHECK(r.factor == 8.0f);
  CHECK(r.low_freq_factor == 1.0f);
  CHECK(r.high_freq_factor == 4.0f);
  CHECK(r.original_max_positions == 64);  // not max_position_embeddings (128)
  CHECK(m->config.rotary_dims() == 16);
  // Read as transformers 4 would (theta 10000, no scaling), its heads move by this much.
  const float ignored = attention_change_with("llama_tf5_llama3rope", RopeConfig{});
  MESSAGE("llama_tf5_llama3rope: rope_parameters ignored moves a head's weight by " << ignored);
  CHECK(ignored > 0.1f);
}

TEST_CASE("families: GPT-NeoX with transformers 5's config.json (half of each head rotated, in rope_parameters)") {
  const FamilyWorst w = check_family("pythia_tf5_partial");
  CHECK(w.attn < 1e-5f);
  auto m = open_family("pythia_tf5_partial");
  REQUIRE(m.ok());
  CHECK(m->config.rope.fraction == 0.5f);
  CHECK(m->config.rotary_dims() == 8);  // of 16
  CHECK(m->config.rope.theta == 20000.0f);
  CHECK(m->config.rope.scaling == RopeScaling::none);
  CHECK(m->config.parallel_residual);
  RopeConfig pythia_default;  // GPTNeoXConfig's rotary_pct 0.25 and rotary_emb_base 10000
  pythia_default.fraction = 0.25f;
  const float ignored = attention_change_with("pythia_tf5_partial", pythia_default);
  MESSAGE("pythia_tf5_partial: rope_parameters ignored moves a head's weight by " << ignored);
  CHECK(ignored > 0.1f);
}

TEST_CASE("families: RoBERTa (positions from padding_idx + 1, padding) matches PyTorch") {
  check_family("roberta_tiny");
  auto m = open_family("roberta_tiny");
  REQUIRE(m.ok());
  CHECK(m->config.position_padding_idx == 1);
  CHECK(model_output_head(*m) == OutputHead::bert_mlm);
}

TEST_CASE("families: DistilBERT (q_lin/k_lin/v_lin/out_lin, no token types, masked-LM head)") {
  check_family("distilbert_tiny");
  auto m = open_family("distilbert_tiny");
  REQUIRE(m.ok());
  CHECK(m->config.type_vocab == 0);
  CHECK(model_output_head(*m) == OutputHead::bert_mlm);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("families: a Llama folder with its tokenizer.json opens by path and reads text") {
  check_family("llama3_tokenized");
  auto m = model_open(folder_of("llama3_tokenized"));
  REQUIRE_MESSAGE(m.ok(), m.error());
  CHECK(m->config.n_heads == 8);
  CHECK(m->config.kv_heads() == 2);
  CHECK(model_output_head(*m) == OutputHead::linear);
  TraceInput by_text;
  by_text.text = "The animal didn't cross the street because it was too tired.";
  auto a = trace_run(*m, by_text);
  REQUIRE_MESSAGE(a.ok(), a.error());
  CHECK(a->queries[0].piece == "<|begin_of_text|>");  // the template's BOS
  CHECK(a->queries[0].begin == a->queries[0].end);
  TraceInput by_ids;
  for (const TraceToken& t : a->queries) by_ids.token_ids.push_back(t.id);
  auto b = trace_run(*m, by_ids);
  REQUIRE(b.ok());
  CHECK(max_abs_diff(a->head(1, 5).weights_kept, b->head(1, 5).weights_kept) == 0.0f);
  // The causal model's next-token answer exists (its own lm_head).
  auto answer = model_answer(*m, *a, by_text.text, 5);
  REQUIRE_MESSAGE(answer.ok(), answer.error());
}

}  // namespace
}  // namespace attnviz
