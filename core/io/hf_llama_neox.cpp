// The decoders after GPT-2: the Llama layout (Llama 2/3, TinyLlama, SmolLM, Mistral, Qwen2: RMSNorm,
// SwiGLU, rotary positions, grouped key/value heads) and GPT-NeoX (Pythia: partial rotary, parallel
// residual, per-head fused query/key/value). Their config.json keys (the rotary settings as
// transformers 4 and 5 write them) and tensor names mapped onto the engine's model; absent biases
// become zeros, so one forward serves them all.
#include "io/hf_detail.h"
#include "base/json.h"

namespace attnviz::hf {

namespace {

// ---- Rotary settings -------------------------------------------------------------------------------
// transformers 4 writes the rotary base at the top level (rope_theta; GPT-NeoX: rotary_emb_base, with
// the share of each head rotated as rotary_pct, and 4.45 on also rope_theta and
// partial_rotary_factor) and the scaling in rope_scaling ("type" in older files, then "rope_type").
// transformers 5 writes one rope_parameters object holding rope_type, rope_theta,
// partial_rotary_factor and the scaling's keys. A file may hold a setting in more than one place
// (converted by hand, or by a tool that adds one layout to the other): the places present must
// agree, since which one a model was run with depends on the transformers release that read it.

// What rope_scaling and rope_parameters may hold for the types attnviz supports.
const JsonKeys kRopeKeys = {"rope_type",        "type",
                            "rope_theta",       "partial_rotary_factor",
                            "factor",           "low_freq_factor",
                            "high_freq_factor", "original_max_position_embeddings"};

enum class Kind { number, whole, text };

bool fits(const json& v, Kind kind) {
  switch (kind) {
    case Kind::number: return v.is_number();
    case Kind::whole: return v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= (int64_t{1} << 30);
    case Kind::text: return v.is_string();
  }
  return false;
}
const char* must_be(Kind kind) {
  return kind == Kind::number ? "a number" : kind == Kind::whole ? "a non-negative whole number" : "a string";
}

// One place a setting may be written: `key` in `object` (nullptr when that object is absent).
struct Spelling {
  const json* object;
  const char* key;
  std::string name;  // as messages name it: "rope_theta", "rope_parameters.rope_theta"
};

struct Found {
  const json* value = nullptr;  // nullptr: written nowhere (or null everywhere)
  std::string name;             // where it was found first
};

// The value the places holding a setting agree on (a null counts as absent). Two that differ are an
// error naming both with their values; numbers are compared as numbers (10000 is 10000.0).
Result<Found> agreed(const std::vector<Spelling>& places, Kind kind) {
  Found out;
  for (const Spelling& p : places) {
    if (!p.object) continue;
    auto it = p.object->find(p.key);
    if (it == p.object->end() || it->is_null()) continue;
    if (!fits(*it, kind)) return make_error("config.json: '" + p.name + "' must be " + must_be(kind));
    if (!out.value) {
      out = {&*it, p.name};
      continue;
    }
    const bool same = kind == Kind::text ? *it == *out.value : it->get<double>() == out.value->get<double>();
    if (!same)
      return make_error("config.json: " + out.name + " " + shown(*out.value) + " and " + p.name + " " + shown(*it) +
                        " disagree; attnviz does not guess which one the model uses");
  }
  return out;
}

// The top level, rope_scaling and rope_parameters.
struct RopePlaces {
  const json* top;
  const json* scaling = nullptr;
  const json* parameters = nullptr;

