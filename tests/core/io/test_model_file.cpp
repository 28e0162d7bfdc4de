// Models through safetensors: exact round trip, PyTorch state-dict files without our metadata,
// and clear errors for missing tensors, wrong shapes and non-finite values.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "io/model_file.h"
#include "io/model_open.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::max_abs_diff;
using attnviz::test::TempFile;

namespace {
ModelConfig small() { return attnviz::test::gpt_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 40}, 16); }

// small() with random weights and a five-word vocabulary ("on" and "mat" are not in it).
Model small_with_words() {
  Model m = model_init_random(small(), 77);
  m.weights.tok_embed = Mat::Random(5, 32);
  m.vocab = {"[UNK]", "the", "cat", "sat", "."};
  return m;
}

Result<Trace> sentence_trace(const Model& m) {
  TraceInput in;
  in.text = "the cat sat on the mat .";
  return trace_run(m, in);
}

}  // namespace

TEST_CASE("model io: save then load gives the same weights bit for bit and the same trace") {
  const Model m = small_with_words();
  const TempFile path("attnviz_model_io.safetensors");
  REQUIRE(model_save(path, m).ok());
  auto back = model_load(path, std::nullopt);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->config.norm == NormPlacement::pre);
  CHECK(back->config.final_norm);
  CHECK(back->vocab == m.vocab);
  CHECK(back->weights.layers[1].attn.in_proj_w == m.weights.layers[1].attn.in_proj_w);
  CHECK(back->weights.layers[1].attn.additive_wq == m.weights.layers[1].attn.additive_wq);
  CHECK(back->weights.pos_embed == m.weights.pos_embed);
  auto a = sentence_trace(m);
  auto b = sentence_trace(*back);
  REQUIRE((a.ok() && b.ok()));
  CHECK(max_abs_diff(a->final, b->final) == 0.0f);
  CHECK_FALSE(a->queries[3].in_vocab);  // "on" is not in the vocabulary: [UNK]
  CHECK(a->queries[1].in_vocab);
}

TEST_CASE("model io: opened in place, F32 weights are read from the file with the same bits and the same trace") {
  const Model m = small_with_words();
  const TempFile path("attnviz_model_in_place.safetensors");
  REQUIRE(model_save(path, m).ok());
  auto copied = model_open(path);
  auto in_place = model_open(path, std::nullopt, {}, MappedValues::in_place);
  REQUIRE_MESSAGE(copied.ok(), copied.error());
  REQUIRE_MESSAGE(in_place.ok(), in_place.error());
  const LayerWeights& L = in_place->weights.layers[1];
  for (const WeightMat* w : std::initializer_list<const WeightMat*>{
           &L.attn.in_proj_w, &L.attn.out_w, &L.attn.general_w, &L.attn.additive_v, &L.ff1_w, &L.ff2_w,
           &in_place->weights.pos_embed, &in_place->weights.tok_embed})
    CHECK(w->is_in_place());
  CHECK_FALSE(copied->weights.layers[1].attn.in_proj_w.is_in_place());
  CHECK(L.attn.in_proj_w == m.weights.layers[1].attn.in_proj_w);
  CHECK(L.attn.general_w == m.weights.layers[1].attn.general_w);  // (heads, hs, hs) read as (heads*hs, hs)
  CHECK(L.ff2_w == m.weights.layers[1].ff2_w);
  CHECK(in_place->weights.tok_embed == m.weights.tok_embed);

  // The file's mapping lives as long as the model: nothing else holds it any more.
  auto a = sentence_trace(m);
  auto b = sentence_trace(*in_place);
  REQUIRE((a.ok() && b.ok()));
  CHECK(max_abs_diff(a->final, b->final) == 0.0f);

  // Writing to a weight read in place changes this model only, never the file.
  Model edited = std::move(*in_place);
  edited.weights.layers[0].ff1_w(0, 0) += 1.0f;
  CHECK(edited.weights.layers[0].ff1_w.is_in_place());
  auto reopened = model_open(path);
  REQUIRE(reopened.ok());
  CHECK(reopened->weights.layers[0].ff1_w(0, 0) == m.weights.layers[0].ff1_w(0, 0));
  CHECK(edited.weights.layers[0].ff1_w(0, 0) == m.weights.layers[0].ff1_w(0, 0) + 1.0f);

  // A copy of the model owns its weights and outlives the file's mapping.
  Model copy;
  {
    auto held = model_open(path, std::nullopt, {}, MappedValues::in_place);
    REQUIRE(held.ok());
    copy = *held;
  }
  CHECK_FALSE(copy.weights.layers[1].ff2_w.is_in_place());
  CHECK(copy.weights.layers[1].ff2_w == m.weights.layers[1].ff2_w);
}

