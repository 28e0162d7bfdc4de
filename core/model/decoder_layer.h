// One decoder layer of an encoder-decoder (nn.TransformerDecoderLayer semantics), every
// intermediate kept: causal self-attention over the target so far, then cross-attention from the
// target to the encoder's output (the memory: Bahdanau's annotations h_j), then the FFN.
//   post-norm  x = LN1(x + SA(x));   x = LN2(x + CA(x, m));   x = LN3(x + FFN(x))
//   pre-norm   x = x + SA(LN1(x));   x = x + CA(LN2(x), m);   x = x + FFN(LN3(x))
// That is two of core/model/layer.h's layers in a row, and it is built so: an attention-only
// self-attention layer (norm1), then a cross-attention layer with the FFN (its norm1 is the
// decoder's norm2, its norm2 the decoder's norm3). So the decoder trains with layer_backward, which
// already carries a cross-attention layer's gradient into its memory. The memory is read as given
// (a pre-norm encoder's final norm is the encoder's business).
#pragma once
#include "model/layer.h"

namespace attnviz {

struct DecoderLayerWeights {
  LayerWeights self;   // attn: self_attn; norm1: norm1; no FFN, no norm2 (attention only)
  LayerWeights cross;  // attn: multihead_attn (W_q on the target, W_k and W_v on the memory);
                       // norm1: norm2; the FFN; norm2: norm3
};

struct DecoderLayerTrace {
  LayerTrace self;   // (T, T) weights per head; its out is the cross part's input
  LayerTrace cross;  // (T, S) weights per head: target position over source position; out: the layer's
  const Mat& out() const { return cross.out; }
};

// The config of the self-attention part: the decoder's, attention only.
ModelConfig decoder_self_config(const ModelConfig& config);

// self_mask: (T, T) additive (causal for a decoder); cross_mask: (T, S) additive (zeros, or the
// source's padding). The ablations switch heads off in either attention (attention_forward's);
// `products` picks the kernels (layer_forward's).
DecoderLayerTrace decoder_layer_forward(const DecoderLayerWeights& w, const ModelConfig& config, const Mat& x,
                                        const Mat& memory, const Mat& self_mask, const Mat& cross_mask,
                                        const LayerAblation& self_ablate = {}, const LayerAblation& cross_ablate = {},
                                        Products products = Products::fastest);
// The same with the two parts wherever they are kept (the translation model keeps them in a row).
DecoderLayerTrace decoder_layer_forward(const LayerWeights& self, const LayerWeights& cross, const ModelConfig& config,
                                        const Mat& x, const Mat& memory, const Mat& self_mask, const Mat& cross_mask,
                                        const LayerAblation& self_ablate = {}, const LayerAblation& cross_ablate = {},
                                        Products products = Products::fastest);

}  // namespace attnviz
