// The GGUF architectures of the Llama layout: `llama` (Llama 2/3/3.1/3.2, Mistral, TinyLlama, SmolLM:
// Q and K rows permuted by llama.cpp's converter, optional biases, Llama 3.1's scaling as a rope_freqs
// tensor) and `qwen2` (q/k/v biases, rows as Hugging Face stores them). Metadata keys and tensor names
// as llama.cpp's convert_hf_to_gguf.py writes them, mapped onto the engine's model.
#include "io/gguf_detail.h"

namespace attnviz::gguf {

namespace {

// The `{arch}.` keys both read (llama.cpp's llm_load_hparams reads the same for these families).
constexpr ArchKey kLlamaKeys[] = {
    {"context_length", KeyUse::read},
    {"embedding_length", KeyUse::read},
    {"block_count", KeyUse::read},
    {"feed_forward_length", KeyUse::read},
    {"attention.head_count", KeyUse::read},
    {"attention.head_count_kv", KeyUse::read},
    {"attention.layer_norm_rms_epsilon", KeyUse::read},
    {"attention.key_length", KeyUse::read},
    {"attention.value_length", KeyUse::read},
    {"rope.freq_base", KeyUse::read},
    {"rope.dimension_count", KeyUse::read},
    {"rope.scaling.type", KeyUse::read},
    {"rope.scaling.factor", KeyUse::read},
    {"rope.scale_linear", KeyUse::read},
    {"vocab_size", KeyUse::read},
    // Read by YaRN only, which is refused.
    {"rope.scaling.original_context_length", KeyUse::harmless},
    {"rope.scaling.finetuned", KeyUse::harmless},
    {"expert_count", KeyUse::zero},
    {"expert_used_count", KeyUse::zero},
};

}  // namespace

std::span<const ArchKey> llama_shaped_keys() { return kLlamaKeys; }

Status fill_llama_shaped(ArchReader& r, ModelConfig& c) {
  c.d_model = static_cast<int>(r.required("embedding_length", kMaxDModel));
  c.n_layers = static_cast<int>(r.required("block_count", kMaxLayers));
  c.d_ff = static_cast<int>(r.required("feed_forward_length", kMaxFF));
  c.n_heads = static_cast<int>(r.required("attention.head_count", 1024));
  c.n_kv_heads = static_cast<int>(r.integer("attention.head_count_kv", c.n_heads, 1024));
  if (!r.has("attention.layer_norm_rms_epsilon"))
    r.fail("the file has no '" + r.arch + ".attention.layer_norm_rms_epsilon', which a " + r.arch + " model needs");
  c.ln_eps = static_cast<float>(r.number("attention.layer_norm_rms_epsilon", 1e-5));
  // Only a limit for rotary positions: the longest input the model was trained on.
  c.max_positions = static_cast<int>(std::min<int64_t>(r.required("context_length", int64_t{1} << 40), 1 << 16));
  if (!r.error.empty()) return make_error(r.error);
  if (c.n_heads < 1) return make_error(r.arch + ".attention.head_count must be at least 1");
  // A head's width: attention.key_length when the file gives it (Qwen3, Gemma, Mistral Nemo: heads
  // wider or narrower than embedding_length / head_count), else that quotient.
  const int64_t even = c.d_model % c.n_heads == 0 ? c.d_model / c.n_heads : 0;
  const int64_t hs = r.integer("attention.key_length", even, kMaxHeadDim);
  if (hs == 0)
    return make_error(r.arch + ".embedding_length " + std::to_string(c.d_model) + " is not a whole number of " +
                      std::to_string(c.n_heads) + " heads (attention.head_count) and the file gives no attention.key_length");
  if (const int64_t v = r.integer("attention.value_length", hs, kMaxHeadDim); v != hs)
    return make_error(r.arch + ".attention.value_length is " + std::to_string(v) + " but attention.key_length is " +
                      std::to_string(hs) + ": values of another width than keys are not supported");
  if (const int64_t v = r.integer("rope.dimension_count", hs, kMaxHeadDim); v != hs)
    return make_error(r.arch + ".rope.dimension_count is " + std::to_string(v) + " but a head has " + std::to_string(hs) +
                      " dimensions: rotating a part of each head is not supported");
  if (hs != even) c.head_dim = static_cast<int>(hs);
  c.norm = NormPlacement::pre;
  c.norm_kind = NormKind::rms_norm;
  c.gated_ffn = true;
  c.activation = Activation::silu;
  c.positions = PositionEncoding::rotary;
  c.final_norm = true;
  c.causal = true;
  c.rope.theta = static_cast<float>(r.number("rope.freq_base", 10000.0));
  // llama.cpp applies rope.scaling.factor (or the older rope.scale_linear) as a linear stretch of
  // every frequency unless the type is one it handles otherwise.
  const std::string type = r.text("rope.scaling.type", "linear");
  if (type != "linear" && type != "none")
    return make_error(r.arch + ".rope.scaling.type \"" + type + "\" is not supported (attnviz supports none and linear)");
  double factor = r.number("rope.scaling.factor", 0.0);
  if (factor == 0.0) factor = r.number("rope.scale_linear", 0.0);
  if (factor != 0.0 && factor != 1.0) {
    c.rope.scaling = RopeScaling::linear;
    c.rope.factor = static_cast<float>(factor);
  }
  return r.error.empty() ? Status(Ok{}) : Status(make_error(r.error));
}

namespace {

Status fill_llama(ArchReader& r, ModelConfig& c) {
  if (Status s = fill_llama_shaped(r, c); !s) return s;
  // Llama 3.1's scaling: llama.cpp divides each pair's frequency by rope_freqs (the converter's
  // numbers, not transformers' formula, so they are read rather than recomputed).
  if (const GgufTensorInfo* t = r.file.tensor("rope_freqs.weight")) {
    if (c.rope.scaling != RopeScaling::none)
      return make_error("the file has both rope_freqs.weight and " + r.arch + ".rope.scaling.factor: not supported");
    c.rope.scaling = RopeScaling::divisors;
    c.rope.divisors.assign(static_cast<size_t>(std::max<int64_t>(t->numel(), 0)), 1.0f);
  }
  return Ok{};
}

}  // namespace

void load_attention_rows(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& L, QkRows rows, bool qkv_bias) {
  const int C = c.d_model, KV = c.kv_dim(), HS = c.head_size(), QD = c.q_dim();
  const int permuted = rows == QkRows::permuted ? HS : 0;
  const std::string p = "blk." + std::to_string(l) + ".";
  L.attn.in_proj_w.resize(QD + 2 * KV, C);
  L.attn.in_proj_b = Vec::Zero(QD + 2 * KV);
  const struct {
    const char* name;
    int rows, first, permuted;
  } parts[] = {{"attn_q", QD, 0, permuted}, {"attn_k", KV, QD, permuted}, {"attn_v", KV, QD + KV, 0}};
  for (const auto& part : parts) {
    take.rows_of(p + part.name + ".weight", part.rows, C, L.attn.in_proj_w, part.first, part.permuted);
    if (qkv_bias || take.has(p + part.name + ".bias"))
      take.segment_of(p + part.name + ".bias", part.rows, L.attn.in_proj_b, part.first, part.permuted);
  }
  take.mat(p + "attn_output.weight", C, QD, L.attn.out_w);
  if (c.qk_norm) {  // one RMSNorm of HS weights for every query head, one for every key head
    take.vec(p + "attn_q_norm.weight", HS, L.attn.q_norm_w);
    take.vec(p + "attn_k_norm.weight", HS, L.attn.k_norm_w);
  }
}

void load_llama_shaped_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& L, QkRows rows, bool qkv_bias) {
  const int C = c.d_model, F = c.d_ff;
  const std::string p = "blk." + std::to_string(l) + ".";
  load_attention_rows(take, c, l, L, rows, qkv_bias);
  if (take.has(p + "attn_output.bias")) take.vec(p + "attn_output.bias", C, L.attn.out_b);
  else L.attn.out_b = Vec::Zero(C);
  take.vec(p + "attn_norm.weight", C, L.norm1_w);
  L.norm1_b = Vec::Zero(C);
  take.vec(p + "ffn_norm.weight", C, L.norm2_w);
  L.norm2_b = Vec::Zero(C);
  take.mat(p + "ffn_gate.weight", F, C, L.ff_gate_w);
  take.mat(p + "ffn_up.weight", F, C, L.ff1_w);
  L.ff1_b = Vec::Zero(F);
  take.mat(p + "ffn_down.weight", C, F, L.ff2_w);
  L.ff2_b = Vec::Zero(C);
}

