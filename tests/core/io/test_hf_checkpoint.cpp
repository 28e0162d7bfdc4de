// Hugging Face checkpoints (tests/fixtures/hf, made by make_hf_checkpoints.py): the configs become
// the engine's settings (the rotary settings in transformers 4's and 5's layouts; every key read,
// known to be harmless or refused by name), tokens are labelled, the output heads (BERT's masked-LM
// head, GPT-2's tied lm_head) are read or refused, and the loader's errors — missing tensors, wrong
// shapes, NaN weights, unsupported configs, tie_word_embeddings at odds with the tensors; weights
// converted in parallel are the file's bit for bit with any thread count, and vocab.json's quick
// reading agrees with the strict one. The comparison with PyTorch is tests/reference/.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>

#include <nlohmann/json.hpp>

#include "analysis/coref_readout.h"
#include "io/hf_checkpoint.h"
#include "io/model_open.h"
#include "model/trace.h"
#include "text/bpe_tokenizer.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/hf_fixture.h"

namespace attnviz {
namespace {

using namespace test;

TEST_CASE("hf checkpoint: the configs become the engine's settings") {
  const Model gpt2 = open_fixture("gpt2_tiny");
  CHECK(gpt2.config.norm == NormPlacement::pre);
  CHECK(gpt2.config.activation == Activation::gelu_tanh);
  CHECK(gpt2.config.causal);
  CHECK(gpt2.config.final_norm);
  CHECK_FALSE(gpt2.config.embed_norm);
  CHECK(gpt2.config.max_positions == 64);
  CHECK(gpt2.tokenizer->kind_name() == "gpt2-bpe");
  CHECK(gpt2.tokenizer->vocab_size() == 557);
  const Model bert = open_fixture("bert_tiny_cased");
  CHECK(bert.config.norm == NormPlacement::post);
  CHECK(bert.config.activation == Activation::gelu);
  CHECK_FALSE(bert.config.causal);
  CHECK(bert.config.embed_norm);
  CHECK(bert.config.type_vocab == 2);
  CHECK(bert.config.ln_eps == doctest::Approx(1e-7));
  CHECK(bert.tokenizer->kind_name() == "wordpiece");
  CHECK(model_summary(bert) == "2 layers, 4 heads, d_model 32, wordpiece 288 pieces");
}

TEST_CASE("hf checkpoint: token ids fed directly give the same heads as the text") {
  const Model model = open_fixture("bert_tiny");
  const RefCase rc = ref_cases("bert_tiny").back();  // the sentence pair
  TraceInput by_text;
  by_text.text = rc.text;
  by_text.text_b = rc.text_b;
  TraceInput by_ids;
  by_ids.token_ids = rc.ids;
  by_ids.segment_ids = rc.segments;
  auto a = trace_run(model, by_text);
  auto b = trace_run(model, by_ids);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(max_abs_diff(a->head(1, 2).weights_kept, b->head(1, 2).weights_kept) == 0.0f);
  CHECK(b->queries[0].text == "[CLS]");
  // Segment B changes the embedding: the same ids as one segment give other heads.
  by_ids.segment_ids.clear();
  auto c = trace_run(model, by_ids);
  REQUIRE(c.ok());
  CHECK(max_abs_diff(a->head(0, 0).weights_kept, c->head(0, 0).weights_kept) > 1e-3f);
}

TEST_CASE("hf checkpoint: tokens are labelled with the text they cover") {
  const Model gpt2 = open_fixture("gpt2_tiny");
  TraceInput in;
  in.text = "The animal didn't cross";
  auto t = trace_run(gpt2, in);
  REQUIRE(t.ok());
  std::string joined;
  for (const TraceToken& tok : t->queries) {
    CHECK(tok.text.find("\xC4\xA0") == std::string::npos);  // no "Ġ" on screen
    joined += tok.text;
  }
  CHECK(joined == "The\xC2\xB7" "animal\xC2\xB7" "didn't\xC2\xB7" "cross");
  const Model bert = open_fixture("bert_tiny");
  in.text = "The animal";
  t = trace_run(bert, in);
  REQUIRE(t.ok());
  REQUIRE(t->n_queries() == 4);
  CHECK(t->queries[0].text == "[CLS]");
  CHECK(t->queries[1].text == "The");  // the uncased model read "the"; the label shows what was typed
  CHECK(t->queries[1].piece == "the");
  CHECK(t->queries[3].text == "[SEP]");
}

TEST_CASE("hf checkpoint: the padding mask pads with [PAD] for BERT and is refused for GPT-2") {
  TraceInput in;
  in.text = "The animal";
  in.mask.pad_to = 6;
  auto t = trace_run(open_fixture("bert_tiny"), in);
  REQUIRE(t.ok());
  CHECK(t->n_queries() == 6);
  CHECK(t->real_keys == 4);
  CHECK(t->queries[5].pad);
  CHECK(t->queries[5].id == 0);
  CHECK(t->head(0, 0).weights_kept(1, 5) == 0.0f);
  auto g = trace_run(open_fixture("gpt2_tiny"), in);
  REQUIRE_FALSE(g.ok());
  CHECK(g.error() == "this model's tokenizer has no padding token, so the padding mask cannot be used");
}

// A copy of a fixture folder in a temporary directory, to be damaged by a test.
struct FolderCopy {
  std::filesystem::path dir;
  explicit FolderCopy(const std::string& folder) {
    dir = std::filesystem::temp_directory_path() / ("attnviz_hf_" + folder + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::copy(fixture_path("hf/" + folder), dir);
  }
  ~FolderCopy() { std::filesystem::remove_all(dir); }
  std::string path() const { return dir.string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  void rewrite_weights(const std::function<void(TensorFile&)>& edit) const {
    auto f = safetensors_read((dir / "model.safetensors").string());
    REQUIRE(f.ok());
    edit(*f);
    REQUIRE(safetensors_write((dir / "model.safetensors").string(), *f).ok());
  }
};

Tensor* find_mut(TensorFile& f, const std::string& name) {
  for (Tensor& t : f.tensors)
    if (t.name == name) return &t;
  FAIL("no tensor " << name);
  return nullptr;
}

TEST_CASE("hf checkpoint: a missing tensor, a wrong shape or a NaN weight is an error naming the tensor") {
  FolderCopy copy("gpt2_tiny");
  const std::string weights = copy.path() + "/model.safetensors";
  copy.rewrite_weights([](TensorFile& f) {
    f.tensors.erase(std::find_if(f.tensors.begin(), f.tensors.end(),
                                 [](const Tensor& t) { return t.name == "transformer.h.1.mlp.c_fc.bias"; }));
  });
  auto m = model_open(copy.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + weights + "': the checkpoint has no tensor 'transformer.h.1.mlp.c_fc.bias'");

  FolderCopy shape("gpt2_tiny");
  shape.rewrite_weights([](TensorFile& f) {
    Tensor* t = find_mut(f, "transformer.h.0.attn.c_attn.weight");
    t->shape = {96, 32};  // (out, in): written as nn.Linear instead of Conv1D
  });
  m = model_open(shape.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().find("tensor 'transformer.h.0.attn.c_attn.weight' has shape [96, 32] but") != std::string::npos);

  FolderCopy nan("bert_tiny");
  nan.rewrite_weights([](TensorFile& f) {
    find_mut(f, "bert.encoder.layer.1.attention.self.key.weight")->data[7] = std::nanf("");
  });
  m = model_open(nan.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + nan.path() + "/model.safetensors': tensor 'bert.encoder.layer.1.attention.self.key.weight' "
                     "contains NaN or infinite values");
}

TEST_CASE("hf checkpoint: folder problems are explained") {
  FolderCopy copy("bert_tiny_cased");
  std::filesystem::remove(copy.dir / "vocab.txt");
  auto m = model_open(copy.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + copy.path() + "' has no BERT tokenizer: expected tokenizer.json or vocab.txt");

  FolderCopy weights("gpt2_tiny");
  std::filesystem::remove(weights.dir / "model.safetensors");
  m = model_open(weights.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + weights.path() + "' has config.json but no model.safetensors or model.safetensors.index.json");

  FolderCopy t5("bert_tiny");
  t5.write("config.json", R"({"model_type": "t5", "d_model": 32})");
  m = model_open(t5.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + t5.path() + "/config.json': model_type 't5' is not supported (attnviz opens gpt2, bert, "
                     "roberta, distilbert, llama, mistral, qwen2, gpt_neox)");

  m = model_open("/nonexistent/attnviz/model");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'/nonexistent/attnviz/model' does not exist");
}

TEST_CASE("hf checkpoint: a damaged config.json is named by its path, and weights without one say what is missing") {
  {
    FolderCopy bad("bert_tiny");
    bad.write("config.json", "{\"model_type\": \"bert\",");
    auto m = model_open(bad.path());
    REQUIRE_FALSE(m.ok());
    CHECK(m.error() == "'" + bad.path() + "/config.json' is not valid JSON");
  }
  FolderCopy bare("gpt2_tiny");
  std::filesystem::remove(bare.dir / "config.json");
  const std::string not_ours =
      "neither an attnviz model file (no 'attnviz.config' metadata) nor a PyTorch nn.TransformerEncoder state dict "
      "(no tensor 'layers.0.self_attn.in_proj_weight')";
  const std::string no_config = "no config.json (a Hugging Face checkpoint)";
  const std::string folder = "'" + bare.path() + "' has " + no_config + ", and its model.safetensors is " + not_ours;
  CHECK(model_open(bare.path()).error() == folder);
  CHECK(model_open(bare.path(), ModelConfig{}).error() == folder);  // the CLI's fallback changes nothing
  const std::string file = bare.path() + "/model.safetensors";
  CHECK(model_open(file).error() == "'" + file + "' is " + not_ours + ", and its folder has " + no_config);
}

TEST_CASE("hf config: published defaults, unsupported variants and bad values") {
  auto gpt2 = hf_config_parse(R"({"model_type": "gpt2"})");
  REQUIRE(gpt2.ok());
  CHECK(gpt2->config.d_model == 768);
  CHECK(gpt2->config.n_heads == 12);
  CHECK(gpt2->config.d_ff == 3072);  // n_inner absent: 4 x n_embd
  CHECK(gpt2->vocab_size == 50257);
  auto bert = hf_config_parse(R"({"architectures": ["BertForMaskedLM"], "hidden_act": "gelu_new"})");
  REQUIRE(bert.ok());
  CHECK(bert->family == CheckpointFamily::bert);
  CHECK(bert->config.activation == Activation::gelu_tanh);
  CHECK(bert->config.max_positions == 512);
  CHECK(hf_config_parse("{").error() == "config.json is not valid JSON");
  CHECK(hf_config_parse(R"({"model_type": "gpt2", "n_layer": 2, "n_layer": 3})").error() ==
        "config.json has duplicate key 'n_layer'");
  CHECK(hf_config_parse(R"({"model_type": "bert", "position_embedding_type": "relative_key"})").error() ==
        "config.json: position_embedding_type 'relative_key' is not supported (attnviz supports only 'absolute': a "
        "learned vector per position)");
  CHECK(hf_config_parse(R"({"model_type": "gpt2", "scale_attn_by_inverse_layer_idx": true})").error() ==
        "config.json: scale_attn_by_inverse_layer_idx true is not supported (attnviz supports only false: scores not "
        "divided by the layer number)");
  CHECK(hf_config_parse(R"({"model_type": "gpt2", "n_head": "twelve"})").error() ==
        "config.json: 'n_head' must be a non-negative whole number");
  CHECK(hf_config_parse(R"({"model_type": "gpt2", "n_embd": 100, "n_head": 12})").error().find("not divisible") !=
        std::string::npos);
  CHECK(hf_config_parse(R"({"model_type": "bert", "hidden_act": "gelu_fast"})").error() ==
        "config.json: hidden_act 'gelu_fast' is not supported (gelu, gelu_new, relu, silu)");
}

// ---- config.json: the rotary settings in both layouts, and every key accounted for -------------

// hf_config_parse's message ("" when the config is read).
std::string config_error(const std::string& text) {
  auto hf = hf_config_parse(text);
  return hf.ok() ? "" : hf.error();
}

Result<HfConfig> parsed(const std::string& text) {
  auto hf = hf_config_parse(text);
  REQUIRE_MESSAGE(hf.ok(), hf.error());
  return hf;
}

TEST_CASE("hf config: the rotary settings read the same in transformers 4's layout, 5's, or both") {
  // Llama 3.2's settings: transformers 4 writes rope_theta and rope_scaling, 5 one rope_parameters.
  const std::string sizes = R"("model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
    "max_position_embeddings": 128, )";
  const std::string scaling = R"("factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    "original_max_position_embeddings": 64, "rope_type": "llama3")";
  const std::string v4 = "{" + sizes + R"("rope_theta": 500000.0, "rope_scaling": {)" + scaling + "}}";
  const std::string v5 = "{" + sizes + R"("rope_parameters": {"rope_theta": 500000.0, )" + scaling + "}}";
  const std::string both = "{" + sizes + R"("rope_theta": 500000, "rope_scaling": {)" + scaling +
                           R"(}, "rope_parameters": {"rope_theta": 5e5, )" + scaling + "}}";
  for (const std::string& text : {v4, v5, both}) {
    CAPTURE(text);
    const RopeConfig r = parsed(text)->config.rope;
    CHECK(r.theta == 500000.0f);
    CHECK(r.fraction == 1.0f);
    CHECK(r.scaling == RopeScaling::llama3);
    CHECK(r.factor == 8.0f);
    CHECK(r.low_freq_factor == 1.0f);
    CHECK(r.high_freq_factor == 4.0f);
    CHECK(r.original_max_positions == 64);
  }
  // transformers 5 fills llama3's original context in from max_position_embeddings.
  CHECK(parsed("{" + sizes + R"("rope_parameters": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    "high_freq_factor": 4.0}})")->config.rope.original_max_positions == 128);
  // Linear scaling, in older files under "type"; rope_parameters without a type is the default rotation.
  const RopeConfig linear = parsed("{" + sizes + R"("rope_scaling": {"type": "linear", "factor": 2.0}})")->config.rope;
  CHECK(linear.scaling == RopeScaling::linear);
  CHECK(linear.factor == 2.0f);
  CHECK(linear.theta == 10000.0f);
  const RopeConfig plain = parsed("{" + sizes + R"("rope_parameters": {"rope_theta": 1000000.0}})")->config.rope;
  CHECK(plain.scaling == RopeScaling::none);
  CHECK(plain.theta == 1000000.0f);