TEST_CASE("model io: a NaN weight read in place is refused, naming the tensor") {
  const Model m = model_init_random(small(), 3);
  TensorFile nan = model_to_tensors(m);
  for (Tensor& t : nan.tensors)
    if (t.name == "layers.1.linear2.weight") t.data[7] = NAN;
  const TempFile path("attnviz_model_in_place_nan.safetensors");
  REQUIRE(safetensors_write(path, nan).ok());
  auto opened = model_open(path, std::nullopt, {}, MappedValues::in_place);
  REQUIRE_FALSE(opened.ok());
  CHECK(opened.error().find("'layers.1.linear2.weight' contains NaN") != std::string::npos);
}

TEST_CASE("model io: a plain PyTorch state dict (no metadata) loads with the heads given by the user") {
  const Model m = model_init_random(small(), 3);
  TensorFile f = model_to_tensors(m);
  f.metadata.clear();
  std::erase_if(f.tensors, [](const Tensor& t) { return t.name.find("score_") != std::string::npos; });
  auto no_heads = model_from_tensors(f, std::nullopt);
  REQUIRE_FALSE(no_heads.ok());
  CHECK(no_heads.error().find("number of heads") != std::string::npos);
  ModelConfig fallback;
  fallback.n_heads = 4;
  fallback.norm = NormPlacement::pre;
  fallback.activation = Activation::gelu;
  auto loaded = model_from_tensors(f, fallback);
  REQUIRE_MESSAGE(loaded.ok(), loaded.error());
  CHECK(loaded->config.d_model == 32);
  CHECK(loaded->config.n_layers == 2);
  CHECK(loaded->config.d_ff == 40);
  CHECK(loaded->config.positions == PositionEncoding::learned);
  CHECK(loaded->config.max_positions == 16);
  CHECK(loaded->weights.layers[0].ff2_w == m.weights.layers[0].ff2_w);
}

TEST_CASE("model io: missing tensors, wrong shapes and NaN weights name the tensor") {
  const Model m = model_init_random(small(), 3);
  TensorFile missing = model_to_tensors(m);
  std::erase_if(missing.tensors, [](const Tensor& t) { return t.name == "layers.1.norm2.bias"; });
  auto a = model_from_tensors(missing, std::nullopt);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().find("'layers.1.norm2.bias'") != std::string::npos);

  TensorFile wrong = model_to_tensors(m);
  for (Tensor& t : wrong.tensors)
    if (t.name == "layers.0.linear1.weight") t.shape = {20, 64};
  auto b = model_from_tensors(wrong, std::nullopt);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().find("layers.0.linear1.weight") != std::string::npos);

  TensorFile nan = model_to_tensors(m);
  for (Tensor& t : nan.tensors)
    if (t.name == "layers.0.self_attn.out_proj.weight") t.data[5] = NAN;
  auto c = model_from_tensors(nan, std::nullopt);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().find("out_proj.weight") != std::string::npos);
  CHECK(c.error().find("NaN") != std::string::npos);

  TensorFile bad_meta = model_to_tensors(m);
  bad_meta.metadata[kConfigKey] = "{\"d_model\": 32, \"n_heads\": 5}";
  auto d = model_from_tensors(bad_meta, std::nullopt);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().find("divisible") != std::string::npos);

  // The metadata strings are JSON from the file: read strictly, refused with the key they came from.
  bad_meta.metadata[kConfigKey] = "{\"d_model\": 32, \"d_model\": 64}";
  CHECK(model_from_tensors(bad_meta, std::nullopt).error() ==
        "the file's 'attnviz.config' metadata has duplicate key 'd_model'");
  bad_meta.metadata[kConfigKey] = "{";
  CHECK(model_from_tensors(bad_meta, std::nullopt).error() == "the file's 'attnviz.config' metadata is not valid JSON");
}

