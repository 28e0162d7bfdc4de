// Small models for tests: a ModelConfig with the sizes a test names and every other field at its
// default, the pre-norm GPT shape several tests share, and random weights for either. Nothing here
// runs a forward or checks anything.
#pragma once
#include <cmath>
#include <cstdint>

#include "model/model.h"

namespace attnviz::test {

// The sizes a test picks; the ones it leaves out keep ModelConfig's defaults, so
// sized_config({.d_model = 64, .n_heads = 4}) is the default config but for C and NH.
struct ModelSizes {
  int d_model = ModelConfig{}.d_model;    // C
  int n_heads = ModelConfig{}.n_heads;    // NH
  int n_layers = ModelConfig{}.n_layers;  // L
  int d_ff = ModelConfig{}.d_ff;          // F; 0: attention-only layers
};

inline ModelConfig sized_config(const ModelSizes& s) {
  ModelConfig c;
  c.d_model = s.d_model;
  c.n_heads = s.n_heads;
  c.n_layers = s.n_layers;
  c.d_ff = s.d_ff;
  return c;
}

// Llama's shape at the given sizes: pre-norm RMSNorm, SwiGLU (silu), rotary positions, NKV
// key/value heads, a final norm, causal.
inline ModelConfig llama_config(const ModelSizes& s, int n_kv_heads) {
  ModelConfig c = sized_config(s);
  c.norm = NormPlacement::pre;
  c.norm_kind = NormKind::rms_norm;
  c.activation = Activation::silu;
  c.gated_ffn = true;
  c.positions = PositionEncoding::rotary;
  c.n_kv_heads = n_kv_heads;
  c.final_norm = true;
  c.causal = true;
  return c;
}

// Gemma 3's shape on top of Llama's: heads `head_dim` wide whatever d_model is, Q and K normalised per
// head, each sublayer's output normalised, GELU gating, embeddings times √C, a window of `window`
// keys on all but every third layer (pattern 3) whose rotation has a base of its own; and Gemma 2's
// soft caps on scores and logits.
inline ModelConfig gemma_config(const ModelSizes& s, int n_kv_heads, int head_dim, int window) {
  ModelConfig c = llama_config(s, n_kv_heads);
  c.head_dim = head_dim;
  c.qk_norm = true;
  c.sublayer_norm = true;
  c.activation = Activation::gelu_tanh;
  c.embed_multiplier = std::sqrt(static_cast<float>(s.d_model));
  c.sliding_window = window;
  c.sliding_window_pattern = 3;
  c.rope.theta = 1e6f;
  c.rope_local_theta = 1e4f;
  c.attn_softcap = 2.0f;
  c.logit_softcap = 5.0f;
  return c;
}

// GPT's shape at the given sizes: pre-norm, GELU, learned positions (max_positions rows) and a
// final LayerNorm.
inline ModelConfig gpt_config(const ModelSizes& s, int max_positions) {
  ModelConfig c = sized_config(s);
  c.norm = NormPlacement::pre;
  c.activation = Activation::gelu;
  c.positions = PositionEncoding::learned;
  c.max_positions = max_positions;
  c.final_norm = true;
  return c;
}

inline Model sized_model(const ModelSizes& s, uint64_t seed) { return model_init_random(sized_config(s), seed); }

}  // namespace attnviz::test
