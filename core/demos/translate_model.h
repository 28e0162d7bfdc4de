// The translation demo's encoder-decoder: an encoder over the English tokens (self-attention, as
// core/model/layer.h), a decoder over the Korean tokens so far (causal self-attention, then
// cross-attention to the encoder's output, then the FFN: core/model/decoder_layer.h) and an output
// projection onto the Korean vocabulary. Held as two Models so that everything a Model has serves
// it (random initialisation, AdamW, gradient norms): the encoder (the source vocabulary's table,
// learned positions, its layers, a final norm when pre-norm) and the decoder (the target
// vocabulary's table, learned positions, each decoder layer as its two parts in a row — self,
// cross, self, cross … —, a final norm when pre-norm, the output projection).
// Forward with every intermediate, the loss and its gradient by teacher forcing, greedy decoding.
#pragma once
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "demos/translate_data.h"
#include "model/ablation.h"
#include "model/decoder_layer.h"
#include "model/model.h"

namespace attnviz {

struct TranslateArch {
  int d_model = 64, n_heads = 4, encoder_layers = 2, decoder_layers = 1, d_ff = 256;
  ScoreKind score = ScoreKind::scaled_dot;
  NormPlacement norm = NormPlacement::pre;
  int max_positions = 64;  // source and target tokens each (3 clauses: at most 34 and 37)
  // The seq2seq before attention: no cross-attention; the decoder reads one fixed vector c, the mean
  // of the encoder's output, added to every one of its input embeddings (the bottleneck the seed
  // article starts from). Its decoder layers are plain causal layers (self-attention and the FFN).
  bool bottleneck = false;
};

struct TranslateModel {
  TranslateArch arch;
  Model encoder;
  Model decoder;  // weights.layers: 2 × decoder_layers parts (self, cross per decoder layer); with
                  // arch.bottleneck, decoder_layers plain causal layers
};

// The config each side's layers run with (decoder_self_config for the decoder's self parts).
ModelConfig translate_config(const TranslateArch& arch, int n_layers);
// Errors: an architecture the layers cannot have (d_model not divisible by the heads, ...).
Result<TranslateModel> translate_model_init(const TranslateArch& arch, uint64_t seed);

struct TranslateForward {
  Mat source_x;                         // (S, C) embedded source
  std::vector<LayerTrace> encoder;
  Mat memory;                           // (S, C) what the decoder's cross-attention reads
  Mat target_x;                         // (T, C) embedded decoder input: [BOS] + the target so far
  std::vector<DecoderLayerTrace> decoder;   // empty for the bottleneck model, which has:
  RowVec context;                           // (C) c, the mean of the memory's rows
  std::vector<LayerTrace> bottleneck;       // its decoder's layers, reading target_x + c
  Mat decoder_out;                      // (T, C) after the final norm
  Mat logits;                           // (T, V_target): row i predicts target token i
};
// `cross_off`: cross-attention heads switched off (layer: the decoder layer), as attention_forward
// switches heads off (model/ablation.h); the bottleneck model has none to switch off.
// Errors: ids outside a vocabulary, inputs longer than the position tables, an empty side, a head
// outside the decoder's cross-attention.
Result<TranslateForward> translate_forward(const TranslateModel& model, const std::vector<int>& source_ids,
                                           const std::vector<int>& decoder_input, const Ablation& cross_off = {});
// The two halves: the encoder's part of a TranslateForward (source_x, encoder, memory), then the
// decoder's on it (greedy decoding encodes once and decodes at every step).
Result<TranslateForward> translate_encode(const TranslateModel& model, const std::vector<int>& source_ids);
Status translate_decode(const TranslateModel& model, const std::vector<int>& decoder_input, TranslateForward& f,
                        const Ablation& cross_off = {});
// The heads of the decoder's cross-attention: an error naming the first head of `cross_off` that
// is not one of them (or any head, for the bottleneck model).
Status translate_ablation_validate(const TranslateModel& model, const Ablation& cross_off);

struct TranslateLossGrads {
  float loss = 0;   // mean cross-entropy over the target tokens and [EOS]
  int correct = 0;  // of those, predicted right (arg-max)
  int counted = 0;
  ModelWeights encoder, decoder;  // d loss / d weight, shaped as the models' weights
};
// Teacher forcing: the decoder reads [BOS] + target and predicts target + [EOS].
Result<TranslateLossGrads> translate_loss_grads(const TranslateModel& model, const TranslateExample& example);

// Greedy decoding: the arg-max token at each step until [EOS] or max_tokens; returns the target
// ids without [BOS] and [EOS].
Result<std::vector<int>> translate_greedy(const TranslateModel& model, const std::vector<int>& source_ids, int max_tokens,
                                          const Ablation& cross_off = {});
// The same from a source translate_encode has run (its decoder half is left at the last step).
Result<std::vector<int>> translate_greedy(const TranslateModel& model, TranslateForward& encoded, int max_tokens,
                                          const Ablation& cross_off = {});

}  // namespace attnviz
