// Name mapping between Model and safetensors. Shape validation is shared with model_check, which
// runs on every loaded model before it is returned.
#include "io/model_file.h"

#include <charconv>
#include <deque>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "io/tensor_copies.h"

namespace attnviz {

namespace {

std::string layer_prefix(int i) { return "layers." + std::to_string(i) + "."; }

std::string metadata_label(const char* key) { return "the file's '" + std::string(key) + "' metadata"; }

// Collects the first lookup error so the loader reads as a flat list of assignments.
struct TensorReader {
  explicit TensorReader(const TensorFile& f) : file(f) {}
  const TensorFile& file;
  std::string error;

  const Tensor* get(const std::string& name) {
    const Tensor* t = file.find(name);
    if (!t && error.empty()) error = "the file has no tensor '" + name + "'";
    return t;
  }
  // Conversions are planned while reading (destinations sized, shapes checked) and run together by
  // convert_all (tensor_copies_run: in parallel, the same values at any thread count).
  std::vector<TensorCopy> copies;
  std::vector<std::string> copy_names;
  std::deque<Tensor> reshaped;  // small re-shaped copies (scoring blocks); a deque keeps them in place

  void plan(TensorCopy copy, const std::string& name) {
    copies.push_back(copy);
    copy_names.push_back(name);
  }
  // Converts every planned tensor, checking finiteness on the way (no second pass over the
  // weights); returns the first tensor, in reading order, with a NaN or an infinity ("" if none).
  std::string convert_all() {
    const std::vector<char> finite = tensor_copies_run(copies);
    for (size_t i = 0; i < copies.size(); ++i)
      if (!finite[i]) return copy_names[i];
    return "";
  }

