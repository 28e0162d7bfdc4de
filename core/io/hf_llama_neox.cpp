// The decoders after GPT-2: the Llama layout (Llama 2/3, TinyLlama, SmolLM, Mistral, Qwen2: RMSNorm,
// SwiGLU, rotary positions, grouped key/value heads) and GPT-NeoX (Pythia: partial rotary, parallel
// residual, per-head fused query/key/value). Their config.json keys and tensor names mapped onto the
// engine's model; absent biases become zeros, so one forward serves them all.
#include "io/hf_detail.h"

namespace attnviz::hf {

namespace {

// transformers' rope_scaling: null, or {"rope_type" (older files: "type"): "linear" | "llama3" |
// "default", "factor", ...}. Other types (dynamic, yarn, longrope) change the model in ways the
// engine does not follow: an error naming the type.
Status read_rope_scaling(const json& j, ModelConfig& c) {
  auto it = j.find("rope_scaling");
  if (it == j.end() || it->is_null()) return Ok{};
  if (!it->is_object()) return make_error("config.json: 'rope_scaling' must be an object or null");
  ConfigReader r{*it, {}, "config.json: rope_scaling"};
  std::string type = r.text("rope_type", "");
  if (type.empty()) type = r.text("type", "");
  RopeConfig& rope = c.rope;
  if (type == "default" || type.empty()) {
    rope.scaling = RopeScaling::none;
  } else if (type == "linear") {
    rope.scaling = RopeScaling::linear;
    rope.factor = r.number("factor", 1.0f);
  } else if (type == "llama3") {
    rope.scaling = RopeScaling::llama3;
    rope.factor = r.number("factor", 8.0f);
    rope.low_freq_factor = r.number("low_freq_factor", 1.0f);
    rope.high_freq_factor = r.number("high_freq_factor", 4.0f);
    rope.original_max_positions = r.integer("original_max_position_embeddings", 8192);
  } else {
    return make_error("config.json: rope_scaling type '" + type + "' is not supported (linear, llama3)");
  }
  if (!r.error.empty()) return make_error(r.error);
  return Ok{};
}

// What Llama, Mistral and Qwen2 share; `qkv_bias`: the family always has q/k/v biases (Qwen2).
Status fill_llama_keys(ConfigReader& r, HfConfig& out, bool qkv_bias) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"hidden_size", 4096}, {"num_attention_heads", 32}, {"num_hidden_layers", 32},
             {"max_position_embeddings", 2048});
  c.d_ff = r.integer("intermediate_size", 11008);
  c.n_kv_heads = r.integer("num_key_value_heads", c.n_heads);
  c.ln_eps = r.number("rms_norm_eps", 1e-6f);
  out.vocab_size = r.integer("vocab_size", 32000);
  if (Status s = read_activation(r, "hidden_act", "silu", c.activation); !s) return s;
  if (c.n_heads > 0 && c.d_model % c.n_heads == 0) {
    const int head_dim = r.integer("head_dim", c.d_model / c.n_heads);
    if (head_dim != c.d_model / c.n_heads)
      return make_error("config.json: head_dim " + std::to_string(head_dim) + " differs from hidden_size / " +
                        "num_attention_heads (" + std::to_string(c.d_model / c.n_heads) + "): not supported");
  }
  if (r.flag("mlp_bias", false)) return make_error("config.json: mlp_bias true is not supported");
  out.attention_bias = r.flag("attention_bias", false);
  out.qkv_bias = qkv_bias || out.attention_bias;
  out.tied = r.flag("tie_word_embeddings", false);
  c.norm = NormPlacement::pre;
  c.norm_kind = NormKind::rms_norm;
  c.gated_ffn = true;
  c.positions = PositionEncoding::rotary;
  c.rope.theta = r.number("rope_theta", 10000.0f);
  c.final_norm = true;
  c.causal = true;
  return read_rope_scaling(r.j, c);
}

Status fill_llama(ConfigReader& r, HfConfig& out) { return fill_llama_keys(r, out, false); }

Status fill_mistral(ConfigReader& r, HfConfig& out) {
  if (Status s = fill_llama_keys(r, out, false); !s) return s;
  out.config.sliding_window = r.integer("sliding_window", 0);  // null: none (Mistral v0.2 and later)
  return Ok{};
}