  // GPT-NeoX: Pythia's own keys (4.24), 4.46's which write each setting twice, and 5's.
  const std::string neox = R"("model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4, )";
  const std::string layouts[] = {
      R"("rotary_pct": 0.5, "rotary_emb_base": 20000)",
      R"("rotary_pct": 0.5, "partial_rotary_factor": 0.5, "rotary_emb_base": 20000, "rope_theta": 20000.0,
        "rope_scaling": null)",
      R"("rope_parameters": {"partial_rotary_factor": 0.5, "rope_theta": 20000.0, "rope_type": "default"})"};
  for (const std::string& keys : layouts) {
    CAPTURE(keys);
    const ModelConfig c = parsed("{" + neox + keys + "}")->config;
    CHECK(c.rope.fraction == 0.5f);
    CHECK(c.rotary_dims() == 8);  // of 16
    CHECK(c.rope.theta == 20000.0f);
    CHECK(c.rope.scaling == RopeScaling::none);
  }
  const ModelConfig pythia_default = parsed("{" + neox + R"("rope_parameters": {"rope_type": "default"}})")->config;
  CHECK(pythia_default.rope.fraction == 0.25f);  // GPTNeoXConfig's default rotary_pct
  CHECK(pythia_default.rope.theta == 10000.0f);
}

