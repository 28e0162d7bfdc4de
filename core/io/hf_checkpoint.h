// Hugging Face checkpoints of the GPT-2 and BERT families as ordinary engine models: config.json's
// sizes become a ModelConfig, the published tensor names (with or without the "transformer." /
// "bert." prefix) become ModelWeights. GPT-2's Conv1D weights are stored (in, out) and are
// transposed here; BERT's separate query/key/value are stacked into the engine's in_proj.
// No file access and no tokenizer here (see core/io/model_open.h, core/io/hf_tokenizer_files.h).
#pragma once
#include <functional>
#include <string_view>

#include "base/result.h"
#include "io/safetensors.h"
#include "model/model.h"

namespace attnviz {

enum class CheckpointFamily { gpt2, bert };

struct HfConfig {
  CheckpointFamily family = CheckpointFamily::gpt2;
  ModelConfig config;   // GPT-2: pre-norm, gelu_tanh, causal, ln_f. BERT: post-norm, gelu, embedding LayerNorm.
  int vocab_size = 0;   // rows of the token embedding table
};

// Reads config.json's text. "model_type" picks the family ("gpt2", "bert"; without it,
// "architectures" decides); the sizes, activation and LayerNorm eps come from the file, with the
// families' published defaults for absent keys. Unsupported variants (relative position
// embeddings, GPT-2's attention scaled by layer index) are errors saying so.
Result<HfConfig> hf_config_parse(std::string_view config_json);

std::string_view name_of(CheckpointFamily family);  // "gpt2", "bert"

// Maps the tensors onto the engine's layout and checks every shape and value: a missing tensor, a
// wrong shape or a non-finite weight is an error naming the tensor as the file spells it. The
// tensors are consumed (each one's memory is released once copied), so the peak stays near one copy
// of the weights. They are converted straight into the model's matrices on OpenMP's threads, the
// values the same bit for bit whatever the thread count, and the first error in the order the
// tensors are taken is the one reported. BERT's masked-LM head (cls.predictions.*) is read when
// present; other heads, the pooler and buffers are ignored. `progress` (optional) gets the fraction
// of tensors done, called on the calling thread only. The model comes back without a tokenizer.
Result<Model> hf_model_from_tensors(TensorFile file, const HfConfig& config,
                                    const std::function<void(float)>& progress = {});

}  // namespace attnviz
