// The whole translation encoder-decoder against PyTorch: tests/fixtures/translate/model.safetensors
// (a small model `attnviz-cli train translate` wrote: d_model 16, 2 heads, encoder 2 layers, decoder
// 1, pre-norm) run by tests/fixtures/make_translate_reference.py through nn.TransformerEncoderLayer
// and nn.TransformerDecoderLayer on two sentences: the memory, every head of the encoder, of the
// decoder's self- and cross-attention, the logits, the loss, the gradient of nine tensors, and
// greedy decoding token for token.
#include <cmath>

#include "demos/translate_file.h"
#include "support/fixture_util.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

constexpr float kTranslateTol = 1e-5f;

std::vector<int> ids_of(const TensorFile& f, const std::string& name) {
  const Mat m = fixture_mat(f, name);
  std::vector<int> ids;
  for (Eigen::Index i = 0; i < m.size(); ++i) ids.push_back(static_cast<int>(std::lround(m.data()[i])));
  return ids;
}

// The gradient our trainer computes, by the fixture's name.
Mat grad_of(const TranslateLossGrads& g, const std::string& name) {
  if (name == "encoder.layers.0.self_attn.in_proj_weight") return Mat(g.encoder.layers[0].attn.in_proj_w);
  if (name == "encoder.tok_embed.weight") return Mat(g.encoder.tok_embed);
  if (name == "encoder.pos_embed.weight") return Mat(g.encoder.pos_embed);
  if (name == "decoder_self.layers.0.self_attn.in_proj_weight") return Mat(g.decoder.layers[0].attn.in_proj_w);
  if (name == "decoder.layers.0.self_attn.in_proj_weight") return Mat(g.decoder.layers[1].attn.in_proj_w);
  if (name == "decoder.layers.0.linear1.weight") return Mat(g.decoder.layers[1].ff1_w);
  if (name == "decoder.norm.weight") return g.decoder.final_norm_w;
  if (name == "decoder.output.weight") return Mat(g.decoder.output_w);
  if (name == "decoder.tok_embed.weight") return Mat(g.decoder.tok_embed);
  FAIL("no gradient named " << name);
  return {};
}

}  // namespace

TEST_CASE("torch reference: the translation encoder-decoder, forward, loss, gradient and greedy decoding") {
  auto model = translate_load(fixture_path("translate/model.safetensors"));
  REQUIRE_MESSAGE(model, model.error());
  const TensorFile ref = load_fixture(fixture_path("translate/reference.safetensors"));
  for (int k = 0; k < 2; ++k) {
    CAPTURE(k);
    const std::string p = "ref." + std::to_string(k) + ".";
    const std::vector<int> source = ids_of(ref, p + "source_ids"), input = ids_of(ref, p + "decoder_input");
    auto f = translate_forward(*model, source, input);
    REQUIRE_MESSAGE(f, f.error());
    CHECK(max_abs_diff(f->memory, fixture_mat(ref, p + "memory")) < kTranslateTol);
    CHECK(max_abs_diff(f->logits, fixture_mat(ref, p + "logits")) < kTranslateTol);
    for (int h = 0; h < 2; ++h) {
      CAPTURE(h);
      for (int l = 0; l < 2; ++l)
        CHECK(max_abs_diff(f->encoder[static_cast<size_t>(l)].attn.heads[static_cast<size_t>(h)].weights_kept,
                           fixture_slice(ref, p + "encoder_weights." + std::to_string(l), h)) < kTranslateTol);
      CHECK(max_abs_diff(f->decoder[0].self.attn.heads[static_cast<size_t>(h)].weights_kept, fixture_slice(ref, p + "self_weights", h)) <
            kTranslateTol);
      CHECK(max_abs_diff(f->decoder[0].cross.attn.heads[static_cast<size_t>(h)].weights_kept, fixture_slice(ref, p + "cross_weights", h)) <
            kTranslateTol);
    }
    TranslateExample ex;
    ex.source_ids = source;
    ex.target_ids.assign(input.begin() + 1, input.end());
    auto g = translate_loss_grads(*model, ex);
    REQUIRE_MESSAGE(g, g.error());
    CHECK(std::abs(g->loss - fixture_mat(ref, p + "loss")(0, 0)) < kTranslateTol);
    if (k == 0)
      for (const Tensor& t : ref.tensors) {
        if (t.name.rfind("grad.", 0) != 0) continue;
        CAPTURE(t.name);
        const Mat expected = fixture_mat(ref, t.name);
        const Mat ours = grad_of(*g, t.name.substr(5));
        CHECK(max_abs_diff(ours.reshaped(expected.rows(), expected.cols()), expected) < kTranslateTol);
      }
    auto greedy = translate_greedy(*model, source, 20);
    REQUIRE(greedy);
    CHECK(*greedy == ids_of(ref, p + "greedy"));
  }
}