TEST_CASE("hf config: a rotary setting written twice with two values is refused, naming both") {
  CHECK(config_error(R"({"model_type": "llama", "rope_theta": 10000,
    "rope_parameters": {"rope_theta": 500000.0, "rope_type": "default"}})") ==
        "config.json: rope_theta 10000 and rope_parameters.rope_theta 500000.0 disagree; attnviz does not guess which "
        "one the model uses");
  CHECK(config_error(R"({"model_type": "mistral", "rope_scaling": {"type": "linear", "factor": 2.0},
    "rope_parameters": {"rope_type": "llama3", "factor": 2.0}})") ==
        "config.json: rope_scaling.type 'linear' and rope_parameters.rope_type 'llama3' disagree; attnviz does not "
        "guess which one the model uses");
  CHECK(config_error(R"({"model_type": "qwen2", "rope_scaling": {"rope_type": "linear", "factor": 4},
    "rope_parameters": {"rope_type": "linear", "factor": 8.0}})") ==
        "config.json: rope_scaling.factor 4 and rope_parameters.factor 8.0 disagree; attnviz does not guess which one "
        "the model uses");
  CHECK(config_error(R"({"model_type": "gpt_neox", "rotary_pct": 0.25,
    "rope_parameters": {"partial_rotary_factor": 0.5, "rope_theta": 10000.0}})") ==
        "config.json: rotary_pct 0.25 and rope_parameters.partial_rotary_factor 0.5 disagree; attnviz does not guess "
        "which one the model uses");
  CHECK(config_error(R"({"model_type": "gpt_neox", "rotary_emb_base": 10000, "rope_theta": 20000.0})") ==
        "config.json: rotary_emb_base 10000 and rope_theta 20000.0 disagree; attnviz does not guess which one the "
        "model uses");
  // The same value spelled twice is one value.
  CHECK(config_error(R"({"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
    "rotary_pct": 0.25, "partial_rotary_factor": 0.25, "rope_parameters": {"partial_rotary_factor": 0.25}})") == "");
}

TEST_CASE("hf config: rotary variants attnviz does not follow are refused by name") {
  for (const char* type : {"yarn", "dynamic", "longrope"})
    CHECK(config_error(std::string(R"({"model_type": "llama", "rope_parameters": {"rope_type": ")") + type +
                       R"(", "factor": 4.0, "rope_theta": 10000.0}})") ==
          std::string("config.json: rope_parameters.rope_type '") + type +
              "' is not supported (attnviz supports default, linear, llama3)");
  CHECK(config_error(R"({"model_type": "gpt_neox", "rope_scaling": {"type": "dynamic", "factor": 2.0}})") ==
        "config.json: rope_scaling.type 'dynamic' is not supported (attnviz supports default, linear, llama3)");
  CHECK(config_error(R"({"model_type": "llama", "rope_parameters": {"rope_type": "llama3", "factor": 8.0,
    "low_freq_factor": 1.0, "high_freq_factor": 4.0, "attention_factor": 1.0}})") ==
        "config.json: rope_parameters: unknown key 'attention_factor' (known: rope_type, type, rope_theta, "
        "partial_rotary_factor, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings)");
  CHECK(config_error(R"({"model_type": "llama", "rope_parameters": {"rope_type": "llama3", "low_freq_factor": 1.0,
    "high_freq_factor": 4.0}})") == "config.json: rope_parameters.rope_type 'llama3' needs rope_parameters.factor");
  CHECK(config_error(R"({"model_type": "llama", "rope_parameters": {"partial_rotary_factor": 0.5}})") ==
        "config.json: rope_parameters.partial_rotary_factor 0.5 is not supported for llama (attnviz supports only 1: "
        "every dimension of a head rotated)");
  CHECK(config_error(R"({"model_type": "llama", "rope_parameters": "llama3"})") ==
        "config.json: 'rope_parameters' must be an object or null");
  CHECK(config_error(R"({"model_type": "llama", "rope_parameters": {"rope_theta": "big"}})") ==
        "config.json: 'rope_parameters.rope_theta' must be a number");
}

