// Small models for tests: a ModelConfig with the sizes a test names and every other field at its
// default, the pre-norm GPT shape several tests share, and random weights for either. Nothing here
// runs a forward or checks anything.
#pragma once
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