TEST_CASE("model io: an unknown config key or attnviz metadata key is an error naming it and the known ones") {
  // As PyTorch's save_file writes it: our config by hand, "heads" for "n_heads", beside its own "format".
  const Model m = model_init_random(small(), 3);
  TensorFile f = model_to_tensors(m);
  f.metadata["format"] = "pt";
  f.metadata[kConfigKey] = R"({"d_model": 32, "heads": 4, "n_layers": 2, "d_ff": 40, "norm": "pre"})";
  const TempFile path("attnviz_model_io_typo.safetensors");
  REQUIRE(safetensors_write(path, f).ok());
  const std::string known =
      "d_model, n_heads, n_layers, d_ff, activation, norm, positions, ln_eps, score, temperature, max_positions, "
      "final_norm, causal, embed_norm, type_vocab, n_kv_heads, norm_kind, gated_ffn, parallel_residual, sliding_window, "
      "position_padding_idx, rope, head_scores, head_dim, qk_norm, scaled_dot_scale, attn_softcap, logit_softcap, "
      "embed_multiplier, sublayer_norm, sliding_window_pattern, rope_local_theta";
  CHECK(model_load(path, std::nullopt).error() ==
        "'" + path.path() + "': attnviz.config: unknown key 'heads' (known: " + known + ")");
  // The CLI's fallback config does not fill in for the typo either.
  CHECK_FALSE(model_load(path, ModelConfig{}).ok());

  TensorFile seed = model_to_tensors(m);
  seed.metadata["attnviz.sed"] = "5";
  CHECK(model_from_tensors(seed, std::nullopt).error() ==
        "the file's metadata: unknown key 'attnviz.sed' (known: attnviz.config, attnviz.vocab, attnviz.seed, "
        "attnviz.generator)");
  // Other tools' metadata is theirs to define.
  TensorFile other = model_to_tensors(m);
  other.metadata["format"] = "pt";
  other.metadata["fixture.case"] = "anything";
  CHECK(model_from_tensors(other, std::nullopt).ok());
}

TEST_CASE("model io: an attention-only model (d_ff 0) round-trips without FFN or norm2 tensors") {
  ModelConfig c = small();
  c.d_ff = 0;
  Model m = model_init_random(c, 5);
  m.weights.tok_embed = Mat::Random(4, 32);
  m.vocab = {"t0", "t1", "t2", "t3"};
  const TensorFile f = model_to_tensors(m);
  for (const Tensor& t : f.tensors) {
    CAPTURE(t.name);
    CHECK(t.name.find("linear") == std::string::npos);
    CHECK(t.name.find("norm2") == std::string::npos);
  }
  CHECK(f.find("layers.1.norm1.weight") != nullptr);
  const TempFile path("attnviz_model_io_attn_only.safetensors");
  REQUIRE(model_save(path, m).ok());
  auto back = model_load(path, std::nullopt);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->config.d_ff == 0);
  CHECK(back->weights.layers[0].ff1_w.size() == 0);
  CHECK(back->weights.layers[1].norm2_w.size() == 0);
  CHECK(back->weights.layers[1].attn.out_w == m.weights.layers[1].attn.out_w);
  TraceInput in;
  in.text = "t0 t1 t2 t3 t1";
  in.mask.causal = true;
  auto a = trace_run(m, in);
  auto b = trace_run(*back, in);
  REQUIRE((a.ok() && b.ok()));
  CHECK(max_abs_diff(a->final, b->final) == 0.0f);
  CHECK(a->layers[1].ffn_out.size() == 0);

  // Without our metadata, a state dict with no linear1 is read as attention-only.
  TensorFile plain = f;
  plain.metadata.clear();
  std::erase_if(plain.tensors, [](const Tensor& t) { return t.name == "tok_embed.weight"; });
  ModelConfig fallback;
  fallback.n_heads = 4;
  fallback.norm = NormPlacement::pre;
  auto loaded = model_from_tensors(plain, fallback);
  REQUIRE_MESSAGE(loaded.ok(), loaded.error());
  CHECK(loaded->config.d_ff == 0);
  CHECK(loaded->config.n_layers == 2);

  // An FFN tensor in an attention-only model is refused by the shape check, by name.
  Model extra = m;
  extra.weights.layers[0].ff1_w = Mat::Zero(4, 32);
  const Status s = model_check(extra);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().find("layers.0.linear1.weight") != std::string::npos);
}