TEST_CASE("hf config: keys that change the numbers are refused by name, and so is a key attnviz does not know") {
  // (A small model: the published defaults are Llama 2 7B's, larger than the engine takes.)
  const auto llama = [](const std::string& keys) {
    return config_error(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
      "intermediate_size": 128, "vocab_size": 100, )" + keys + "}");
  };
  CHECK(llama(R"("attn_logit_softcapping": 50.0)") ==
        "config.json: attn_logit_softcapping 50.0 is not supported (attnviz supports only null: attention scores are "
        "not soft-capped)");
  CHECK(llama(R"("attn_logit_softcapping": null, "final_logit_softcapping": null, "use_qk_norm": false)") == "");
  CHECK(config_error(R"({"model_type": "qwen2", "final_logit_softcapping": 30.0})") ==
        "config.json: final_logit_softcapping 30.0 is not supported (attnviz supports only null: the output logits are "
        "not soft-capped)");
  CHECK(config_error(R"({"model_type": "mistral", "use_qk_norm": true})") ==
        "config.json: use_qk_norm true is not supported (attnviz supports only false: no norm on queries and keys)");
  CHECK(config_error(R"({"model_type": "mistral", "attention_bias": true})") ==
        "config.json: attention_bias true is not supported (attnviz supports only false: no biases on q/k/v/o_proj "
        "beyond the family's own)");
  CHECK(llama(R"("mlp_bias": true)") ==
        "config.json: mlp_bias true is not supported (attnviz supports only false: no biases on gate/up/down_proj)");
  CHECK(config_error(R"({"model_type": "qwen2", "use_mrope": true})") ==
        "config.json: use_mrope true is not supported (attnviz supports only false: one rotary position per token, no "
        "multimodal sections)");
  CHECK(config_error(R"({"model_type": "gpt_neox", "attention_bias": false})") ==
        "config.json: attention_bias false is not supported (attnviz supports only true: biases on query_key_value and "
        "dense)");
  CHECK(llama(R"("quantization_config": {"bits": 4, "quant_method": "gptq"})") ==
        "config.json: quantization_config {\"bits\":4,\"quant_method\":\"gptq\"} is not supported (attnviz "
        "supports only null: float weights, not quantized ones)");
  CHECK(config_error(R"({"model_type": "bert", "is_decoder": true})") ==
        "config.json: is_decoder true is not supported (attnviz supports only false: an encoder, its tokens attending "
        "both ways)");
  // Per-layer windows: Qwen2's layer_types (written from transformers 4.53 on) and use_sliding_window.
  const std::string qwen2 = R"({"model_type": "qwen2", "num_hidden_layers": 2, )";
  CHECK(config_error(qwen2 + R"("layer_types": ["full_attention", "full_attention"], "sliding_window": null,
    "max_window_layers": 28, "use_sliding_window": false})") == "");
  CHECK(config_error(qwen2 + R"("layer_types": ["full_attention", "sliding_attention"], "sliding_window": 4})") ==
        "config.json: layer_types[1] 'sliding_attention' is not supported (attnviz supports only 'full_attention' in "
        "every layer: no per-layer sliding window)");
  CHECK(config_error(qwen2 + R"("layer_types": ["full_attention"]})") ==
        "config.json: layer_types has 1 entries for 2 layers");
  CHECK(config_error(qwen2 + R"("use_sliding_window": true, "max_window_layers": 1, "sliding_window": 4})") ==
        "config.json: Qwen2 with use_sliding_window true (a window in some layers) is not supported");
  // What does not change the numbers is read past, whatever its value: dropout at inference, token ids,
  // generation defaults, labels, the stored dtype, a decoder's is_decoder.
  CHECK(llama(R"("attention_dropout": 0.1, "pad_token_id": 0, "temperature": 0.7, "id2label": {"0": "A"},
    "dtype": "bfloat16", "is_decoder": true, "pretraining_tp": 2, "_name_or_path": "x")") == "");
  // A key in no table.
  CHECK(llama(R"("rope_thetta": 500000)") ==
        "config.json: unknown key 'rope_thetta': attnviz knows the keys of transformers' LlamaConfig and refuses "
        "others, which might change the numbers");
  CHECK(config_error(R"({"model_type": "gpt2", "n_embed": 768})") ==
        "config.json: unknown key 'n_embed': attnviz knows the keys of transformers' GPT2Config and refuses others, "
        "which might change the numbers");
  CHECK(config_error(R"({"model_type": "roberta", "sliding_window": 4})") ==
        "config.json: unknown key 'sliding_window': attnviz knows the keys of transformers' RobertaConfig and refuses "
        "others, which might change the numbers");
}

TEST_CASE("hf config: every fixture's config.json and published ones are read") {
  std::vector<std::string> paths;
  for (const char* dir : {"hf", "families"})
    for (const auto& e : std::filesystem::directory_iterator(fixture_path(dir)))
      if (std::filesystem::exists(e.path() / "config.json")) paths.push_back((e.path() / "config.json").string());
  REQUIRE(paths.size() >= 17);
  for (const std::string& path : paths) {
    CAPTURE(path);
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(config_error(text) == "");
  }
  // The key sets of configs as their publishers wrote them. Where the engine's limits refuse the real
  // sizes (2^31 parameters, 65536 positions), Llama 2's and Mistral's have 2 layers and Llama 3.2's
  // max_position_embeddings is 65536: the keys are what is tested here.
  const char* published[] = {
      // meta-llama/Llama-3.2-1B (transformers 4.45)
      R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
        "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048,
        "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 65536, "mlp_bias": false,
        "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
        "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0,
        "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
        "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256})",
      // HuggingFaceTB/SmolLM2-135M (nanotron's keys)
      R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
        "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
        "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": true,
        "max_position_embeddings": 8192, "model_type": "llama",
        "num_attention_heads": 9, "num_hidden_layers": 30, "num_key_value_heads": 3, "pretraining_tp": 1,
        "rms_norm_eps": 1e-05, "rope_interleaved": false, "rope_scaling": null, "rope_theta": 100000,
        "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.42.3", "use_cache": true,
        "vocab_size": 49152})",
      // meta-llama/Llama-2-7b-hf
      R"({"_name_or_path": "meta-llama/Llama-2-7b-hf", "architectures": ["LlamaForCausalLM"], "bos_token_id": 1,
        "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
        "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 32,
        "num_hidden_layers": 2, "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
        "rope_scaling": null, "tie_word_embeddings": false, "torch_dtype": "float16",
        "transformers_version": "4.31.0.dev0", "use_cache": true, "vocab_size": 32000})",
      // mistralai/Mistral-7B-v0.1
      R"({"architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
        "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
        "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 2, "num_key_value_heads": 8,
        "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": false,
        "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000})",
      // Qwen/Qwen2.5-0.5B
      R"({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02,
        "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 24, "model_type": "qwen2",
        "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
        "transformers_version": "4.40.1", "use_cache": true, "use_mrope": false, "use_sliding_window": false,
        "vocab_size": 151936})",
      // EleutherAI/pythia-70m (transformers 4.24)
      R"({"architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
        "hidden_size": 512, "initializer_range": 0.02, "intermediate_size": 2048, "layer_norm_eps": 1e-05,
        "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 8, "num_hidden_layers": 6,
        "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false, "torch_dtype": "float16",
        "transformers_version": "4.24.0", "use_cache": true, "use_parallel_residual": true, "vocab_size": 50304})",
      // gpt2
      R"({"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
        "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12,
        "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null, "summary_first_dropout": 0.1,
        "summary_proj_to_labels": true, "summary_type": "cls_index", "summary_use_proj": true,
        "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257})",
      // bert-base-uncased
      R"({"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": false,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
        "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
        "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0, "position_embedding_type": "absolute",
        "transformers_version": "4.6.0.dev0", "type_vocab_size": 2, "use_cache": true, "vocab_size": 30522})",
      // bert-base-multilingual-cased (Google's pooler keys)
      R"({"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "directionality": "bidi",
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
        "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
        "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0, "pooler_fc_size": 768,
        "pooler_num_attention_heads": 12, "pooler_num_fc_layers": 3, "pooler_size_per_head": 128,
        "pooler_type": "first_token_transform", "type_vocab_size": 2, "vocab_size": 119547})",
      // roberta-base
      R"({"architectures": ["RobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
        "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
        "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
        "model_type": "roberta", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
        "type_vocab_size": 1, "vocab_size": 50265})",
      // distilbert-base-uncased
      R"({"activation": "gelu", "architectures": ["DistilBertForMaskedLM"], "attention_dropout": 0.1, "dim": 768,
        "dropout": 0.1, "hidden_dim": 3072, "initializer_range": 0.02, "max_position_embeddings": 512,
        "model_type": "distilbert", "n_heads": 12, "n_layers": 6, "pad_token_id": 0, "qa_dropout": 0.1,
        "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": false, "tie_weights_": true,
        "transformers_version": "4.10.0.dev0", "vocab_size": 30522})",
  };
  for (const char* text : published) {
    CAPTURE(text);
    CHECK(config_error(text) == "");
  }
}

