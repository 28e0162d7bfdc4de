// The GGUF architectures `gemma2` and `gemma3`: the Llama shape with heads of their own width
// (attention.key_length), GELU (tanh) gating, the token embeddings scaled by √C, each sublayer's
// output RMS-normalised before its residual add (post_attention_norm, post_ffw_norm), a sliding
// window on most layers (llama.cpp's pattern: every other layer in Gemma 2, five of every six in
// Gemma 3), Gemma 2's soft caps on attention scores and logits, and Gemma 3's normalised queries and
// keys with a rotary base of its own on the sliding layers (rope.freq_base_swa). Rows as Hugging Face stores them (NEOX
// rope). llama.cpp's converter stores every norm weight as Gemma's 1 + w, so the norms read as plain
// RMSNorms. What llama.cpp takes from the model's size rather than from keys (the 27B models' score
// scale) is taken the same way here.
#include <cmath>
#include <vector>

#include "io/gguf_detail.h"

namespace attnviz::gguf {

namespace {

std::vector<ArchKey> gemma_keys(bool gemma2) {
  std::vector<ArchKey> k(llama_shaped_keys().begin(), llama_shaped_keys().end());
  k.push_back({"attention.sliding_window", KeyUse::read});
  k.push_back({"final_logit_softcapping", KeyUse::read});
  if (gemma2) k.push_back({"attn_logit_softcapping", KeyUse::read});
  else k.push_back({"rope.freq_base_swa", KeyUse::read});
  return k;
}

const std::vector<ArchKey>& gemma2_keys() {
  static const std::vector<ArchKey> keys = gemma_keys(true);
  return keys;
}
const std::vector<ArchKey>& gemma3_keys() {
  static const std::vector<ArchKey> keys = gemma_keys(false);
  return keys;
}

struct GemmaFamily {
  bool gemma2;
  int swa_pattern;       // llama.cpp's set_swa_pattern
  int layers_of_27b;     // block_count of the family's 27B model, whose scores llama.cpp scales by 1/√(C/NH)
};

Status fill_gemma(ArchReader& r, ModelConfig& c, const GemmaFamily& f) {
  if (Status s = fill_llama_shaped(r, c); !s) return s;
  c.activation = Activation::gelu_tanh;
  c.sublayer_norm = true;
  c.embed_multiplier = std::sqrt(static_cast<float>(c.d_model));  // llama.cpp's sqrtf(n_embd)
  // Gemma 2's window is required by llama.cpp; Gemma 3's is optional (none: every layer sees every key).
  const int64_t window = f.gemma2 ? r.required("attention.sliding_window", int64_t{1} << 30)
                                  : r.integer("attention.sliding_window", 0, int64_t{1} << 30);
  if (window > 0) {
    c.sliding_window = static_cast<int>(std::min<int64_t>(window, 1 << 30));
    c.sliding_window_pattern = f.swa_pattern;
    // The sliding layers' own base, without the global layers' scaling (llama.cpp's
    // rope_freq_base_train_swa: 10000 unless the file says otherwise).
    if (!f.gemma2) c.rope_local_theta = static_cast<float>(r.number("rope.freq_base_swa", 10000.0));
  }
  if (f.gemma2) {
    c.attn_softcap = static_cast<float>(r.number("attn_logit_softcapping", 50.0));   // llama.cpp's defaults
    c.logit_softcap = static_cast<float>(r.number("final_logit_softcapping", 30.0));
  } else {
    c.qk_norm = true;
    c.logit_softcap = static_cast<float>(r.number("final_logit_softcapping", 0.0));
  }
  if (c.n_layers == f.layers_of_27b) c.scaled_dot_scale = 1.0f / std::sqrt(static_cast<float>(c.d_model / c.n_heads));
  if (!r.error.empty()) return make_error(r.error);
  if (!(c.attn_softcap >= 0.0f) || !(c.logit_softcap >= 0.0f))
    return make_error(r.arch + ": a soft cap must be 0 (none) or positive");
  return Ok{};
}

Status fill_gemma2(ArchReader& r, ModelConfig& c) { return fill_gemma(r, c, {true, 2, 46}); }
Status fill_gemma3(ArchReader& r, ModelConfig& c) { return fill_gemma(r, c, {false, 6, 62}); }

void load_gemma_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& L) {
  load_llama_shaped_layer(take, c, l, L, QkRows::hugging_face, false);
  const std::string p = "blk." + std::to_string(l) + ".";
  take.vec(p + "post_attention_norm.weight", c.d_model, L.attn_out_norm_w);
  take.vec(p + "post_ffw_norm.weight", c.d_model, L.ffn_out_norm_w);
}

void load_gemma_globals(TensorTaker& take, ModelConfig& c, int vocab, ModelWeights& w) { load_outside_layers(take, c, vocab, w); }

}  // namespace

const Arch& arch_gemma2() {
  static const Arch a{"gemma2", gemma2_keys(), fill_gemma2, load_gemma_globals, load_gemma_layer};
  return a;
}
const Arch& arch_gemma3() {
  static const Arch a{"gemma3", gemma3_keys(), fill_gemma3, load_gemma_globals, load_gemma_layer};
  return a;
}

}  // namespace attnviz::gguf
