// One entry point for every model a user can point at: a Hugging Face checkpoint folder (config.json,
// model.safetensors or its sharded index, tokenizer files), a .safetensors file inside such a folder,
// an attnviz model file (its config in the metadata), a folder holding model.safetensors (our
// demos), a GGUF file (llama.cpp's format, told by its magic whatever its name), "ollama:NAME[:TAG]"
// (an Ollama model by the name `ollama run` takes: its weights' GGUF blob, io/local_models.h), or a
// raw PyTorch encoder state dict (with `fallback` for what shapes cannot tell).
// Reading happens here; parsing is in model_io, hf_checkpoint and hf_tokenizer_files.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "io/safetensors.h"
#include "model/config.h"
#include "model/model.h"

namespace attnviz {

inline constexpr std::string_view kOllamaPrefix = "ollama:";

// progress(fraction in [0, 1]) is called from the loading thread as reading and converting proceed.
using OpenProgress = std::function<void(float)>;

// Errors start with the path and name the file or tensor at fault. The model is fully checked
// (shapes and finite values) before it is returned; model.source is the path as given. `weights`:
// whether F32 weights may be read in place from the file (MappedValues::in_place, for a process
// that ends soon after, the CLI: no copy, half the memory) or must be the model's own (the app).
// `gguf_layers_kept`: a GGUF file's decoded layers kept in memory (GgufOpen::layers_kept: -1 by the
// memory available, 0 none); set for another kind of model it is an error naming the flag's meaning.
Result<Model> model_open(const std::string& path, const std::optional<ModelConfig>& fallback = std::nullopt,
                         const OpenProgress& progress = {}, MappedValues weights = MappedValues::copied,
                         int gguf_layers_kept = -1);

// A short description for status lines: "gpt2 checkpoint, bpe 50257 pieces" style facts.
std::string model_summary(const Model& model);

}  // namespace attnviz