// A family fixture's config.json edited, then its tensors loaded: the loader's message ("" when it loads).
std::string load_edited(const std::string& folder, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(fixture_path(folder + "/config.json"));
  nlohmann::json j = nlohmann::json::parse(in);
  edit(j);
  auto hf = hf_config_parse(j.dump());
  if (!hf) return hf.error();
  auto model = hf_model_from_tensors(load_fixture(fixture_path(folder + "/model.safetensors")), *hf);
  return model.ok() ? "" : model.error();
}

TEST_CASE("hf checkpoint: a tie_word_embeddings at odds with the tensors present is refused") {
  const auto tie = [](bool tied) { return [tied](nlohmann::json& j) { j["tie_word_embeddings"] = tied; }; };
  // Tied, but the file's output head is a matrix of its own.
  CHECK(load_edited("families/llama_tiny", tie(true)) ==
        "tensor 'lm_head.weight' differs from 'model.embed_tokens.weight': tie_word_embeddings is true, so lm_head "
        "must be the token embeddings");
  CHECK(load_edited("families/pythia_tiny", tie(true)) ==
        "tensor 'embed_out.weight' differs from 'gpt_neox.embed_in.weight': tie_word_embeddings is true, so embed_out "
        "must be the token embeddings");
  // Untied, but the file has no output head (transformers would draw one at random).
  CHECK(load_edited("families/qwen2_tiny", tie(false)) ==
        "tie_word_embeddings is false but the checkpoint has no tensor 'lm_head.weight' (an output head not tied to "
        "the token embeddings needs its own weights)");
  CHECK(load_edited("hf/gpt2_tiny", tie(false)) ==
        "tie_word_embeddings is false but the checkpoint has no tensor 'lm_head.weight' (an output head not tied to "
        "the token embeddings needs its own weights)");
  CHECK(load_edited("hf/bert_tiny", tie(false)) ==
        "tie_word_embeddings is false but the checkpoint has no tensor 'cls.predictions.decoder.weight' (an output "
        "head not tied to the token embeddings needs its own weights)");
  // As the files say, they load.
  CHECK(load_edited("families/llama_tiny", [](nlohmann::json&) {}) == "");
  CHECK(load_edited("families/qwen2_tiny", tie(true)) == "");
  CHECK(load_edited("families/pythia_tiny", tie(false)) == "");
  // An encoder without its masked-LM head has no output head to disagree about.
  CHECK(load_edited("hf/bert_tiny_cased", tie(false)) == "");
}

void erase_tensors(TensorFile& f, const std::function<bool(const std::string&)>& drop) {
  f.tensors.erase(std::remove_if(f.tensors.begin(), f.tensors.end(), [&](const Tensor& t) { return drop(t.name); }),
                  f.tensors.end());
}

bool is_mlm_head(const std::string& name) { return name.rfind("cls.predictions.", 0) == 0; }

TEST_CASE("hf checkpoint: BERT's masked-LM head is read from cls.predictions, outside the bert. prefix") {
  // bert_mlm keeps the tied copies (decoder.weight, decoder.bias); bert_tiny has only the head proper.
  for (const char* folder : {"bert_mlm", "bert_tiny"}) {
    CAPTURE(folder);
    const Model model = open_fixture(folder);
    REQUIRE(model_output_head(model) == OutputHead::bert_mlm);
    const TensorFile file = load_fixture(fixture_path(std::string("hf/") + folder + "/model.safetensors"));
    CHECK(model.weights.mlm_dense_w == fixture_mat(file, "cls.predictions.transform.dense.weight"));
    CHECK(model.weights.mlm_dense_b.transpose() == fixture_mat(file, "cls.predictions.transform.dense.bias"));
    CHECK(model.weights.mlm_norm_w.transpose() == fixture_mat(file, "cls.predictions.transform.LayerNorm.weight"));
    CHECK(model.weights.mlm_norm_b.transpose() == fixture_mat(file, "cls.predictions.transform.LayerNorm.bias"));
    CHECK(model.weights.output_b.transpose() == fixture_mat(file, "cls.predictions.bias"));
    CHECK(model.weights.output_w.size() == 0);  // the decoder is tok_embed itself
  }
  CHECK(model_output_head(open_fixture("gpt2_tiny")) == OutputHead::tied);
}