Status fill_qwen2(ConfigReader& r, HfConfig& out) {
  if (Status s = fill_llama_keys(r, out, true); !s) return s;
  out.attention_bias = false;  // Qwen2: q, k and v have biases, o_proj none
  if (r.flag("use_sliding_window", false))
    return make_error("config.json: Qwen2 with use_sliding_window true (a window in some layers) is not supported");
  return Ok{};
}

void load_llama(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w) {
  const ModelConfig& c = hf.config;
  const int C = c.d_model, F = c.d_ff, KV = c.kv_dim();
  take.mat("embed_tokens.weight", hf.vocab_size, C, w.tok_embed);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    L.attn.in_proj_w.resize(C + 2 * KV, C);
    L.attn.in_proj_b = Vec::Zero(C + 2 * KV);
    const std::pair<const char*, int> parts[] = {{"q_proj", C}, {"k_proj", KV}, {"v_proj", KV}};
    int row = 0;
    for (const auto& [name, rows] : parts) {
      take.rows_of(p + "self_attn." + name + ".weight", rows, C, L.attn.in_proj_w, row);
      if (hf.qkv_bias) take.segment_of(p + "self_attn." + name + ".bias", rows, L.attn.in_proj_b, row);
      row += rows;
    }
    take.mat(p + "self_attn.o_proj.weight", C, C, L.attn.out_w);
    if (hf.attention_bias) take.vec(p + "self_attn.o_proj.bias", C, L.attn.out_b);
    else L.attn.out_b = Vec::Zero(C);
    take.vec(p + "input_layernorm.weight", C, L.norm1_w);
    L.norm1_b = Vec::Zero(C);
    take.vec(p + "post_attention_layernorm.weight", C, L.norm2_w);
    L.norm2_b = Vec::Zero(C);
    take.mat(p + "mlp.gate_proj.weight", F, C, L.ff_gate_w);
    take.mat(p + "mlp.up_proj.weight", F, C, L.ff1_w);
    L.ff1_b = Vec::Zero(F);
    take.mat(p + "mlp.down_proj.weight", C, F, L.ff2_w);
    L.ff2_b = Vec::Zero(C);
  }
  take.vec("norm.weight", C, w.final_norm_w);
  w.final_norm_b = Vec::Zero(C);
  // The output head: lm_head, or (tie_word_embeddings) the token table itself, which a file may
  // still carry as lm_head.weight with the same values.
  constexpr auto top = TensorTaker::Where::top;
  if (!hf.tied) {
    take.mat("lm_head.weight", hf.vocab_size, C, w.output_w, false, top);
    w.output_b = Vec::Zero(hf.vocab_size);
  } else if (take.has("lm_head.weight", top)) {
    WeightMat lm_head;
    take.mat("lm_head.weight", hf.vocab_size, C, lm_head, false, top);
    check_tied(take, lm_head, "lm_head.weight", w.tok_embed, prefix + "embed_tokens.weight",
               "tie_word_embeddings is true, so lm_head must be the token embeddings");
  }
}

int count_llama(const HfConfig& hf, const TensorFile& file) {
  const int per_layer = 9 + (hf.qkv_bias ? 3 : 0) + (hf.attention_bias ? 1 : 0);
  return per_layer * hf.config.n_layers + 2 + (file.find("lm_head.weight") ? 1 : 0);
}

Status fill_gpt_neox(ConfigReader& r, HfConfig& out) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"hidden_size", 6144}, {"num_attention_heads", 64}, {"num_hidden_layers", 44},
             {"max_position_embeddings", 2048});
  c.d_ff = r.integer("intermediate_size", 24576);
  c.ln_eps = r.number("layer_norm_eps", 1e-5f);
  out.vocab_size = r.integer("vocab_size", 50432);
  if (Status s = read_activation(r, "hidden_act", "gelu", c.activation); !s) return s;
  if (!r.flag("attention_bias", true)) return make_error("config.json: GPT-NeoX without attention biases is not supported");
  out.tied = r.flag("tie_word_embeddings", false);
  c.norm = NormPlacement::pre;
  c.parallel_residual = r.flag("use_parallel_residual", true);
  c.positions = PositionEncoding::rotary;
  c.rope.theta = r.number("rotary_emb_base", 10000.0f);
  c.rope.fraction = r.number("rotary_pct", 0.25f);
  c.final_norm = true;
  c.causal = true;
  return read_rope_scaling(r.j, c);
}

