// A GGUF file (llama.cpp's format, as Ollama and LM Studio store models) as an ordinary engine model:
// general.architecture picks the family, its metadata becomes a ModelConfig, its tensors (any type of
// io/ggml_types.h) are decoded into the engine's float matrices, and tokenizer.ggml.* becomes the
// model's tokenizer. The numbers are the float computation on the dequantized weights. Every
// metadata key is read, known not to change the numbers, or an error naming it; every tensor is used.
#pragma once
#include <functional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/gguf.h"
#include "model/model.h"

namespace attnviz {

// The architectures attnviz opens, as general.architecture names them.
std::vector<std::string_view> gguf_architectures();

// The model of a parsed, mapped file, with its tokenizer. `progress` gets the fraction of the
// tensors' bytes decoded, on the calling thread. Errors name the key or tensor at fault.
Result<Model> gguf_model_from_file(const GgufMapped& file, const std::function<void(float)>& progress = {});

}  // namespace attnviz