TEST_CASE("hf checkpoint: a BERT without its masked-LM head is still a model, half a head is an error") {
  const Model encoder = open_fixture("bert_tiny_cased");  // BertModel: pooler.dense, no cls.*
  CHECK(model_output_head(encoder) == OutputHead::none);
  CHECK(encoder.weights.mlm_dense_w.size() == 0);
  CHECK(encoder.weights.output_b.size() == 0);

  FolderCopy headless("bert_mlm");
  headless.rewrite_weights([](TensorFile& f) { erase_tensors(f, is_mlm_head); });
  auto m = model_open(headless.path());
  REQUIRE_MESSAGE(m.ok(), m.error());
  CHECK(model_output_head(*m) == OutputHead::none);
  CHECK(m->weights.mlm_norm_w.size() == 0);

  const std::string missing[] = {"cls.predictions.transform.dense.weight", "cls.predictions.transform.LayerNorm.bias"};
  for (const std::string& name : missing) {
    CAPTURE(name);
    FolderCopy half("bert_mlm");
    half.rewrite_weights([&](TensorFile& f) { erase_tensors(f, [&](const std::string& n) { return n == name; }); });
    m = model_open(half.path());
    REQUIRE_FALSE(m.ok());
    CHECK(m.error() == "'" + half.path() + "/model.safetensors': the masked-LM head is incomplete: the checkpoint "
                       "has no tensor '" + name + "'");
  }

  // The bias is one parameter under two names: either one is enough, neither is an error.
  FolderCopy decoder_bias_only("bert_mlm");
  decoder_bias_only.rewrite_weights(
      [](TensorFile& f) { erase_tensors(f, [](const std::string& n) { return n == "cls.predictions.bias"; }); });
  m = model_open(decoder_bias_only.path());
  REQUIRE_MESSAGE(m.ok(), m.error());
  const TensorFile file = load_fixture(fixture_path("hf/bert_mlm/model.safetensors"));
  CHECK(m->weights.output_b.transpose() == fixture_mat(file, "cls.predictions.decoder.bias"));
  FolderCopy no_bias("bert_mlm");
  no_bias.rewrite_weights([](TensorFile& f) {
    erase_tensors(f, [](const std::string& n) { return n == "cls.predictions.bias" || n == "cls.predictions.decoder.bias"; });
  });
  m = model_open(no_bias.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().find("the masked-LM head is incomplete: the checkpoint has no tensor 'cls.predictions.bias'") !=
        std::string::npos);
}

TEST_CASE("hf checkpoint: an output head not tied to the embeddings is refused") {
  FolderCopy decoder("bert_mlm");
  decoder.rewrite_weights([](TensorFile& f) { find_mut(f, "cls.predictions.decoder.weight")->data[5] += 0.25f; });
  auto m = model_open(decoder.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + decoder.path() + "/model.safetensors': tensor 'cls.predictions.decoder.weight' differs "
                     "from 'bert.embeddings.word_embeddings.weight': attnviz reads only a decoder tied to the word "
                     "embeddings");

  FolderCopy decoder_bias("bert_mlm");
  decoder_bias.rewrite_weights([](TensorFile& f) { find_mut(f, "cls.predictions.decoder.bias")->data[0] += 0.25f; });
  m = model_open(decoder_bias.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().find("tensor 'cls.predictions.decoder.bias' differs from 'cls.predictions.bias'") != std::string::npos);

  // GPT-2's lm_head: a tied copy loads (nothing to read), another matrix is refused.
  const TensorFile gpt2_file = load_fixture(fixture_path("hf/gpt2_tiny/model.safetensors"));
  const Mat wte = fixture_mat(gpt2_file, "transformer.wte.weight");
  FolderCopy tied("gpt2_tiny");
  tied.rewrite_weights([&](TensorFile& f) { f.tensors.push_back(tensor_from_mat("lm_head.weight", wte)); });
  m = model_open(tied.path());
  REQUIRE_MESSAGE(m.ok(), m.error());
  CHECK(model_output_head(*m) == OutputHead::tied);
  FolderCopy untied("gpt2_tiny");
  untied.rewrite_weights([&](TensorFile& f) { f.tensors.push_back(tensor_from_mat("lm_head.weight", wte * 0.5f)); });
  m = model_open(untied.path());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error() == "'" + untied.path() + "/model.safetensors': tensor 'lm_head.weight' differs from "
                     "'transformer.wte.weight': attnviz reads only an lm_head tied to the token embeddings");
}

TEST_CASE("hf checkpoint: the progress count includes the output head's tensors") {
  for (const char* folder : {"bert_mlm", "bert_tiny", "bert_tiny_cased", "gpt2_tiny"}) {
    CAPTURE(folder);
    const std::string dir = fixture_path(std::string("hf/") + folder);
    std::ifstream in(dir + "/config.json");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto hf = hf_config_parse(text);
    REQUIRE(hf.ok());
    std::vector<float> seen;
    auto model = hf_model_from_tensors(load_fixture(dir + "/model.safetensors"), *hf, [&](float f) { seen.push_back(f); });
    REQUIRE_MESSAGE(model.ok(), model.error());
    REQUIRE_FALSE(seen.empty());
    CHECK(std::is_sorted(seen.begin(), seen.end()));
    CHECK(seen.back() == 1.0f);  // every tensor read was counted, and no more
  }
}

TEST_CASE("hf tokenizer: vocab.json read without a JSON document gives what the strict reader gives") {
  const std::string dir = fixture_path("hf/gpt2_tiny");
  const auto text = [&](const char* name) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string vocab = text("vocab.json"), merges = text("merges.txt");
  auto plain = bpe_from_vocab_merges(vocab, merges);
  REQUIRE_MESSAGE(plain.ok(), plain.error());
  // The same members in another order, indented, every non-ASCII character as a \u escape.
  const std::string escaped = nlohmann::json::parse(vocab).dump(1, '\t', /*ensure_ascii=*/true);
  REQUIRE(escaped.find("\\u0120") != std::string::npos);
  auto again = bpe_from_vocab_merges(escaped, merges);
  REQUIRE_MESSAGE(again.ok(), again.error());
  REQUIRE(again->vocab_size() == plain->vocab_size());
  for (int id = 0; id < plain->vocab_size(); ++id) CHECK(again->piece(id) == plain->piece(id));
  CHECK(again->merge_count() == plain->merge_count());
  CHECK(again->is_special(556));  // <|endoftext|>
  // Errors found after reading name the entry the strict reader's (sorted) order meets first.
  const auto error_of = [](const Result<BpeTokenizer>& r) { return r.ok() ? std::string("(loaded)") : r.error(); };
  CHECK(error_of(bpe_from_vocab_merges(R"({"b": 5, "a": 7})", "")) ==
        "the id 7 of \"a\" is out of range: 2 entries need ids 0..1");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "b": 1, "a": 2})", "")) == "vocab.json has duplicate key 'a'");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "b": 1.0})", "")) == "vocab.json: the id of \"b\" is not an integer");
  CHECK(error_of(bpe_from_vocab_merges("{\"a\": 0, \"\xC3\": 1}", "")) ==
        "vocab.json is not valid UTF-8 (bad byte at offset 10)");
}

// ---- parallel conversion -----------------------------------------------------------------------

// Sets OpenMP's thread count for the scope, restoring it after.
struct Threads {
  int before = omp_get_max_threads();
  explicit Threads(int n) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(before); }
};