  // `top_keys` at the top level, then each of `inner` in rope_scaling, then in rope_parameters.
  std::vector<Spelling> of(std::initializer_list<const char*> top_keys,
                           std::initializer_list<const char*> inner) const {
    std::vector<Spelling> out;
    for (const char* k : top_keys) out.push_back({top, k, k});
    for (const auto& [object, name] : {std::pair{scaling, "rope_scaling."}, std::pair{parameters, "rope_parameters."}})
      for (const char* k : inner) out.push_back({object, k, name + std::string(k)});
    return out;
  }
};

// The rotary base, the share of each head rotated and the scaling, from either layout. `family`
// names the model in messages; GPT-NeoX (`neox`) has its own top-level names and a partial rotary,
// the Llama-shaped decoders rotate whole heads.
Status read_rope(const json& top, ModelConfig& c, const char* family, bool neox) {
  RopePlaces at{&top};
  for (const auto& [key, slot] :
       {std::pair{"rope_scaling", &at.scaling}, std::pair{"rope_parameters", &at.parameters}}) {
    auto it = top.find(key);
    if (it == top.end() || it->is_null()) continue;
    if (!it->is_object()) return make_error(std::string("config.json: '") + key + "' must be an object or null");
    *slot = &*it;
  }
  // The type first: a type attnviz does not follow explains the keys only it has (yarn's beta_fast).
  auto type = agreed(at.of({}, {"rope_type", "type"}), Kind::text);
  if (!type) return make_error(type.error());
  const std::string kind = type->value ? type->value->get<std::string>() : "default";
  RopeConfig& rope = c.rope;
  if (kind == "default")
    rope.scaling = RopeScaling::none;
  else if (kind == "linear")
    rope.scaling = RopeScaling::linear;
  else if (kind == "llama3")
    rope.scaling = RopeScaling::llama3;
  else
    return make_error("config.json: " + type->name + " " + json_quote(kind) +
                      " is not supported (attnviz supports default, linear, llama3)");
  for (const auto& [object, name] :
       {std::pair{at.scaling, "rope_scaling"}, std::pair{at.parameters, "rope_parameters"}})
    if (object)
      if (Status s = json_keys_known(*object, kRopeKeys); !s)
        return make_error(std::string("config.json: ") + name + ": " + s.error());

  auto theta =
      agreed(neox ? at.of({"rotary_emb_base", "rope_theta"}, {"rope_theta"}) : at.of({"rope_theta"}, {"rope_theta"}),
             Kind::number);
  if (!theta) return make_error(theta.error());
  rope.theta = theta->value ? theta->value->get<float>() : 10000.0f;

  auto fraction = agreed(neox ? at.of({"rotary_pct", "partial_rotary_factor"}, {"partial_rotary_factor"})
                              : at.of({"partial_rotary_factor"}, {"partial_rotary_factor"}),
                         Kind::number);
  if (!fraction) return make_error(fraction.error());
  if (neox) {
    rope.fraction = fraction->value ? fraction->value->get<float>() : 0.25f;
  } else if (fraction->value && fraction->value->get<double>() != 1.0) {
    // transformers' Llama-shaped attention rotates whole heads: a share would not even run there.
    return make_error("config.json: " + fraction->name + " " + shown(*fraction->value) + " is not supported for " +
                      family + " (attnviz supports only 1: every dimension of a head rotated)");
  }

  // The scaling's numbers; the ones a type needs must be written (transformers fails without them).
  const std::string where = type->name.substr(0, type->name.find('.'));
  const auto needed = [&](const char* key, float& out) -> Status {
    auto v = agreed(at.of({}, {key}), Kind::number);
    if (!v) return make_error(v.error());
    if (!v->value) return make_error("config.json: " + type->name + " '" + kind + "' needs " + where + "." + key);
    out = v->value->get<float>();
    return Ok{};
  };
  if (rope.scaling == RopeScaling::linear) return needed("factor", rope.factor);
  if (rope.scaling == RopeScaling::llama3) {
    for (const auto& [key, slot] :
         {std::pair{"factor", &rope.factor}, std::pair{"low_freq_factor", &rope.low_freq_factor},
          std::pair{"high_freq_factor", &rope.high_freq_factor}})
      if (Status s = needed(key, *slot); !s) return s;
    auto original = agreed(at.of({}, {"original_max_position_embeddings"}), Kind::whole);
    if (!original) return make_error(original.error());
    // transformers 5 fills it in from max_position_embeddings when absent (standardize_rope_params).
    rope.original_max_positions = original->value ? original->value->get<int>() : c.max_positions;
  }
  return Ok{};
}

// transformers' layer_types (Qwen2's configs carry it from 4.53 on): the engine runs one kind of
// attention in every layer, so each entry must be full attention.
Status read_layer_types(const json& j, int n_layers) {
  auto it = j.find("layer_types");
  if (it == j.end() || it->is_null()) return Ok{};
  if (!it->is_array()) return make_error("config.json: 'layer_types' must be a list");
  if (it->size() != static_cast<size_t>(n_layers))
    return make_error("config.json: layer_types has " + std::to_string(it->size()) + " entries for " +
                      std::to_string(n_layers) + " layers");
  for (size_t i = 0; i < it->size(); ++i)
    if ((*it)[i] != "full_attention")
      return make_error("config.json: layer_types[" + std::to_string(i) + "] " + shown((*it)[i]) +
                        " is not supported (attnviz supports only 'full_attention' in every layer: no per-layer "
                        "sliding window)");
  return Ok{};
}

// ---- The Llama-shaped decoders ---------------------------------------------------------------------

// The keys LlamaConfig, MistralConfig and Qwen2Config share; each family's own table comes first.
constexpr ConfigKey kLlamaShapedKeys[] = {
    {"hidden_size", KeyUse::read},
    {"num_attention_heads", KeyUse::read},
    {"num_hidden_layers", KeyUse::read},
    {"max_position_embeddings", KeyUse::read},
    {"intermediate_size", KeyUse::read},
    {"num_key_value_heads", KeyUse::read},
    {"head_dim", KeyUse::read},
    {"rms_norm_eps", KeyUse::read},
    {"vocab_size", KeyUse::read},
    {"hidden_act", KeyUse::read},
    {"tie_word_embeddings", KeyUse::read},
    {"layer_types", KeyUse::read},
    {"rope_theta", KeyUse::read},  // read_rope: both layouts
    {"rope_scaling", KeyUse::read},
    {"rope_parameters", KeyUse::read},
    {"partial_rotary_factor", KeyUse::read},
    {"attention_dropout", KeyUse::harmless},  // dropout is off at inference
    {"pretraining_tp", KeyUse::harmless},     // slices each product and sums them again: the same values
    {"is_decoder", KeyUse::harmless},         // causal whatever it says
    {"attention_bias", KeyUse::only, "false", "no biases on q/k/v/o_proj beyond the family's own"},
    {"mlp_bias", KeyUse::only, "false", "no biases on gate/up/down_proj"},
    // What later families add on the same layout: refused rather than ignored.
    {"attn_logit_softcapping", KeyUse::only, "null", "attention scores are not soft-capped"},
    {"final_logit_softcapping", KeyUse::only, "null", "the output logits are not soft-capped"},
    {"use_qk_norm", KeyUse::only, "false", "no norm on queries and keys"},
    {"qk_layernorm", KeyUse::only, "false", "no norm on queries and keys"},
    {"qk_norm", KeyUse::only, "false", "no norm on queries and keys"},
    {"rope_interleaved", KeyUse::only, "false", "rotary pairs (d, d + dims/2), as transformers rotates them"},
    {"use_mrope", KeyUse::only, "false", "one rotary position per token, no multimodal sections"},
};

constexpr ConfigKey kLlamaKeys[] = {
    {"attention_bias", KeyUse::read},
    {"is_llama_config", KeyUse::harmless},  // nanotron's mark on the Llama configs it writes
};
constexpr ConfigKey kMistralKeys[] = {
    {"sliding_window", KeyUse::read},
};
constexpr ConfigKey kQwen2Keys[] = {
    {"use_sliding_window", KeyUse::read},
    // Only a window in some layers reads these: use_sliding_window true and sliding layers in
    // layer_types are refused.
    {"sliding_window", KeyUse::harmless},
    {"max_window_layers", KeyUse::harmless},
};

// What Llama, Mistral and Qwen2 share; `qkv_bias`: q/k/v have biases (Qwen2 always, Llama with
// attention_bias). `family` names the model in messages.
Status fill_llama_keys(ConfigReader& r, HfConfig& out, const char* family, bool qkv_bias) {
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
  out.qkv_bias = qkv_bias;
  out.tied = r.flag("tie_word_embeddings", false);
  if (Status s = read_layer_types(r.j, c.n_layers); !s) return s;
  c.norm = NormPlacement::pre;
  c.norm_kind = NormKind::rms_norm;
  c.gated_ffn = true;
  c.positions = PositionEncoding::rotary;
  c.final_norm = true;
  c.causal = true;
  return read_rope(r.j, c, family, false);
}

Status fill_llama(ConfigReader& r, HfConfig& out) {
  out.attention_bias = r.flag("attention_bias", false);
  return fill_llama_keys(r, out, "llama", out.attention_bias);
}

Status fill_mistral(ConfigReader& r, HfConfig& out) {
  if (Status s = fill_llama_keys(r, out, "mistral", false); !s) return s;
  out.config.sliding_window = r.integer("sliding_window", 0);  // null: none (Mistral v0.2 and later)
  return Ok{};
}

Status fill_qwen2(ConfigReader& r, HfConfig& out) {
  if (Status s = fill_llama_keys(r, out, "qwen2", true); !s) return s;  // q, k and v have biases, o_proj none
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
    require_untied_head(take, "lm_head.weight");
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

// ---- GPT-NeoX ----------------------------------------------------------------------------------------

constexpr ConfigKey kGptNeoxKeys[] = {
    {"hidden_size", KeyUse::read},
    {"num_attention_heads", KeyUse::read},
    {"num_hidden_layers", KeyUse::read},
    {"max_position_embeddings", KeyUse::read},
    {"intermediate_size", KeyUse::read},
    {"layer_norm_eps", KeyUse::read},
    {"vocab_size", KeyUse::read},
    {"hidden_act", KeyUse::read},
    {"tie_word_embeddings", KeyUse::read},
    {"use_parallel_residual", KeyUse::read},
    {"rotary_emb_base", KeyUse::read},  // read_rope: both layouts, each setting under its names
    {"rope_theta", KeyUse::read},
    {"rotary_pct", KeyUse::read},
    {"partial_rotary_factor", KeyUse::read},
    {"rope_scaling", KeyUse::read},
    {"rope_parameters", KeyUse::read},
    {"attention_dropout", KeyUse::harmless},  // dropout is off at inference
    {"hidden_dropout", KeyUse::harmless},
    {"classifier_dropout", KeyUse::harmless},  // the token-classification head's
    {"is_decoder", KeyUse::harmless},          // causal whatever it says
    {"attention_bias", KeyUse::only, "true", "biases on query_key_value and dense"},
};

Status fill_gpt_neox(ConfigReader& r, HfConfig& out) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"hidden_size", 6144}, {"num_attention_heads", 64}, {"num_hidden_layers", 44},
             {"max_position_embeddings", 2048});
  c.d_ff = r.integer("intermediate_size", 24576);
  c.ln_eps = r.number("layer_norm_eps", 1e-5f);
  out.vocab_size = r.integer("vocab_size", 50432);
  if (Status s = read_activation(r, "hidden_act", "gelu", c.activation); !s) return s;
  out.tied = r.flag("tie_word_embeddings", false);
  c.norm = NormPlacement::pre;
  c.parallel_residual = r.flag("use_parallel_residual", true);
  c.positions = PositionEncoding::rotary;
  c.final_norm = true;
  c.causal = true;
  return read_rope(r.j, c, "gpt_neox", true);
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
  // The output head: embed_out, or (tie_word_embeddings) the token table, which a file may still
  // carry as embed_out.weight with the same values.
  constexpr auto top = TensorTaker::Where::top;
  if (!hf.tied) {
    require_untied_head(take, "embed_out.weight");
    take.mat("embed_out.weight", hf.vocab_size, C, w.output_w, false, top);
    w.output_b = Vec::Zero(hf.vocab_size);
  } else if (take.has("embed_out.weight", top)) {
    WeightMat embed_out;
    take.mat("embed_out.weight", hf.vocab_size, C, embed_out, false, top);
    check_tied(take, embed_out, "embed_out.weight", w.tok_embed, prefix + "embed_in.weight",
               "tie_word_embeddings is true, so embed_out must be the token embeddings");
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
}

int count_gpt_neox(const HfConfig& hf, const TensorFile& file) {
  return 12 * hf.config.n_layers + 3 + (file.find("embed_out.weight") ? 1 : 0);
}

}  // namespace

const Family& family_llama() {
  static const Family f{CheckpointFamily::llama, "llama", "Llama", "embed_tokens.weight", "model.", fill_llama,
                        load_llama, count_llama, "LlamaConfig", kLlamaKeys, kLlamaShapedKeys};
  return f;
}
const Family& family_mistral() {
  static const Family f{CheckpointFamily::mistral, "mistral", "Mistral", "embed_tokens.weight", "model.", fill_mistral,
                        load_llama, count_llama, "MistralConfig", kMistralKeys, kLlamaShapedKeys};
  return f;
}
const Family& family_qwen2() {
  static const Family f{CheckpointFamily::qwen2, "qwen2", "Qwen2", "embed_tokens.weight", "model.", fill_qwen2,
                        load_llama, count_llama, "Qwen2Config", kQwen2Keys, kLlamaShapedKeys};
  return f;
}
const Family& family_gpt_neox() {
  static const Family f{CheckpointFamily::gpt_neox, "gpt_neox", "GPTNeoX", "embed_in.weight", "gpt_neox.",
                        fill_gpt_neox, load_gpt_neox, count_gpt_neox, "GPTNeoXConfig", kGptNeoxKeys, {}};
  return f;
}

}  // namespace attnviz::hf
