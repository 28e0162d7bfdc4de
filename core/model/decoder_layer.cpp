#include "model/decoder_layer.h"

namespace attnviz {

ModelConfig decoder_self_config(const ModelConfig& config) {
  ModelConfig c = config;
  c.d_ff = 0;
  c.gated_ffn = false;
  c.parallel_residual = false;
  return c;
}

DecoderLayerTrace decoder_layer_forward(const LayerWeights& self, const LayerWeights& cross, const ModelConfig& config,
                                        const Mat& x, const Mat& memory, const Mat& self_mask, const Mat& cross_mask,
                                        const LayerAblation& self_ablate, const LayerAblation& cross_ablate,
                                        Products products) {
  DecoderLayerTrace t;
  t.self = layer_forward(self, decoder_self_config(config), x, nullptr, self_mask, MapsKept::all, self_ablate, products);
  t.cross = layer_forward(cross, config, t.self.out, &memory, cross_mask, MapsKept::all, cross_ablate, products);
  return t;
}

DecoderLayerTrace decoder_layer_forward(const DecoderLayerWeights& w, const ModelConfig& config, const Mat& x,
                                        const Mat& memory, const Mat& self_mask, const Mat& cross_mask,
                                        const LayerAblation& self_ablate, const LayerAblation& cross_ablate,
                                        Products products) {
  return decoder_layer_forward(w.self, w.cross, config, x, memory, self_mask, cross_mask, self_ablate, cross_ablate, products);
}

}  // namespace attnviz