void load_gpt_neox(TensorTaker& take, const HfConfig& hf, const std::string& prefix, ModelWeights& w) {
  const ModelConfig& c = hf.config;
  const int C = c.d_model, F = c.d_ff, NH = c.n_heads, HS = c.head_size();
  take.mat("embed_in.weight", hf.vocab_size, C, w.tok_embed);
  std::vector<WeightMat> qkv_w(static_cast<size_t>(c.n_layers));
  std::vector<Vec> qkv_b(static_cast<size_t>(c.n_layers));
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    layer_norm_from(take, p + "input_layernorm", C, L.norm1_w, L.norm1_b);
    linear_from(take, p + "attention.query_key_value", 3 * C, C, qkv_w[static_cast<size_t>(i)], qkv_b[static_cast<size_t>(i)]);
    linear_from(take, p + "attention.dense", C, C, L.attn.out_w, L.attn.out_b);
    layer_norm_from(take, p + "post_attention_layernorm", C, L.norm2_w, L.norm2_b);
    linear_from(take, p + "mlp.dense_h_to_4h", F, C, L.ff1_w, L.ff1_b);
    linear_from(take, p + "mlp.dense_4h_to_h", C, F, L.ff2_w, L.ff2_b);
  }
  layer_norm_from(take, "final_layer_norm", C, w.final_norm_w, w.final_norm_b);
  constexpr auto top = TensorTaker::Where::top;
  if (!hf.tied) {
    take.mat("embed_out.weight", hf.vocab_size, C, w.output_w, false, top);
    w.output_b = Vec::Zero(hf.vocab_size);
  }
  if (!take.error().empty()) return;  // converts what is planned
  // The fused projection's rows are per head: (NH, 3, HS), head h's query, key and value rows
  // together. The engine's in_proj has all queries, then all keys, then all values.
  for (int i = 0; i < c.n_layers; ++i) {
    AttentionWeights& a = w.layers[static_cast<size_t>(i)].attn;
    const WeightMat& fw = qkv_w[static_cast<size_t>(i)];
    const Vec& fb = qkv_b[static_cast<size_t>(i)];
    a.in_proj_w.resize(3 * C, C);
    a.in_proj_b.resize(3 * C);
    for (int h = 0; h < NH; ++h)
      for (int part = 0; part < 3; ++part) {
        a.in_proj_w.middleRows(part * C + h * HS, HS) = fw.middleRows((3 * h + part) * HS, HS);
        a.in_proj_b.segment(part * C + h * HS, HS) = fb.segment((3 * h + part) * HS, HS);
      }
  }
  (void)prefix;
}

int count_gpt_neox(const HfConfig& hf, const TensorFile& file) {
  return 12 * hf.config.n_layers + 3 + (file.find("embed_out.weight") ? 1 : 0);
}

}  // namespace

const Family& family_llama() {
  static const Family f{CheckpointFamily::llama, "llama", "Llama", "embed_tokens.weight", "model.", fill_llama,
                        load_llama, count_llama};
  return f;
}
const Family& family_mistral() {
  static const Family f{CheckpointFamily::mistral, "mistral", "Mistral", "embed_tokens.weight", "model.", fill_mistral,
                        load_llama, count_llama};
  return f;
}
const Family& family_qwen2() {
  static const Family f{CheckpointFamily::qwen2, "qwen2", "Qwen2", "embed_tokens.weight", "model.", fill_qwen2,
                        load_llama, count_llama};
  return f;
}
const Family& family_gpt_neox() {
  static const Family f{CheckpointFamily::gpt_neox, "gpt_neox", "GPTNeoX", "embed_in.weight", "gpt_neox.",
                        fill_gpt_neox, load_gpt_neox, count_gpt_neox};
  return f;
}

}  // namespace attnviz::hf
