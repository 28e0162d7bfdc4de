// The translation demo's encoder-decoder (core/demos/translate_model.h): its gradient against
// central finite differences in every part a bug could hide in (the source and target tables and
// positions, an encoder layer, the decoder's self and cross parts, the final norms, the output),
// and a few AdamW steps that lower the loss of a batch.
#include <doctest/doctest.h>

#include <cmath>

#include "demos/translate_demo.h"
#include "train/train.h"

namespace attnviz {
namespace {

TranslateExample example_of(const char* english) {
  auto pair = translate_parse(english);
  REQUIRE_MESSAGE(pair, pair.error());
  return translate_example(*pair, translate_source_vocabulary(), translate_target_vocabulary());
}

TranslateArch arch_of(int d_model, int heads, int encoder_layers, int decoder_layers, int d_ff,
                      NormPlacement norm = NormPlacement::pre) {
  TranslateArch a;
  a.d_model = d_model;
  a.n_heads = heads;
  a.encoder_layers = encoder_layers;
  a.decoder_layers = decoder_layers;
  a.d_ff = d_ff;
  a.norm = norm;
  return a;
}

TranslateArch tiny_arch(NormPlacement norm) { return arch_of(8, 2, 2, 2, 12, norm); }

// Central differences of the loss in double steps of one float weight.
double numeric_grad(TranslateModel& m, float& weight, const TranslateExample& ex) {
  const float keep = weight, h = 1e-2f;
  weight = keep + h;
  const double up = translate_loss_grads(m, ex)->loss;
  weight = keep - h;
  const double down = translate_loss_grads(m, ex)->loss;
  weight = keep;
  return (up - down) / (2.0 * static_cast<double>(h));
}

TEST_CASE("translate model: the gradient agrees with finite differences everywhere, post- and pre-norm, every score") {
  const TranslateExample ex = example_of("the big cat chased the dog in the park and the bird saw the book .");
  struct Variant {
    NormPlacement norm;
    ScoreKind score;
  };
  for (const Variant v : {Variant{NormPlacement::post, ScoreKind::scaled_dot}, Variant{NormPlacement::pre, ScoreKind::scaled_dot},
                          Variant{NormPlacement::pre, ScoreKind::dot}, Variant{NormPlacement::pre, ScoreKind::general},
                          Variant{NormPlacement::post, ScoreKind::additive}}) {
    const NormPlacement norm = v.norm;
    CAPTURE(static_cast<int>(norm));
    CAPTURE(static_cast<int>(v.score));
    TranslateArch arch = tiny_arch(norm);
    arch.score = v.score;
    auto made = translate_model_init(arch, 3);
    REQUIRE_MESSAGE(made, made.error());
    TranslateModel m = std::move(*made);
    auto g = translate_loss_grads(m, ex);
    REQUIRE_MESSAGE(g, g.error());
    CHECK(g->counted == static_cast<int>(ex.target_ids.size()) + 1);
    CHECK(g->loss > 0);
    struct Probe {
      const char* what;
      float* weight;
      float analytic;
    };
    ModelWeights& ew = m.encoder.weights;
    ModelWeights& dw = m.decoder.weights;
    const int src = ex.source_ids[2], tgt = ex.target_ids[0];  // "cat", its Korean as the first decoder input after [BOS]
    std::vector<Probe> probes = {
        {"source table (cat)", &ew.tok_embed(src, 3), g->encoder.tok_embed(src, 3)},
        {"source position 5", &ew.pos_embed(5, 1), g->encoder.pos_embed(5, 1)},
        {"encoder layer 0 W_q", &ew.layers[0].attn.in_proj_w(2, 4), g->encoder.layers[0].attn.in_proj_w(2, 4)},
        {"encoder layer 1 W_v", &ew.layers[1].attn.in_proj_w(20, 1), g->encoder.layers[1].attn.in_proj_w(20, 1)},
        {"encoder layer 1 FFN", &ew.layers[1].ff1_w(3, 5), g->encoder.layers[1].ff1_w(3, 5)},
        {"target table", &dw.tok_embed(tgt, 6), g->decoder.tok_embed(tgt, 6)},
        {"target position 3", &dw.pos_embed(3, 2), g->decoder.pos_embed(3, 2)},
        {"decoder 0 self W_k", &dw.layers[0].attn.in_proj_w(9, 3), g->decoder.layers[0].attn.in_proj_w(9, 3)},
        {"decoder 0 cross W_k (on the memory)", &dw.layers[1].attn.in_proj_w(10, 2), g->decoder.layers[1].attn.in_proj_w(10, 2)},
        {"decoder 1 cross W_O", &dw.layers[3].attn.out_w(4, 7), g->decoder.layers[3].attn.out_w(4, 7)},
        {"decoder 1 self norm", &dw.layers[2].norm1_w(1), g->decoder.layers[2].norm1_w(1)},
        {"decoder 1 FFN out", &dw.layers[3].ff2_w(2, 9), g->decoder.layers[3].ff2_w(2, 9)},
        {"output", &dw.output_w(tgt, 0), g->decoder.output_w(tgt, 0)},
    };
    if (v.score == ScoreKind::general)
      probes.push_back({"decoder 0 cross general W_a", &dw.layers[1].attn.general_w(2, 1), g->decoder.layers[1].attn.general_w(2, 1)});
    if (v.score == ScoreKind::additive) {
      probes.push_back({"encoder 0 additive v", &ew.layers[0].attn.additive_v(1, 2), g->encoder.layers[0].attn.additive_v(1, 2)});
      probes.push_back({"decoder 1 cross additive W_k", &dw.layers[3].attn.additive_wk(3, 0), g->decoder.layers[3].attn.additive_wk(3, 0)});
    }
    if (norm == NormPlacement::pre) {
      probes.push_back({"encoder final norm", &ew.final_norm_w(3), g->encoder.final_norm_w(3)});
      probes.push_back({"decoder final norm", &dw.final_norm_b(5), g->decoder.final_norm_b(5)});
    }
    size_t sizeable = 0;  // gradients worth checking: most of them, or the check says little
    for (const Probe& p : probes) {
      const std::string what = p.what;
      CAPTURE(what);
      const double numeric = numeric_grad(m, *p.weight, ex);
      sizeable += std::abs(numeric) > 1e-4;
      CHECK(std::abs(numeric - p.analytic) <= 1e-4 + 1e-2 * std::abs(numeric));
    }
    CHECK(sizeable * 5 >= probes.size() * 4);
  }
}

TEST_CASE("translate model: AdamW steps on a batch lower its loss; greedy decoding stops at [EOS]") {
  auto made = translate_model_init(tiny_arch(NormPlacement::pre), 5);
  REQUIRE(made);
  TranslateModel m = std::move(*made);
  const std::vector<TranslateExample> batch = {example_of("the cat saw the dog ."), example_of("the student bought the book at school ."),
                                               example_of("the red bird found the apple and the girl met the boy .")};
  const auto batch_loss = [&] {
    double sum = 0;
    for (const TranslateExample& ex : batch) sum += translate_loss_grads(m, ex)->loss;
    return sum / static_cast<double>(batch.size());
  };
  const double before = batch_loss();
  AdamConfig adam;
  adam.lr = 1e-2f;
  AdamState se = adam_init(m.encoder.weights), sd = adam_init(m.decoder.weights);
  for (int step = 0; step < 30; ++step) {
    ModelWeights ge = weights_zeros_like(m.encoder.weights), gd = weights_zeros_like(m.decoder.weights);
    for (const TranslateExample& ex : batch) {
      auto g = translate_loss_grads(m, ex);
      REQUIRE(g);
      weights_add(ge, g->encoder, 1.0f / 3);
      weights_add(gd, g->decoder, 1.0f / 3);
    }
    const float norm = std::sqrt(weights_norm(ge) * weights_norm(ge) + weights_norm(gd) * weights_norm(gd));
    adam_step(m.encoder.weights, ge, norm, se, adam);
    adam_step(m.decoder.weights, gd, norm, sd, adam);
  }
  const double after = batch_loss();
  CHECK(after < before * 0.5);
  auto out = translate_greedy(m, batch[0].source_ids, 40);
  REQUIRE(out);
  CHECK(out->size() <= 40);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("translate demo: a short run is the same every time, and its scores count every held-out sentence") {
  TranslateTrainOptions o;
  o.arch = arch_of(16, 2, 1, 1, 16);
  o.n_train = 300;
  o.heldout_per_length = 4;
  o.batch = 8;
  o.max_steps = 6;
  o.eval_every = 3;
  std::vector<float> losses;
  auto a = translate_train(o, [&](const TranslateProgress& p, const TranslateModel&) {
    losses.push_back(p.loss);
    return true;
  });
  REQUIRE_MESSAGE(a, a.error());
  REQUIRE(losses.size() == 6);
  REQUIRE(a->history.size() == 2);  // steps 3 and 6
  const TranslateScores& s = a->history.back().scores;
  CHECK(s.counted[0] == 12);
  for (int k = 1; k <= kTranslateMaxClauses; ++k) CHECK(s.counted[k] == 4);
  REQUIRE(s.content_aligned.size() == 2);  // 1 decoder layer x 2 heads
  for (size_t h = 0; h < 2; ++h) {
    CHECK(s.content_aligned[h] >= 0.0f);
    CHECK(s.content_aligned[h] <= 1.0f);
    CHECK(s.content_aligned[static_cast<size_t>(s.best_head)] >= s.content_aligned[h]);
  }
  std::vector<float> again;
  auto b = translate_train(o, [&](const TranslateProgress& p, const TranslateModel&) {
    again.push_back(p.loss);
    return p.step < 4;  // the callback stops the run
  });
  REQUIRE(b);
  CHECK(b->stopped);
  REQUIRE(again.size() == 4);
  for (size_t i = 0; i < again.size(); ++i) CHECK(again[i] == losses[i]);
}

}  // namespace
}  // namespace attnviz

#include "demos/translate_file.h"

namespace attnviz {
namespace {

TEST_CASE("translate file: a model saved and read back computes the same numbers; bad files are refused by name") {
  auto made = translate_model_init(arch_of(16, 4, 2, 2, 24), 11);
  REQUIRE(made);
  const TensorFile file = translate_to_tensors(*made);
  auto back = translate_from_tensors(file);
  REQUIRE_MESSAGE(back, back.error());
  CHECK(back->arch.decoder_layers == 2);
  CHECK(back->decoder.weights.layers.size() == 4);
  const TranslateExample ex = example_of("the small boy drew the horse at home .");
  std::vector<int> input = {kTranslateBos};
  input.insert(input.end(), ex.target_ids.begin(), ex.target_ids.end());
  auto f1 = translate_forward(*made, ex.source_ids, input), f2 = translate_forward(*back, ex.source_ids, input);
  REQUIRE(f1);
  REQUIRE(f2);
  CHECK((f1->logits - f2->logits).cwiseAbs().maxCoeff() == 0.0f);
  CHECK((f1->decoder[1].cross.attn.heads[3].weights_kept - f2->decoder[1].cross.attn.heads[3].weights_kept).cwiseAbs().maxCoeff() == 0.0f);

  TensorFile stray = file;
  stray.tensors.back().name = "decoder2.output.weight";
  CHECK(translate_from_tensors(stray).error() ==
        "translation model: tensor 'decoder2.output.weight' is under none of encoder., decoder_self., decoder.");
  TensorFile no_arch = file;
  no_arch.metadata.erase(kTranslateKey);
  CHECK(translate_from_tensors(no_arch).error() == "not a translation model: no attnviz.translate metadata");
  TensorFile other = file;
  other.metadata[kTranslateKey] = R"({"d_model":16,"n_heads":4,"encoder_layers":3,"decoder_layers":2,"d_ff":24,"max_positions":64})";
  CHECK(translate_from_tensors(other).error() == "translation model: the encoder disagrees with attnviz.translate");
  other.metadata[kTranslateKey] = R"({"d_model":16,"n_heads":4,"encoder_layers":2,"decoder_layers":2,"d_ff":24,"max_positions":64,"depth":1})";
  CHECK(translate_from_tensors(other).error().find("attnviz.translate: unknown key 'depth'") == 0);
  // The parts run as one model: a part with another scoring function is refused, both named.
  TranslateModel mixed = *made;
  mixed.decoder.config.score = ScoreKind::dot;
  CHECK(translate_from_tensors(translate_to_tensors(mixed)).error() ==
        "translation model: the decoder_self part's scoring function (dot) disagrees with the encoder's (scaled_dot)");
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("translate model, the bottleneck: the gradient through c = mean(memory) agrees with finite differences; its file round-trips") {
  const TranslateExample ex = example_of("the big cat chased the dog in the park and the bird saw the book .");
  TranslateArch arch = tiny_arch(NormPlacement::pre);
  arch.bottleneck = true;
  auto made = translate_model_init(arch, 4);
  REQUIRE_MESSAGE(made, made.error());
  TranslateModel m = std::move(*made);
  CHECK(m.decoder.weights.layers.size() == 2);  // whole causal layers, no cross parts
  auto f = translate_forward(m, ex.source_ids, {kTranslateBos, ex.target_ids[0]});
  REQUIRE(f);
  CHECK(f->decoder.empty());
  CHECK(f->bottleneck.size() == 2);
  CHECK((f->context - f->memory.colwise().mean()).cwiseAbs().maxCoeff() == 0.0f);
  auto g = translate_loss_grads(m, ex);
  REQUIRE_MESSAGE(g, g.error());
  ModelWeights& ew = m.encoder.weights;
  ModelWeights& dw = m.decoder.weights;
  const int src = ex.source_ids[2];
  const struct {
    const char* what;
    float* weight;
    float analytic;
  } probes[] = {
      {"source table (cat), only through c", &ew.tok_embed(src, 3), g->encoder.tok_embed(src, 3)},
      {"encoder layer 1 W_v", &ew.layers[1].attn.in_proj_w(20, 1), g->encoder.layers[1].attn.in_proj_w(20, 1)},
      {"encoder final norm", &ew.final_norm_w(3), g->encoder.final_norm_w(3)},
      {"decoder layer 0 W_k", &dw.layers[0].attn.in_proj_w(9, 3), g->decoder.layers[0].attn.in_proj_w(9, 3)},
      {"decoder layer 1 FFN", &dw.layers[1].ff1_w(3, 5), g->decoder.layers[1].ff1_w(3, 5)},
      {"output", &dw.output_w(ex.target_ids[0], 0), g->decoder.output_w(ex.target_ids[0], 0)},
  };
  for (const auto& p : probes) {
    const std::string what = p.what;
    CAPTURE(what);
    const double numeric = numeric_grad(m, *p.weight, ex);
    CHECK(std::abs(numeric) > 1e-5);
    CHECK(std::abs(numeric - p.analytic) <= 1e-4 + 1e-2 * std::abs(numeric));
  }
  auto back = translate_from_tensors(translate_to_tensors(m));
  REQUIRE_MESSAGE(back, back.error());
  CHECK(back->arch.bottleneck);
  auto f2 = translate_forward(*back, ex.source_ids, {kTranslateBos, ex.target_ids[0]});
  REQUIRE(f2);
  CHECK((f->logits - f2->logits).cwiseAbs().maxCoeff() == 0.0f);
  // Scores have no heads to align.
  const TranslateScores s = translate_score(m, {ex.pair});
  CHECK(s.counted[0] == 1);
  CHECK(s.content_aligned.empty());
}

}  // namespace
}  // namespace attnviz