  void mat(const std::string& name, WeightMat& out) {
    if (const Tensor* t = get(name); t && error.empty()) {
      if (Status s = tensor_check_mat(*t); !s) {
        error = s.error();
        return;
      }
      plan(weight_plan(*t, t->shape.size() == 2 ? t->shape[0] : 1, t->shape.back(), false, out), name);
    }
  }
  void vec(const std::string& name, Vec& out) {
    if (const Tensor* t = get(name); t && error.empty()) {
      if (Status s = tensor_check_vec(*t); !s) {
        error = s.error();
        return;
      }
      out.resize(t->shape[0]);
      plan(TensorCopy{t, out.data()}, name);
    }
  }
  // Scoring parameters: (NH, HS, HS) stored, (NH*HS, HS) in memory; optional.
  bool optional_blocks(const std::string& name, WeightMat& out) {
    const Tensor* t = file.find(name);
    if (!t) return false;
    if (t->shape.size() != 3) {
      error = "tensor '" + name + "' must have 3 dimensions (heads, head size, head size)";
      return false;
    }
    // An empty tensor may carry huge dimensions ([2^32, 2^32, 0] is valid): refuse before multiplying.
    if (t->shape[0] > kMaxDModel || t->shape[1] > kMaxDModel) {
      error = "tensor '" + name + "' has more heads or a larger head size than any model here";
      return false;
    }
    Tensor& stacked = reshaped.emplace_back(*t);  // small: one (HS, HS) block per head
    stacked.shape = {t->shape[0] * t->shape[1], t->shape[2]};
    if (Status s = tensor_check_mat(stacked); !s) {
      error = s.error();
      return false;
    }
    plan(weight_plan(stacked, stacked.shape[0], stacked.shape[1], false, out), name);
    return true;
  }
  // Tensors that only make sense together (the additive scoring function's three): a file with
  // some of them is refused rather than completed with random values.
  void all_or_none(std::initializer_list<std::string> names) {
    const std::string* present = nullptr;
    const std::string* missing = nullptr;
    for (const std::string& n : names) (file.find(n) ? present : missing) = &n;
    if (present && missing && error.empty())
      error = "the file has tensor '" + *present + "' but not '" + *missing + "', which goes with it";
  }
  bool optional_mat(const std::string& name, WeightMat& out) {
    if (!file.find(name)) return false;
    mat(name, out);
    return true;
  }
};

Result<ModelConfig> config_for_file(const TensorFile& file, const std::optional<ModelConfig>& fallback) {
  if (auto it = file.metadata.find(kConfigKey); it != file.metadata.end()) {
    auto j = json_parse_strict(it->second, metadata_label(kConfigKey));
    if (!j) return make_error(j.error());
    return config_from_json(*j, kConfigKey);
  }
  if (!fallback)
    return make_error("the file has no attnviz config in its metadata; give the number of heads (and norm placement, "
                      "activation) on the command line");
  ModelConfig c = *fallback;
  // What the shapes reveal overrides the fallback.
  const Tensor* in = file.find(kRawEncoderProbe);
  const Tensor* ff = file.find("layers.0.linear1.weight");
  if (!in || in->shape.size() != 2) return make_error("the file has no tensor '" + std::string(kRawEncoderProbe) + "'");
  c.d_model = static_cast<int>(in->shape[1]);
  // No linear1 at all: an attention-only model (nn.TransformerEncoderLayer always has one).
  c.d_ff = ff && ff->shape.size() == 2 ? static_cast<int>(ff->shape[0]) : 0;
  c.n_layers = 0;
  while (file.find(layer_prefix(c.n_layers) + "self_attn.in_proj_weight")) ++c.n_layers;
  c.positions = file.find("pos_embed.weight") ? PositionEncoding::learned : c.positions;
  if (const Tensor* pe = file.find("pos_embed.weight"); pe && !pe->shape.empty())
    c.max_positions = static_cast<int>(pe->shape[0]);
  c.final_norm = file.find("norm.weight") != nullptr;
  if (Status s = config_validate(c); !s) return make_error(s.error());
  return c;
}

}  // namespace

Result<Model> model_from_tensors(const TensorFile& file, const std::optional<ModelConfig>& fallback) {
  // Other tools' metadata ("format": "pt", ...) is theirs; a key in our namespace that we do not
  // read is a typo whose meaning would be lost.
  for (const auto& [key, value] : file.metadata)
    if (key.rfind("attnviz.", 0) == 0 && key != kConfigKey && key != kVocabKey && key != kSeedKey &&
        key != kGeneratorKey)
      return make_error("the file's metadata: " +
                        json_unknown_key(key, {kConfigKey, kVocabKey, kSeedKey, kGeneratorKey}));
  auto config = config_for_file(file, fallback);
  if (!config) return make_error(config.error());
  // Every weight comes from the file; none is drawn only to be overwritten. The scoring functions'
  // parameters are optional in a file and are drawn below only if the config uses them.
  Model model;
  model.config = *config;
  model.weights.layers.resize(static_cast<size_t>(config->n_layers));
  model.source = "file";
  model.seed = kDefaultSeed;
  if (auto it = file.metadata.find(kSeedKey); it != file.metadata.end()) {
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), model.seed);
    if (ec != std::errc() || end != text.data() + text.size())
      return make_error(metadata_label(kSeedKey) + " is not a whole number");
  }
  model.generator = kRngUnrecorded;
  if (auto it = file.metadata.find(kGeneratorKey); it != file.metadata.end()) {
    auto g = rng_generator_from_name(it->second);
    if (!g) return make_error(metadata_label(kGeneratorKey) + ": " + g.error());
    model.generator = *g;
  }
  TensorReader r(file);
  for (int i = 0; i < config->n_layers; ++i) {
    const std::string p = layer_prefix(i);
    LayerWeights& L = model.weights.layers[static_cast<size_t>(i)];
    r.mat(p + "self_attn.in_proj_weight", L.attn.in_proj_w);
    r.vec(p + "self_attn.in_proj_bias", L.attn.in_proj_b);
    r.mat(p + "self_attn.out_proj.weight", L.attn.out_w);
    r.vec(p + "self_attn.out_proj.bias", L.attn.out_b);
    r.optional_blocks(p + "self_attn.score_general.w", L.attn.general_w);
    r.optional_blocks(p + "self_attn.score_additive.w_q", L.attn.additive_wq);
    r.optional_blocks(p + "self_attn.score_additive.w_k", L.attn.additive_wk);
    r.optional_mat(p + "self_attn.score_additive.v", L.attn.additive_v);
    r.all_or_none({p + "self_attn.score_additive.w_q", p + "self_attn.score_additive.w_k", p + "self_attn.score_additive.v"});
    r.vec(p + "norm1.weight", L.norm1_w);
    r.vec(p + "norm1.bias", L.norm1_b);
    if (config->d_ff == 0) continue;  // attention only: no FFN or norm2 tensors to read
    if (config->gated_ffn) r.mat(p + "gate.weight", L.ff_gate_w);
    r.mat(p + "linear1.weight", L.ff1_w);
    r.vec(p + "linear1.bias", L.ff1_b);
    r.mat(p + "linear2.weight", L.ff2_w);
    r.vec(p + "linear2.bias", L.ff2_b);
    r.vec(p + "norm2.weight", L.norm2_w);
    r.vec(p + "norm2.bias", L.norm2_b);
  }
  if (config->positions == PositionEncoding::learned) r.mat("pos_embed.weight", model.weights.pos_embed);
  if (config->type_vocab > 0) r.mat("type_embed.weight", model.weights.type_embed);
  if (config->embed_norm) {
    r.vec("embed_norm.weight", model.weights.embed_norm_w);
    r.vec("embed_norm.bias", model.weights.embed_norm_b);
  }
  if (config->final_norm) {
    r.vec("norm.weight", model.weights.final_norm_w);
    r.vec("norm.bias", model.weights.final_norm_b);
  }
  if (r.optional_mat("output.weight", model.weights.output_w)) r.vec("output.bias", model.weights.output_b);
  if (r.optional_mat("tok_embed.weight", model.weights.tok_embed)) {
    auto it = file.metadata.find(kVocabKey);
    if (it == file.metadata.end())
      return make_error("the file has 'tok_embed.weight' but no vocabulary ('" + std::string(kVocabKey) + "' metadata)");
    auto j = json_parse_strict(it->second, metadata_label(kVocabKey));
    if (!j) return make_error(j.error());
    if (!j->is_array()) return make_error("the vocabulary metadata must be a JSON list of strings");
    for (const auto& e : *j) {
      if (!e.is_string()) return make_error("the vocabulary metadata must be a JSON list of strings");
      model.vocab.push_back(e.get<std::string>());
    }
  }
  if (!r.error.empty()) return make_error(r.error);
  const std::string non_finite = r.convert_all();
  model_ensure_score_parameters(model, kMissingScoreSeed);
  // Finiteness was checked while converting; what is left is the shapes against the config.
  if (Status s = model_check_shapes(model); !s) return make_error(s.error());
  if (!non_finite.empty()) return make_error("tensor '" + non_finite + "' contains NaN or infinite values");
  return model;
}