// A GPT-2 with sizes that are no multiple of the conversion's 8x8 blocks or 32-row tiles
// (d_model 36, d_ff 100, vocab 45), saved with the "transformer." prefix; every tensor holds values
// of its own, a negative zero among them.
constexpr const char* kOddGpt2Config = R"({"model_type": "gpt2", "n_embd": 36, "n_head": 4, "n_inner": 100,
  "n_layer": 2, "n_positions": 20, "vocab_size": 45})";

std::vector<std::pair<std::string, std::vector<int64_t>>> odd_gpt2_shapes() {
  const int64_t C = 36, F = 100;
  std::vector<std::pair<std::string, std::vector<int64_t>>> out = {{"wte.weight", {45, C}}, {"wpe.weight", {20, C}}};
  for (int i = 0; i < 2; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    out.insert(out.end(), {{p + "ln_1.weight", {C}}, {p + "ln_1.bias", {C}}, {p + "attn.c_attn.weight", {C, 3 * C}},
                           {p + "attn.c_attn.bias", {3 * C}}, {p + "attn.c_proj.weight", {C, C}}, {p + "attn.c_proj.bias", {C}},
                           {p + "ln_2.weight", {C}}, {p + "ln_2.bias", {C}}, {p + "mlp.c_fc.weight", {C, F}},
                           {p + "mlp.c_fc.bias", {F}}, {p + "mlp.c_proj.weight", {F, C}}, {p + "mlp.c_proj.bias", {C}}});
  }
  out.insert(out.end(), {{"ln_f.weight", {C}}, {"ln_f.bias", {C}}});
  return out;
}

TensorFile odd_gpt2_tensors() {
  TensorFile f;
  float next = -20.0f;
  for (const auto& [name, shape] : odd_gpt2_shapes()) {
    Tensor t;
    t.name = "transformer." + name;
    t.shape = shape;
    t.data.resize(static_cast<size_t>(t.numel()));
    for (float& v : t.data) v = (next += 0.0078125f);  // exact steps: every value distinct
    t.data[1] = -0.0f;
    f.tensors.push_back(std::move(t));
  }
  return f;
}

// Loads `path` (mapped, as model_open does) with `threads` OpenMP threads.
Result<Model> load_with_threads(const std::string& path, int threads) {
  auto hf = hf_config_parse(kOddGpt2Config);
  REQUIRE_MESSAGE(hf.ok(), hf.error());
  auto file = safetensors_map(path);
  REQUIRE_MESSAGE(file.ok(), file.error());
  const Threads scope(threads);
  return hf_model_from_tensors(std::move(*file), *hf);
}

// Matrices, weights or vectors of the same shape and the same bits in every value.
template <class A, class B>
bool same_bits(const Eigen::DenseBase<A>& a, const Eigen::DenseBase<B>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      if (std::bit_cast<uint32_t>(a(i, j)) != std::bit_cast<uint32_t>(b(i, j))) return false;
  return true;
}

TEST_CASE("hf checkpoint: weights converted in parallel are the file's, bit for bit, with 1, 2 or 3 threads") {
  const TempFile path("attnviz-test-odd-gpt2.safetensors");
  const TensorFile written = odd_gpt2_tensors();
  REQUIRE(safetensors_write(path, written).ok());
  const auto stored = [&](const std::string& name) { return fixture_mat(written, "transformer." + name); };
  const auto stored_vec = [&](const std::string& name) { return Vec(stored(name).row(0).transpose()); };
  for (const int threads : {1, 2, 3}) {
    CAPTURE(threads);
    auto m = load_with_threads(path, threads);
    REQUIRE_MESSAGE(m.ok(), m.error());
    const ModelWeights& w = m->weights;
    CHECK(same_bits(w.tok_embed, stored("wte.weight")));
    CHECK(same_bits(w.pos_embed, stored("wpe.weight")));
    for (int i = 0; i < 2; ++i) {
      CAPTURE(i);
      const std::string p = "h." + std::to_string(i) + ".";
      const LayerWeights& L = w.layers[static_cast<size_t>(i)];
      // Conv1D weights are stored (in, out); the engine holds (out, in).
      CHECK(same_bits(L.attn.in_proj_w, Mat(stored(p + "attn.c_attn.weight").transpose())));
      CHECK(same_bits(L.attn.out_w, Mat(stored(p + "attn.c_proj.weight").transpose())));
      CHECK(same_bits(L.ff1_w, Mat(stored(p + "mlp.c_fc.weight").transpose())));
      CHECK(same_bits(L.ff2_w, Mat(stored(p + "mlp.c_proj.weight").transpose())));
      CHECK(same_bits(L.attn.in_proj_b, stored_vec(p + "attn.c_attn.bias")));
      CHECK(same_bits(L.attn.out_b, stored_vec(p + "attn.c_proj.bias")));
      CHECK(same_bits(L.ff1_b, stored_vec(p + "mlp.c_fc.bias")));
      CHECK(same_bits(L.ff2_b, stored_vec(p + "mlp.c_proj.bias")));
      CHECK(same_bits(L.norm1_w, stored_vec(p + "ln_1.weight")));
      CHECK(same_bits(L.norm1_b, stored_vec(p + "ln_1.bias")));
      CHECK(same_bits(L.norm2_w, stored_vec(p + "ln_2.weight")));
      CHECK(same_bits(L.norm2_b, stored_vec(p + "ln_2.bias")));
    }
    CHECK(same_bits(w.final_norm_w, stored_vec("ln_f.weight")));
    CHECK(same_bits(w.final_norm_b, stored_vec("ln_f.bias")));
  }
}

TEST_CASE("hf checkpoint: BERT's stacked query, key and value are the same with 1 and 2 threads") {
  // BERT's q, k and v are converted straight into their blocks of in_proj by different threads.
  const auto load = [](int threads) {
    const Threads scope(threads);
    return open_fixture("bert_mlm");
  };
  const Model one = load(1), two = load(2);
  const TensorFile file = load_fixture(fixture_path("hf/bert_mlm/model.safetensors"));
  for (size_t i = 0; i < one.weights.layers.size(); ++i) {
    CAPTURE(i);
    const std::string p = "bert.encoder.layer." + std::to_string(i) + ".attention.self.";
    const Mat qkv = (Mat(3 * one.config.d_model, one.config.d_model) << fixture_mat(file, p + "query.weight"),
                     fixture_mat(file, p + "key.weight"), fixture_mat(file, p + "value.weight")).finished();
    CHECK(same_bits(one.weights.layers[i].attn.in_proj_w, qkv));
    CHECK(same_bits(two.weights.layers[i].attn.in_proj_w, qkv));
    CHECK(same_bits(two.weights.layers[i].attn.in_proj_b, one.weights.layers[i].attn.in_proj_b));
    CHECK(same_bits(two.weights.layers[i].ff2_w, one.weights.layers[i].ff2_w));
  }
  CHECK(same_bits(two.weights.tok_embed, one.weights.tok_embed));
  CHECK(same_bits(two.weights.mlm_dense_w, one.weights.mlm_dense_w));
  CHECK(same_bits(two.weights.output_b, one.weights.output_b));
}