TEST_CASE("model io: a file without scoring parameters draws them only for a scoring function it uses") {
  const Model m = model_init_random(small(), 3);
  TensorFile f = model_to_tensors(m);
  std::erase_if(f.tensors, [](const Tensor& t) { return t.name.find("score_") != std::string::npos; });
  auto plain = model_from_tensors(f, std::nullopt);
  REQUIRE_MESSAGE(plain.ok(), plain.error());
  // Scaled dot-product: nothing drawn, nothing written back.
  CHECK(plain->weights.layers[0].attn.general_w.size() == 0);
  CHECK(plain->weights.layers[1].attn.additive_v.size() == 0);
  CHECK(model_to_tensors(*plain).tensors.size() == f.tensors.size());
  // A model that scores "additive": the three additive tensors of every layer, seeded by name.
  Model additive = *plain;
  additive.config.score = ScoreKind::additive;
  CHECK_FALSE(model_check_shapes(additive).ok());  // the forward would refuse it...
  model_ensure_score_parameters(additive, kMissingScoreSeed);  // ...until they are made
  REQUIRE(model_check(additive).ok());
  CHECK(additive.weights.layers[1].attn.additive_wq.rows() == 4 * 8);
  CHECK(additive.weights.layers[1].attn.general_w.size() == 0);
  const Model reference = model_init_random(small(), kMissingScoreSeed);
  CHECK(additive.weights.layers[1].attn.additive_wk == reference.weights.layers[1].attn.additive_wk);
  TraceInput in;
  in.text = "the cat sat";
  CHECK(trace_run(additive, in).ok());
  // Its config in the file says additive: loading draws them, from the same streams.
  auto from_additive_file = model_from_tensors(model_to_tensors(additive), std::nullopt);
  REQUIRE(from_additive_file.ok());
  CHECK(from_additive_file->weights.layers[0].attn.additive_v == additive.weights.layers[0].attn.additive_v);
}