TensorFile model_to_tensors(const Model& model) {
  const ModelConfig& c = model.config;
  TensorFile f;
  f.metadata[kConfigKey] = config_to_json(c).dump();
  f.metadata[kSeedKey] = std::to_string(model.seed);
  f.metadata[kGeneratorKey] = std::string(rng_generator_name(model.generator));
  auto blocks = [&](std::string name, MatRef stacked) {
    Tensor t = tensor_from_mat(std::move(name), stacked);
    t.shape = {c.n_heads, c.head_size(), c.head_size()};
    return t;
  };
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = layer_prefix(i);
    const LayerWeights& L = model.weights.layers[static_cast<size_t>(i)];
    f.tensors.push_back(tensor_from_mat(p + "self_attn.in_proj_weight", L.attn.in_proj_w));
    f.tensors.push_back(tensor_from_vec(p + "self_attn.in_proj_bias", L.attn.in_proj_b));
    f.tensors.push_back(tensor_from_mat(p + "self_attn.out_proj.weight", L.attn.out_w));
    f.tensors.push_back(tensor_from_vec(p + "self_attn.out_proj.bias", L.attn.out_b));
    // The scoring functions' parameters, when the model has them (a loaded file's model makes
    // them only for a scoring function it uses).
    if (L.attn.general_w.size() > 0) f.tensors.push_back(blocks(p + "self_attn.score_general.w", L.attn.general_w));
    if (L.attn.additive_v.size() > 0) {
      f.tensors.push_back(blocks(p + "self_attn.score_additive.w_q", L.attn.additive_wq));
      f.tensors.push_back(blocks(p + "self_attn.score_additive.w_k", L.attn.additive_wk));
      f.tensors.push_back(tensor_from_mat(p + "self_attn.score_additive.v", L.attn.additive_v));
    }
    f.tensors.push_back(tensor_from_vec(p + "norm1.weight", L.norm1_w));
    f.tensors.push_back(tensor_from_vec(p + "norm1.bias", L.norm1_b));
    if (c.d_ff == 0) continue;  // attention only: the FFN and norm2 are absent, not zero-size tensors
    if (c.gated_ffn) f.tensors.push_back(tensor_from_mat(p + "gate.weight", L.ff_gate_w));
    f.tensors.push_back(tensor_from_mat(p + "linear1.weight", L.ff1_w));
    f.tensors.push_back(tensor_from_vec(p + "linear1.bias", L.ff1_b));
    f.tensors.push_back(tensor_from_mat(p + "linear2.weight", L.ff2_w));
    f.tensors.push_back(tensor_from_vec(p + "linear2.bias", L.ff2_b));
    f.tensors.push_back(tensor_from_vec(p + "norm2.weight", L.norm2_w));
    f.tensors.push_back(tensor_from_vec(p + "norm2.bias", L.norm2_b));
  }
  if (c.positions == PositionEncoding::learned) f.tensors.push_back(tensor_from_mat("pos_embed.weight", model.weights.pos_embed));
  if (c.type_vocab > 0) f.tensors.push_back(tensor_from_mat("type_embed.weight", model.weights.type_embed));
  if (c.embed_norm) {
    f.tensors.push_back(tensor_from_vec("embed_norm.weight", model.weights.embed_norm_w));
    f.tensors.push_back(tensor_from_vec("embed_norm.bias", model.weights.embed_norm_b));
  }
  if (c.final_norm) {
    f.tensors.push_back(tensor_from_vec("norm.weight", model.weights.final_norm_w));
    f.tensors.push_back(tensor_from_vec("norm.bias", model.weights.final_norm_b));
  }
  if (model.weights.output_w.size() > 0) {
    f.tensors.push_back(tensor_from_mat("output.weight", model.weights.output_w));
    f.tensors.push_back(tensor_from_vec("output.bias", model.weights.output_b));
  }
  if (model.weights.tok_embed.rows() > 0) {
    f.tensors.push_back(tensor_from_mat("tok_embed.weight", model.weights.tok_embed));
    f.metadata[kVocabKey] = nlohmann::json(model.vocab).dump();
  }
  return f;
}

Result<Model> model_load(const std::string& path, const std::optional<ModelConfig>& fallback) {
  auto file = safetensors_read(path);
  if (!file) return make_error(file.error());
  auto model = model_from_tensors(*file, fallback);
  if (!model) return make_error("'" + path + "': " + model.error());
  model->source = path;
  return model;
}

Status model_save(const std::string& path, const Model& model) {
  if (model.tokenizer)
    return make_error("this model has its own " + std::string(model.tokenizer->kind_name()) +
                      " tokenizer, which an attnviz model file cannot hold: keep using its checkpoint folder");
  return safetensors_write(path, model_to_tensors(model));
}

}  // namespace attnviz
