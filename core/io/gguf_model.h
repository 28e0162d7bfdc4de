// A GGUF file (llama.cpp's format, as Ollama and LM Studio store models) as an ordinary engine model:
// general.architecture picks the family, its metadata becomes a ModelConfig, its tensors (any type of
// io/ggml_types.h) are decoded into the engine's float matrices, and tokenizer.ggml.* becomes the
// model's tokenizer. The layers stay quantized in the mapped file and are decoded when a forward
// reaches them (model/layer_source.h), so a model larger than memory in floats opens; the numbers
// are the float computation on the dequantized weights either way. Every metadata key is read,
// known not to change the numbers, or an error naming it; every tensor is used.
#pragma once
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/gguf.h"
#include "model/model.h"

namespace attnviz {

// The architectures attnviz opens, as general.architecture names them.
std::vector<std::string_view> gguf_architectures();

struct GgufOpen {
  // on_demand: the layers decoded when a computation reaches them; the first `layers_kept` decoded stay
  // decoded (-1: as many as a third of the memory available holds; 0: none, every layer is decoded
  // each time it is used, the least memory), the others are decoded each time; decoded_now: every layer
  // decoded as the file opens (and any bad value found then). The final norm is decoded as the file
  // opens either way.
  enum class Layers { on_demand, decoded_now } layers = Layers::on_demand;
  int layers_kept = -1;
  // With layers on demand, the token table and the output head: kept in the file's encoding and
  // decoded a tile of rows at a time (model/vocab_table.h) when their floats would take more than an
  // eighth of the memory available (by_memory: an 8B model's two 2.1 GB tables, not a 1B model's
  // tied 1 GB one on 24 GB), always (encoded), or never (decoded). decoded_now decodes them too.
  enum class Vocab { by_memory, encoded, decoded } vocab = Vocab::by_memory;
};

// The model of a parsed, mapped file, with its tokenizer. `progress` gets the fraction of the
// tensors' bytes decoded at opening, on the calling thread. Errors name the key or tensor at fault.
Result<Model> gguf_model_from_file(std::shared_ptr<const GgufMapped> file, const GgufOpen& how = {},
                                   const std::function<void(float)>& progress = {});

}  // namespace attnviz
