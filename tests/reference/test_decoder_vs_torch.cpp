// The encoder-decoder's decoder layer against PyTorch, number for number: tests/fixtures/torch/
// decoder_*.safetensors were written by tests/fixtures/make_decoder_fixtures.py from
// nn.TransformerDecoder (two layers, causal self-attention, cross-attention to a memory of another
// length), post- and pre-norm, read onto the decoder layer's two parts. Every head's self- and
// cross-attention weights, each block's output and each layer's output agree to 1e-5.
#include <nlohmann/json.hpp>

#include "model/decoder_layer.h"
#include "model/mask.h"
#include "support/fixture_util.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

constexpr float kDecoderTol = 1e-5f;

AttentionWeights decoder_attention_of(const TensorFile& f, const std::string& prefix) {
  AttentionWeights a;
  a.in_proj_w = fixture_mat(f, prefix + ".in_proj_weight");
  a.in_proj_b = fixture_mat(f, prefix + ".in_proj_bias").reshaped();
  a.out_w = fixture_mat(f, prefix + ".out_proj.weight");
  a.out_b = fixture_mat(f, prefix + ".out_proj.bias").reshaped();
  return a;
}

Vec decoder_vec_of(const TensorFile& f, const std::string& name) { return fixture_mat(f, name).reshaped(); }

// PyTorch's names onto the two parts (model/decoder_layer.h): norm2 is the cross part's norm1,
// norm3 its norm2.
DecoderLayerWeights decoder_layer_of(const TensorFile& f, int l) {
  const std::string p = "layers." + std::to_string(l) + ".";
  DecoderLayerWeights w;
  w.self.attn = decoder_attention_of(f, p + "self_attn");
  w.self.norm1_w = decoder_vec_of(f, p + "norm1.weight");
  w.self.norm1_b = decoder_vec_of(f, p + "norm1.bias");
  w.cross.attn = decoder_attention_of(f, p + "multihead_attn");
  w.cross.norm1_w = decoder_vec_of(f, p + "norm2.weight");
  w.cross.norm1_b = decoder_vec_of(f, p + "norm2.bias");
  w.cross.ff1_w = fixture_mat(f, p + "linear1.weight");
  w.cross.ff1_b = decoder_vec_of(f, p + "linear1.bias");
  w.cross.ff2_w = fixture_mat(f, p + "linear2.weight");
  w.cross.ff2_b = decoder_vec_of(f, p + "linear2.bias");
  w.cross.norm2_w = decoder_vec_of(f, p + "norm3.weight");
  w.cross.norm2_b = decoder_vec_of(f, p + "norm3.bias");
  return w;
}

}  // namespace

TEST_CASE("torch reference: nn.TransformerDecoder, every head of both attentions and every layer, to 1e-5") {
  const auto files = fixture_files("decoder_");
  REQUIRE(files.size() == 3);
  for (const std::string& path : files) {
    CAPTURE(path);
    const TensorFile f = load_fixture(path);
    auto config = config_from_json(nlohmann::json::parse(f.metadata.at("attnviz.config")));
    REQUIRE_MESSAGE(config.ok(), config.error());
    const ModelConfig& c = *config;
    const Mat x0 = fixture_mat(f, "fixture.input"), memory = fixture_mat(f, "fixture.memory");
    const int T = static_cast<int>(x0.rows()), S = static_cast<int>(memory.rows());
    CHECK(T == std::stoi(f.metadata.at("fixture.target_len")));
    CHECK(S == std::stoi(f.metadata.at("fixture.memory_len")));
    MaskSpec causal;
    causal.causal = true;
    const Mat self_mask = mask_build(causal, T, T, T);
    const Mat cross_mask = Mat::Zero(T, S);
    Mat x = x0;
    for (int l = 0; l < c.n_layers; ++l) {
      CAPTURE(l);
      const std::string n = std::to_string(l);
      const DecoderLayerTrace t = decoder_layer_forward(decoder_layer_of(f, l), c, x, memory, self_mask, cross_mask);
      for (int h = 0; h < c.n_heads; ++h) {
        CAPTURE(h);
        CHECK(max_abs_diff(t.self.attn.heads[static_cast<size_t>(h)].weights_kept, fixture_slice(f, "fixture.self_weights." + n, h)) <
              kDecoderTol);
        CHECK(max_abs_diff(t.cross.attn.heads[static_cast<size_t>(h)].weights_kept, fixture_slice(f, "fixture.cross_weights." + n, h)) <
              kDecoderTol);
      }
      CHECK(max_abs_diff(t.self.attn.out, fixture_mat(f, "fixture.self_out." + n)) < kDecoderTol);
      CHECK(max_abs_diff(t.cross.attn.out, fixture_mat(f, "fixture.cross_out." + n)) < kDecoderTol);
      CHECK(max_abs_diff(t.out(), fixture_mat(f, "fixture.layer_out." + n)) < kDecoderTol);
      x = t.out();
    }
  }
}
