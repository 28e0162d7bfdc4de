// Hugging Face checkpoints as ordinary engine models: config.json's sizes become a ModelConfig, the
// published tensor names (with or without the prefix a model with a head on top adds:
// "transformer.", "bert.", "model.", "gpt_neox.", ...) become ModelWeights. One file per group of
// families maps them (io/hf_gpt2_bert.cpp, io/hf_llama_neox.cpp). No file access and no tokenizer
// here (see core/io/model_open.h, core/io/hf_tokenizer_files.h).
#pragma once
#include <functional>
#include <string_view>

#include "base/result.h"
#include "io/safetensors.h"
#include "model/model.h"

namespace attnviz {

// GPT-2; the BERT relatives (BERT, RoBERTa, DistilBERT); the Llama-shaped decoders (Llama 2/3,
// TinyLlama, SmolLM, Mistral, Qwen2) and GPT-NeoX (Pythia).
enum class CheckpointFamily { gpt2, bert, roberta, distilbert, llama, mistral, qwen2, gpt_neox };
inline constexpr CheckpointFamily kCheckpointFamilies[] = {
    CheckpointFamily::gpt2,  CheckpointFamily::bert,    CheckpointFamily::roberta, CheckpointFamily::distilbert,
    CheckpointFamily::llama, CheckpointFamily::mistral, CheckpointFamily::qwen2,   CheckpointFamily::gpt_neox};

struct HfConfig {
  CheckpointFamily family = CheckpointFamily::gpt2;
  ModelConfig config;   // GPT-2: pre-norm, gelu_tanh, causal, ln_f. BERT: post-norm, gelu, embedding LayerNorm.
                        // Llama: pre-norm RMSNorm, SwiGLU, rotary, causal. GPT-NeoX: parallel residual.
  int vocab_size = 0;   // rows of the token embedding table
  bool tied = false;            // tie_word_embeddings: the output head is the token table (a file that
                                // says otherwise must carry the head's own weights)
  bool qkv_bias = false;        // Llama-shaped: q/k/v projections have biases (Qwen2; attention_bias)
  bool attention_bias = false;  // Llama-shaped: o_proj has one too (attention_bias)
};

// Reads config.json's text. "model_type" picks the family ("gpt2", "llama", ...; without it,
// "architectures" decides); the sizes, activation, norm eps, rotary settings and the rest come from
// the file, with the families' published defaults for absent keys. The rotary settings are read in
// transformers 4's layout (rope_theta, rope_scaling; GPT-NeoX's rotary_emb_base, rotary_pct) and in
// 5's (rope_parameters); a setting written in both must have one value. Every key of the file is
// read, known not to change the numbers, or an error naming it: unsupported variants (relative
// position embeddings, GPT-2's attention scaled by layer index, rope types other than default,
// linear and llama3, per-layer sliding windows, soft-capping, QK norms, quantization) and keys
// attnviz does not know alike.
Result<HfConfig> hf_config_parse(std::string_view config_json);

std::string_view name_of(CheckpointFamily family);  // config.json's model_type: "gpt2", "bert", "llama", ...

// Maps the tensors onto the engine's layout and checks every shape and value: a missing tensor, a
// wrong shape or a non-finite weight is an error naming the tensor as the file spells it. The
// tensors are consumed (each one's memory is released once copied), so the peak stays near one copy
// of the weights. They are converted straight into the model's matrices on OpenMP's threads, the
// values the same bit for bit whatever the thread count (a file mapped with MappedValues::in_place
// lends its F32 tensors stored as the engine holds them instead: no copy), and the first error in
// the order the tensors are taken is the one reported. The masked-LM heads (BERT's
// cls.predictions.*, RoBERTa's lm_head.*, DistilBERT's vocab_*) and the decoders' lm_head /
// embed_out are read when present; other heads, the pooler and buffers are ignored. `progress`
// (optional) gets the fraction of tensors done, called on the calling thread only. The model comes
// back without a tokenizer.
Result<Model> hf_model_from_tensors(TensorFile file, const HfConfig& config,
                                    const std::function<void(float)>& progress = {});

}  // namespace attnviz