TEST_CASE("model io: the generator travels with the seed; a file without it means the first one") {
  const Model m = model_init_random(small(), 3);
  const TensorFile f = model_to_tensors(m);
  CHECK(f.metadata.at(kGeneratorKey) == "philox4x32-10");
  auto back = model_from_tensors(f, std::nullopt);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->generator == RngGenerator::philox4x32_10);

  // A file from before: no generator named. Scoring parameters it lacks are drawn as they were then.
  TensorFile old = f;
  old.metadata.erase(kGeneratorKey);
  std::erase_if(old.tensors, [](const Tensor& t) { return t.name.find("score_") != std::string::npos; });
  auto read = model_from_tensors(old, std::nullopt);
  REQUIRE_MESSAGE(read.ok(), read.error());
  CHECK(read->generator == RngGenerator::polar_splitmix64);
  Model general = *read;
  general.config.score = ScoreKind::general;
  model_ensure_score_parameters(general, kMissingScoreSeed);
  const Model then = model_init_random(small(), kMissingScoreSeed, RngGenerator::polar_splitmix64);
  CHECK(general.weights.layers[1].attn.general_w == then.weights.layers[1].attn.general_w);
  // Saved again, the file names the generator it was read with.
  CHECK(model_to_tensors(*read).metadata.at(kGeneratorKey) == "polar-splitmix64");
  // A raw PyTorch state dict has no metadata at all: the same.
  TensorFile plain = old;
  plain.metadata.clear();
  ModelConfig fallback;
  fallback.n_heads = 4;
  auto raw = model_from_tensors(plain, fallback);
  REQUIRE_MESSAGE(raw.ok(), raw.error());
  CHECK(raw->generator == RngGenerator::polar_splitmix64);

  TensorFile unknown = f;
  unknown.metadata[kGeneratorKey] = "mt19937";
  CHECK(model_from_tensors(unknown, std::nullopt).error() ==
        "the file's 'attnviz.generator' metadata: unknown random generator 'mt19937' (known: polar-splitmix64, "
        "philox4x32-10)");
}

TEST_CASE("model io: a file with only some of the additive scoring tensors is refused, naming them") {
  TensorFile f = model_to_tensors(model_init_random(small(), 3));
  std::erase_if(f.tensors, [](const Tensor& t) { return t.name == "layers.1.self_attn.score_additive.v"; });
  auto loaded = model_from_tensors(f, std::nullopt);
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().find("layers.1.self_attn.score_additive.v") != std::string::npos);
}

TEST_CASE("model init: a model grown from an earlier one equals a fresh one bit for bit") {
  const ModelConfig base = small();
  const Model earlier = model_init_random(base, 11);
  auto same = [](const Model& a, const Model& b) {
    const TensorFile fa = model_to_tensors(a), fb = model_to_tensors(b);
    if (fa.tensors.size() != fb.tensors.size()) return false;
    for (size_t i = 0; i < fa.tensors.size(); ++i)
      if (fa.tensors[i].name != fb.tensors[i].name || fa.tensors[i].data != fb.tensors[i].data) return false;
    return true;
  };
  ModelConfig more = base;
  more.n_layers = 4;
  CHECK(same(model_init_random_from(more, 11, earlier), model_init_random(more, 11)));
  ModelConfig fewer = base;
  fewer.n_layers = 1;
  CHECK(same(model_init_random_from(fewer, 11, earlier), model_init_random(fewer, 11)));
  ModelConfig heads = base;
  heads.n_heads = 8;  // W_q/W_k/W_v keep their shape; the per-head scoring blocks do not
  CHECK(same(model_init_random_from(heads, 11, earlier), model_init_random(heads, 11)));
  ModelConfig wider = base;
  wider.d_model = 48;
  CHECK(same(model_init_random_from(wider, 11, earlier), model_init_random(wider, 11)));
  CHECK(same(model_init_random_from(base, 12, earlier), model_init_random(base, 12)));  // another seed
}

TEST_CASE("model io: a Llama-shaped model (grouped key/value heads, SwiGLU gate, rotary) round-trips") {
  const Model m = model_init_random(attnviz::test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 40}, 2), 5);
  const TempFile path("attnviz_model_io_llama.safetensors");
  REQUIRE(model_save(path, m).ok());
  auto back = model_load(path, std::nullopt);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->config.kv_heads() == 2);
  CHECK(back->config.positions == PositionEncoding::rotary);
  CHECK(back->weights.layers[1].ff_gate_w == m.weights.layers[1].ff_gate_w);
  CHECK(back->weights.layers[1].attn.in_proj_w.rows() == 32 + 2 * 16);
  TraceInput in;
  in.text = "the cat sat on the mat";
  auto a = trace_run(m, in);
  auto b = trace_run(*back, in);
  REQUIRE((a.ok() && b.ok()));
  CHECK(max_abs_diff(a->final, b->final) == 0.0f);
}
