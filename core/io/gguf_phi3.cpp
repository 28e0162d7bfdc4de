// The GGUF architecture `phi3` (Phi-3 mini and medium with their 4k context): the Llama shape with
// q, k and v fused in one attn_qkv tensor and the gate and up projections in one ffn_up (gate first),
// rows as Hugging Face stores them (rope pairs (d, d + HS/2): no permutation), and a sliding window
// when the file names one. The long-context models' LongRoPE factors (rope_factors_long/short) are
// refused by name.
#include <vector>

#include "io/gguf_detail.h"

namespace attnviz::gguf {

namespace {

const std::vector<ArchKey>& phi3_keys() {
  static const std::vector<ArchKey> keys = [] {
    std::vector<ArchKey> k(llama_shaped_keys().begin(), llama_shaped_keys().end());
    k.push_back({"attention.sliding_window", KeyUse::read});
    return k;
  }();
  return keys;
}

Status fill_phi3(ArchReader& r, ModelConfig& c) {
  for (const char* factors : {"rope_factors_long.weight", "rope_factors_short.weight"})
    if (r.file.tensor(factors))
      return make_error(std::string("the file has '") + factors +
                        "': Phi-3's LongRoPE scaling (its 128k-context models) is not supported");
  if (Status s = fill_llama_shaped(r, c); !s) return s;
  // llama.cpp's window: a query sees its last `sliding_window` keys, itself included, as Mistral's.
  c.sliding_window = static_cast<int>(r.integer("attention.sliding_window", 0));
  return r.error.empty() ? Status(Ok{}) : Status(make_error(r.error));
}

void load_phi3_globals(TensorTaker& take, ModelConfig& c, int vocab, ModelWeights& w) { load_outside_layers(take, c, vocab, w); }

void load_phi3_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& L) {
  const int C = c.d_model, F = c.d_ff, KV = c.kv_dim();
  const std::string p = "blk." + std::to_string(l) + ".";
  if (c.q_dim() != C) return take.fail("a phi3 file whose heads are not embedding_length wide together is not supported");
  // attn_qkv's rows are the queries', the keys', then the values': the engine's in_proj as it is.
  L.attn.in_proj_w.resize(C + 2 * KV, C);
  take.rows_part(p + "attn_qkv.weight", C + 2 * KV, 0, C + 2 * KV, C, L.attn.in_proj_w, 0);
  L.attn.in_proj_b = Vec::Zero(C + 2 * KV);
  take.mat(p + "attn_output.weight", C, C, L.attn.out_w);
  L.attn.out_b = Vec::Zero(C);
  take.vec(p + "attn_norm.weight", C, L.norm1_w);
  L.norm1_b = Vec::Zero(C);
  take.vec(p + "ffn_norm.weight", C, L.norm2_w);
  L.norm2_b = Vec::Zero(C);
  // ffn_up holds the gate's rows, then the up projection's (transformers' gate_up_proj, chunked in two).
  L.ff_gate_w.resize(F, C);
  L.ff1_w.resize(F, C);
  take.rows_part(p + "ffn_up.weight", 2 * F, 0, F, C, L.ff_gate_w, 0);
  take.rows_part(p + "ffn_up.weight", 2 * F, F, F, C, L.ff1_w, 0);
  L.ff1_b = Vec::Zero(F);
  take.mat(p + "ffn_down.weight", C, F, L.ff2_w);
  L.ff2_b = Vec::Zero(C);
}

}  // namespace

const Arch& arch_phi3() {
  static const Arch a{"phi3", phi3_keys(), fill_phi3, load_phi3_globals, load_phi3_layer};
  return a;
}

}  // namespace attnviz::gguf
