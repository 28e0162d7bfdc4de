#include "model/layer_source.h"

namespace attnviz {

Result<std::shared_ptr<const LayerWeights>> model_layer(const Model& model, int l) {
  if (l < 0 || l >= model.config.n_layers) return make_error("the model has no layer " + std::to_string(l));
  if (model.layer_source) return model.layer_source->layer(l);
  // Aliasing, not owning: the model keeps its layers alive as long as the caller holds the model.
  return std::shared_ptr<const LayerWeights>(std::shared_ptr<const LayerWeights>(), &model.weights.layers[static_cast<size_t>(l)]);
}

}  // namespace attnviz
