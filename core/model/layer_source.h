// Layers whose weights are kept in their file's encoding and decoded when a computation reaches them:
// a GGUF file's quantized tensors stay in the mapped file, and a layer's float matrices exist while it
// is in use or kept (the source keeps some decoded within a memory budget). A model with a
// source holds no layer weights of its own (Model::weights.layers are empty); every reader asks
// model_layer. Nothing here knows a file format (io/gguf_layers.h is the GGUF one).
#pragma once
#include <cstdint>
#include <memory>

#include "base/result.h"
#include "model/model.h"

namespace attnviz {

class LayerSource {
 public:
  virtual ~LayerSource() = default;
  // Layer l's weights in floats, shaped as ModelWeights's layers. Decoding may find what opening
  // the file did not look at (a NaN weight): an error naming the tensor.
  virtual Result<std::shared_ptr<const LayerWeights>> layer(int l) const = 0;
  // What one decoded layer takes, and how many are kept decoded at most (the budget's share).
  virtual uint64_t layer_bytes() const = 0;
  virtual int layers_kept() const = 0;
};

// Layer l of the model: its own weights (held by the model: the pointer does not own them), or its
// source's decoded layer. l must be a layer of the model.
Result<std::shared_ptr<const LayerWeights>> model_layer(const Model& model, int l);

}  // namespace attnviz