void load_outside_layers(TensorTaker& take, const ModelConfig& c, int vocab, ModelWeights& w) {
  const int C = c.d_model;
  take.vocab_mat("token_embd.weight", vocab, C, w.tok_embed, w.tok_embed_encoded);
  take.vec("output_norm.weight", C, w.final_norm_w);
  w.final_norm_b = Vec::Zero(C);
  if (take.has("output.weight")) {
    take.vocab_mat("output.weight", vocab, C, w.output_w, w.output_w_encoded);
    w.output_b = Vec::Zero(vocab);
  }
}

namespace {

void load_llama_globals(TensorTaker& take, ModelConfig& c, int vocab, ModelWeights& w) {
  load_outside_layers(take, c, vocab, w);
  if (c.rope.scaling != RopeScaling::divisors) return;
  Vec divisors;
  take.vec("rope_freqs.weight", c.rotary_dims() / 2, divisors);
  if (!take.run().empty()) return;
  c.rope.divisors.assign(divisors.data(), divisors.data() + divisors.size());
  for (float d : c.rope.divisors)
    if (!(d > 0.0f)) return take.fail("tensor 'rope_freqs.weight' holds a divisor that is not positive");
}

void load_llama_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& out) {
  load_llama_shaped_layer(take, c, l, out, QkRows::permuted, false);
}

void load_qwen2_globals(TensorTaker& take, ModelConfig& c, int vocab, ModelWeights& w) { load_outside_layers(take, c, vocab, w); }

void load_qwen2_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& out) {
  load_llama_shaped_layer(take, c, l, out, QkRows::hugging_face, true);
}

}  // namespace

const Arch& arch_llama() {
  static const Arch a{"llama", kLlamaKeys, fill_llama, load_llama_globals, load_llama_layer};
  return a;
}
const Arch& arch_qwen2() {
  static const Arch a{"qwen2", kLlamaKeys, fill_llama_shaped, load_qwen2_globals, load_qwen2_layer};
  return a;
}

namespace {

// Qwen3: Qwen2 without the q/k/v biases, with each head's Q and K RMS-normalised before the rotation.
Status fill_qwen3(ArchReader& r, ModelConfig& c) {
  if (Status s = fill_llama_shaped(r, c); !s) return s;
  c.qk_norm = true;
  return Ok{};
}

void load_qwen3_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& out) {
  load_llama_shaped_layer(take, c, l, out, QkRows::hugging_face, false);
}

}  // namespace

const Arch& arch_qwen3() {
  static const Arch a{"qwen3", kLlamaKeys, fill_qwen3, load_qwen2_globals, load_qwen3_layer};
  return a;
}

}  // namespace attnviz::gguf