TEST_CASE("hf checkpoint: opened in place, F32 tensors stored as the engine holds them are read from the file") {
  const auto open = [](const std::string& folder, MappedValues use) {
    auto m = model_open(fixture_path("hf/" + folder), std::nullopt, {}, use);
    REQUIRE_MESSAGE(m.ok(), m.error());
    return std::move(*m);
  };
  const Model bert = open("bert_mlm", MappedValues::in_place), bert_copied = open("bert_mlm", MappedValues::copied);
  const LayerWeights& L = bert.weights.layers[1];
  // nn.Linear weights are stored (out, in), as the engine holds them; query, key and value are
  // three tensors the engine stacks into one matrix, so that one is converted.
  CHECK(L.attn.out_w.is_in_place());
  CHECK(L.ff1_w.is_in_place());
  CHECK(L.ff2_w.is_in_place());
  CHECK(bert.weights.tok_embed.is_in_place());
  CHECK(bert.weights.mlm_dense_w.is_in_place());
  CHECK_FALSE(L.attn.in_proj_w.is_in_place());
  CHECK_FALSE(bert_copied.weights.layers[1].ff2_w.is_in_place());
  for (size_t i = 0; i < bert.weights.layers.size(); ++i) {
    CAPTURE(i);
    CHECK(same_bits(bert.weights.layers[i].attn.in_proj_w, bert_copied.weights.layers[i].attn.in_proj_w));
    CHECK(same_bits(bert.weights.layers[i].attn.out_w, bert_copied.weights.layers[i].attn.out_w));
    CHECK(same_bits(bert.weights.layers[i].ff2_w, bert_copied.weights.layers[i].ff2_w));
  }
  TraceInput in;
  in.text = "The animal didn't cross the street because it was too tired.";
  auto a = trace_run(bert, in);
  auto b = trace_run(bert_copied, in);
  REQUIRE((a.ok() && b.ok()));
  CHECK(same_bits(a->final, b->final));

  // GPT-2's Conv1D weights are stored (in, out): transposed while converting, never in place.
  const Model gpt2 = open("gpt2_tiny", MappedValues::in_place);
  CHECK_FALSE(gpt2.weights.layers[0].attn.in_proj_w.is_in_place());
  CHECK_FALSE(gpt2.weights.layers[0].ff1_w.is_in_place());
  CHECK(gpt2.weights.tok_embed.is_in_place());
  CHECK(gpt2.weights.pos_embed.is_in_place());
}

TEST_CASE("hf checkpoint: with tensors converted in parallel, the first problem in the loader's order is reported") {
  const TempFile path("attnviz-test-odd-gpt2-bad.safetensors");
  const auto message_with = [&](const std::function<void(TensorFile&)>& damage) {
    TensorFile f = odd_gpt2_tensors();
    damage(f);
    REQUIRE(safetensors_write(path, f).ok());
    auto m = load_with_threads(path, 2);
    REQUIRE_FALSE(m.ok());
    return m.error();
  };
  // wte is taken first; the NaN in the last layer's weight is found too, by the other thread.
  CHECK(message_with([](TensorFile& f) {
          find_mut(f, "transformer.h.1.mlp.c_proj.weight")->data[5] = std::nanf("");
          find_mut(f, "transformer.wte.weight")->data.back() = std::numeric_limits<float>::infinity();
        }) == "tensor 'transformer.wte.weight' contains NaN or infinite values");
  // A NaN in a tensor taken before a missing one wins, although the missing one is seen first.
  CHECK(message_with([](TensorFile& f) {
          find_mut(f, "transformer.h.0.attn.c_proj.bias")->data[0] = std::nanf("");
          f.tensors.erase(std::find_if(f.tensors.begin(), f.tensors.end(),
                                       [](const Tensor& t) { return t.name == "transformer.h.1.ln_2.bias"; }));
        }) == "tensor 'transformer.h.0.attn.c_proj.bias' contains NaN or infinite values");
  // And a missing tensor taken before a NaN wins over it.
  CHECK(message_with([](TensorFile& f) {
          find_mut(f, "transformer.h.1.mlp.c_fc.weight")->data[0] = std::nanf("");
          f.tensors.erase(std::find_if(f.tensors.begin(), f.tensors.end(),
                                       [](const Tensor& t) { return t.name == "transformer.h.0.ln_2.weight"; }));
        }) == "the checkpoint has no tensor 'transformer.h.0.ln_2.weight'");
  // A wrong shape after a NaN: the NaN.
  CHECK(message_with([](TensorFile& f) {
          find_mut(f, "transformer.wpe.weight")->data[3] = -std::numeric_limits<float>::infinity();
          find_mut(f, "transformer.h.1.attn.c_attn.weight")->shape = {108, 36};
        }) == "tensor 'transformer.wpe.weight' contains NaN or infinite values");
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("hf checkpoint: the Coreference view's example maps onto subword pieces by byte offsets") {
  const std::string text = "The animal didn't cross the street because it was too tired.";
  for (const char* folder : {"bert_tiny", "gpt2_tiny"}) {
    CAPTURE(folder);
    const Model model = open_fixture(folder);
    TraceInput in;
    in.text = text;
    auto t = trace_run(model, in);
    REQUIRE(t.ok());
    const CorefExample words = coref_make(text);
    const CorefExample e = coref_align(*t, words);
    REQUIRE(e.pronoun >= 0);
    REQUIRE(e.candidate_a >= 0);
    REQUIRE(e.candidate_b >= 0);
    // The pieces found are the ones spelling the words (GPT-2's carry the space before them).
    CHECK(t->queries[static_cast<size_t>(e.pronoun)].piece.find("it") != std::string::npos);
    CHECK(t->queries[static_cast<size_t>(e.candidate_a)].text.find("animal") != std::string::npos);
    CHECK(t->queries[static_cast<size_t>(e.candidate_b)].text.find("street") != std::string::npos);
    CHECK(e.referent == e.candidate_a);  // "tired": the animal
    CHECK(t->queries[static_cast<size_t>(e.property)].text.find("tired") != std::string::npos);
    auto scores = coref_head_scores(*t, e);
    REQUIRE(scores.ok());
    REQUIRE(scores->size() == 8);
    const CorefHeadScore& s = (*scores)[5];  // layer 2, head 2
    CHECK(s.to_a == t->head(1, 1).weights_kept(e.pronoun, e.candidate_a));
    CHECK(s.to_b == t->head(1, 1).weights_kept(e.pronoun, e.candidate_b));
  }
}

}  // namespace
}  // namespace attnviz
