#include "demos/translate_model.h"

#include <string>

#include "model/embed.h"
#include "model/kernels.h"
#include "model/mask.h"
#include "train/backward.h"
#include "train/train.h"

namespace attnviz {

namespace {

// Every product of the translation model on the portable kernels (model/products.h): training,
// scoring, greedy decoding, the app and the CLI compute the same bits on every x86-64 CPU, so the
// shipped models retrain to their bytes anywhere, as the other demos do. The model is small enough
// that the fastest kernels saved little (bench/README.md).
constexpr Products kTranslateProducts = Products::portable;

Mat final_norm(const Model& m, const Mat& x) {
  return m.config.final_norm ? norm_apply(x, m.weights.final_norm_w, m.weights.final_norm_b, m.config) : x;
}

// d loss / d the final norm's input, its parameters' gradients into g.
Mat final_norm_backward(const Model& m, const Mat& before, Mat d, ModelWeights& g) {
  if (!m.config.final_norm) return d;
  LayerNormGrads n = layer_norm_backward(before, m.weights.final_norm_w, m.config.ln_eps, d);
  g.final_norm_w = std::move(n.dw);
  g.final_norm_b = std::move(n.db);
  return std::move(n.dx);
}

// Zeros for the tables and norms a side's gradient holds beside its layers.
ModelWeights grads_frame(const Model& m) {
  ModelWeights g;
  g.layers.resize(m.weights.layers.size());
  g.tok_embed = Mat::Zero(m.weights.tok_embed.rows(), m.weights.tok_embed.cols());
  g.pos_embed = Mat::Zero(m.weights.pos_embed.rows(), m.weights.pos_embed.cols());
  g.final_norm_w = Vec::Zero(m.weights.final_norm_w.size());
  g.final_norm_b = Vec::Zero(m.weights.final_norm_b.size());
  return g;
}

void embedding_backward(const std::vector<int>& ids, const Mat& d, ModelWeights& g) {
  for (size_t t = 0; t < ids.size(); ++t) {
    const auto r = static_cast<Eigen::Index>(t);
    g.tok_embed.row(ids[t]) += d.row(r);
    g.pos_embed.row(r) += d.row(r);
  }
}

}  // namespace

ModelConfig translate_config(const TranslateArch& a, int n_layers) {
  ModelConfig c;
  c.d_model = a.d_model;
  c.n_heads = a.n_heads;
  c.n_layers = n_layers;
  c.d_ff = a.d_ff;
  c.norm = a.norm;
  c.score = a.score;
  c.activation = Activation::gelu;
  c.positions = PositionEncoding::learned;
  c.max_positions = a.max_positions;
  c.final_norm = a.norm == NormPlacement::pre;
  return c;
}

Result<TranslateModel> translate_model_init(const TranslateArch& arch, uint64_t seed) {
  if (arch.encoder_layers < 1 || arch.decoder_layers < 1) return make_error("the encoder and the decoder need a layer each");
  if (arch.d_ff < 1) return make_error("the translation model's layers need an FFN (d_ff >= 1)");
  const ModelConfig enc = translate_config(arch, arch.encoder_layers), dec = translate_config(arch, arch.decoder_layers);
  if (Status s = config_validate(enc); !s) return make_error(s.error());
  TranslateModel m;
  m.arch = arch;
  m.encoder = model_init_random(enc, seed_for(seed, "translate.encoder"));
  m.encoder.vocab = translate_source_vocabulary();
  weights_init_vocab(m.encoder, seed_for(seed, "translate.source_embeddings"), 0.5, 0.15, 0.05);
  m.encoder.weights.output_w = WeightMat();  // the encoder predicts nothing
  m.encoder.weights.output_b = Vec();
  if (arch.bottleneck) {
    m.decoder = model_init_random(dec, seed_for(seed, "translate.decoder_bottleneck"));
    m.decoder.vocab = translate_target_vocabulary();
    weights_init_vocab(m.decoder, seed_for(seed, "translate.target_embeddings"), 0.5, 0.15, 0.05);
    m.encoder.source = m.decoder.source = made_source("demo: translate (bottleneck)", seed);
    return m;
  }
  const Model cross = model_init_random(dec, seed_for(seed, "translate.decoder_cross"));
  const Model self = model_init_random(decoder_self_config(dec), seed_for(seed, "translate.decoder_self"));
  m.decoder = cross;
  m.decoder.weights.layers.clear();
  for (int l = 0; l < arch.decoder_layers; ++l) {
    m.decoder.weights.layers.push_back(self.weights.layers[static_cast<size_t>(l)]);
    m.decoder.weights.layers.push_back(cross.weights.layers[static_cast<size_t>(l)]);
  }
  m.decoder.vocab = translate_target_vocabulary();
  weights_init_vocab(m.decoder, seed_for(seed, "translate.target_embeddings"), 0.5, 0.15, 0.05);
  m.encoder.source = m.decoder.source = made_source("demo: translate", seed);
  return m;
}

Result<TranslateForward> translate_encode(const TranslateModel& m, const std::vector<int>& source_ids) {
  if (source_ids.empty()) return make_error("translate: nothing to translate");
  TranslateForward f;
  auto xs = embed_ids(m.encoder, source_ids, {});
  if (!xs) return make_error("translate: source: " + xs.error());
  f.source_x = std::move(*xs);
  const auto S = static_cast<int>(source_ids.size());
  const ModelConfig& ec = m.encoder.config;
  Mat x = f.source_x;
  const Mat none = Mat::Zero(S, S);
  for (int l = 0; l < ec.n_layers; ++l) {
    f.encoder.push_back(layer_forward(m.encoder.weights.layers[static_cast<size_t>(l)], ec, x, nullptr, none, MapsKept::all, {}, kTranslateProducts));
    x = f.encoder.back().out;
  }
  f.memory = final_norm(m.encoder, x);
  return f;
}

Status translate_ablation_validate(const TranslateModel& m, const Ablation& cross_off) {
  if (!cross_off.any()) return Ok{};
  if (m.arch.bottleneck) return make_error("the bottleneck model has no cross-attention heads to switch off");
  for (const HeadRef& h : cross_off.heads)
    if (h.layer < 0 || h.layer >= m.arch.decoder_layers || h.head < 0 || h.head >= m.arch.n_heads)
      return make_error("cross-attention head L" + std::to_string(h.layer + 1) + " H" + std::to_string(h.head + 1) +
                        " is not in the decoder (" + std::to_string(m.arch.decoder_layers) + " layer(s) of " +
                        std::to_string(m.arch.n_heads) + " heads)");
  return Ok{};
}

Status translate_decode(const TranslateModel& m, const std::vector<int>& decoder_input, TranslateForward& f,
                        const Ablation& cross_off) {
  if (decoder_input.empty()) return make_error("translate: an empty decoder input");
  if (Status s = translate_ablation_validate(m, cross_off); !s) return s;
  auto xt = embed_ids(m.decoder, decoder_input, {});
  if (!xt) return make_error("translate: target: " + xt.error());
  f.target_x = std::move(*xt);
  f.decoder.clear();
  const auto S = static_cast<int>(f.memory.rows()), T = static_cast<int>(decoder_input.size());
  MaskSpec causal;
  causal.causal = true;
  const Mat self_mask = mask_build(causal, T, T, T), cross_mask = Mat::Zero(T, S);
  Mat y = f.target_x;
  const auto& parts = m.decoder.weights.layers;
  f.bottleneck.clear();
  if (m.arch.bottleneck) {
    f.context = f.memory.colwise().mean();
    y.rowwise() += f.context;
    for (int l = 0; l < m.decoder.config.n_layers; ++l) {
      f.bottleneck.push_back(layer_forward(parts[static_cast<size_t>(l)], m.decoder.config, y, nullptr, self_mask, MapsKept::all, {},
                                           kTranslateProducts));
      y = f.bottleneck.back().out;
    }
  } else {
    for (int l = 0; l < m.decoder.config.n_layers; ++l) {
      f.decoder.push_back(decoder_layer_forward(parts[static_cast<size_t>(2 * l)], parts[static_cast<size_t>(2 * l + 1)],
                                                m.decoder.config, y, f.memory, self_mask, cross_mask, {},
                                                ablation_for_layer(cross_off, l, m.arch.n_heads), kTranslateProducts));
      y = f.decoder.back().out();
    }
  }
  f.decoder_out = final_norm(m.decoder, y);
  f.logits = linear(f.decoder_out, m.decoder.weights.output_w, m.decoder.weights.output_b, kTranslateProducts);
  return Ok{};
}

Result<TranslateForward> translate_forward(const TranslateModel& m, const std::vector<int>& source_ids,
                                           const std::vector<int>& decoder_input, const Ablation& cross_off) {
  auto f = translate_encode(m, source_ids);
  if (!f) return f;
  if (Status s = translate_decode(m, decoder_input, *f, cross_off); !s) return make_error(s.error());
  return f;
}

Result<TranslateLossGrads> translate_loss_grads(const TranslateModel& m, const TranslateExample& ex) {
  std::vector<int> input = {kTranslateBos}, targets = ex.target_ids;
  input.insert(input.end(), ex.target_ids.begin(), ex.target_ids.end());
  targets.push_back(kTranslateEos);
  auto fr = translate_forward(m, ex.source_ids, input);
  if (!fr) return make_error(fr.error());
  const TranslateForward& f = *fr;
  TranslateLossGrads out;
  const CrossEntropy ce = cross_entropy(f.logits, targets);
  out.loss = ce.loss;
  out.counted = static_cast<int>(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    Eigen::Index best = 0;
    f.logits.row(static_cast<Eigen::Index>(i)).maxCoeff(&best);
    out.correct += best == targets[i];
  }
  // The decoder, from its output back to its embeddings; its cross parts also send a gradient
  // into the memory, which the encoder then carries back.
  const Model& dec = m.decoder;
  ModelWeights& gd = out.decoder = grads_frame(dec);
  LinearGrads head = linear_backward(f.decoder_out, dec.weights.output_w, ce.dlogits);
  gd.output_w = std::move(head.dw);
  gd.output_b = std::move(head.db);
  const int L = dec.config.n_layers;
  const Mat& decoder_last = m.arch.bottleneck ? f.bottleneck.back().out : f.decoder[static_cast<size_t>(L - 1)].out();
  Mat d = final_norm_backward(dec, decoder_last, std::move(head.dx), gd);
  Mat dmemory = Mat::Zero(f.memory.rows(), f.memory.cols());
  if (m.arch.bottleneck) {  // plain causal layers; c = mean of the memory's rows was added to each input row
    for (int l = L - 1; l >= 0; --l) {
      LayerGrads g = layer_backward(dec.weights.layers[static_cast<size_t>(l)], dec.config, f.bottleneck[static_cast<size_t>(l)],
                                    nullptr, d);
      gd.layers[static_cast<size_t>(l)] = std::move(g.dw);
      d = std::move(g.dx);
    }
    const auto S = f.memory.rows();
    dmemory = (d.colwise().sum() / static_cast<float>(S)).replicate(S, 1);
  } else {
    const ModelConfig self_config = decoder_self_config(dec.config);
    for (int l = L - 1; l >= 0; --l) {
      const DecoderLayerTrace& t = f.decoder[static_cast<size_t>(l)];
      const auto self_at = static_cast<size_t>(2 * l), cross_at = self_at + 1;
      LayerGrads cross = layer_backward(dec.weights.layers[cross_at], dec.config, t.cross, &f.memory, d);
      dmemory += cross.dmemory;
      gd.layers[cross_at] = std::move(cross.dw);
      LayerGrads self = layer_backward(dec.weights.layers[self_at], self_config, t.self, nullptr, cross.dx);
      gd.layers[self_at] = std::move(self.dw);
      d = std::move(self.dx);
    }
  }
  embedding_backward(input, d, gd);
  const Model& enc = m.encoder;
  ModelWeights& ge = out.encoder = grads_frame(enc);
  const int E = enc.config.n_layers;
  d = final_norm_backward(enc, f.encoder[static_cast<size_t>(E - 1)].out, std::move(dmemory), ge);
  for (int l = E - 1; l >= 0; --l) {
    LayerGrads g = layer_backward(enc.weights.layers[static_cast<size_t>(l)], enc.config, f.encoder[static_cast<size_t>(l)],
                                  nullptr, d);
    ge.layers[static_cast<size_t>(l)] = std::move(g.dw);
    d = std::move(g.dx);
  }
  embedding_backward(ex.source_ids, d, ge);
  return out;
}

Result<std::vector<int>> translate_greedy(const TranslateModel& m, TranslateForward& encoded, int max_tokens,
                                          const Ablation& cross_off) {
  std::vector<int> input = {kTranslateBos};
  for (int step = 0; step < max_tokens; ++step) {
    if (Status s = translate_decode(m, input, encoded, cross_off); !s) return make_error(s.error());
    Eigen::Index best = 0;
    encoded.logits.row(encoded.logits.rows() - 1).maxCoeff(&best);
    if (best == kTranslateEos) break;
    input.push_back(static_cast<int>(best));
  }
  return std::vector<int>(input.begin() + 1, input.end());
}

Result<std::vector<int>> translate_greedy(const TranslateModel& m, const std::vector<int>& source_ids, int max_tokens,
                                          const Ablation& cross_off) {
  auto f = translate_encode(m, source_ids);
  if (!f) return make_error(f.error());
  return translate_greedy(m, *f, max_tokens, cross_off);
}

}  // namespace attnviz
