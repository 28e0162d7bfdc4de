#include "demos/translate_file.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "io/model_file.h"

namespace attnviz {

namespace {

constexpr const char* kParts[] = {"encoder.", "decoder_self.", "decoder."};

nlohmann::json arch_to_json(const TranslateArch& a) {
  nlohmann::json j = {{"d_model", a.d_model},         {"n_heads", a.n_heads}, {"encoder_layers", a.encoder_layers},
                      {"decoder_layers", a.decoder_layers}, {"d_ff", a.d_ff},     {"max_positions", a.max_positions}};
  if (a.bottleneck) j["bottleneck"] = true;  // written only for that model: absent means cross-attention
  return j;
}

Result<TranslateArch> arch_from_json(const nlohmann::json& j) {
  const JsonKeys keys = {"d_model", "n_heads", "encoder_layers", "decoder_layers", "d_ff", "max_positions"};
  const JsonKeys all_keys = {"d_model", "n_heads", "encoder_layers", "decoder_layers", "d_ff", "max_positions", "bottleneck"};
  if (!j.is_object()) return make_error(std::string(kTranslateKey) + " must be a JSON object");
  TranslateArch a;
  for (const auto& [key, value] : j.items()) {
    if (std::find(all_keys.begin(), all_keys.end(), key) == all_keys.end())
      return make_error(std::string(kTranslateKey) + ": " + json_unknown_key(key, all_keys));
    if (key == "bottleneck") {
      if (!value.is_boolean()) return make_error(std::string(kTranslateKey) + ": bottleneck must be true or false");
      a.bottleneck = value.get<bool>();
    } else if (!value.is_number_integer()) {
      return make_error(std::string(kTranslateKey) + ": " + key + " must be a whole number");
    }
  }
  for (const auto& key : keys)
    if (!j.contains(key)) return make_error(std::string(kTranslateKey) + ": " + std::string(key) + " is missing");
  a.d_model = j["d_model"];
  a.n_heads = j["n_heads"];
  a.encoder_layers = j["encoder_layers"];
  a.decoder_layers = j["decoder_layers"];
  a.d_ff = j["d_ff"];
  a.max_positions = j["max_positions"];
  return a;
}

// The model that holds only the decoder's self-attention parts: no tables, positions or norms.
ModelConfig self_parts_config(const ModelConfig& decoder) {
  ModelConfig c = decoder_self_config(decoder);
  c.positions = PositionEncoding::none;
  c.final_norm = false;
  return c;
}

// The decoder's self parts and the rest, as the two models model_to_tensors writes.
std::pair<Model, Model> decoder_halves(const TranslateModel& m) {
  Model self, rest = m.decoder;
  self.config = self_parts_config(m.decoder.config);
  self.seed = m.decoder.seed;
  self.generator = m.decoder.generator;
  rest.weights.layers.clear();
  for (size_t i = 0; i < m.decoder.weights.layers.size(); ++i)
    (i % 2 == 0 ? self : rest).weights.layers.push_back(m.decoder.weights.layers[i]);
  return {std::move(self), std::move(rest)};
}

void add_part(TensorFile& f, const std::string& prefix, TensorFile part) {
  for (auto& [key, value] : part.metadata) f.metadata[prefix + key] = value;
  for (Tensor& t : part.tensors) {
    t.name = prefix + t.name;
    f.tensors.push_back(std::move(t));
  }
}

}  // namespace

TensorFile translate_to_tensors(const TranslateModel& m) {
  TensorFile f;
  f.metadata[kTranslateKey] = arch_to_json(m.arch).dump();  // the score and the norm are in each part's config
  add_part(f, kParts[0], model_to_tensors(m.encoder));
  if (m.arch.bottleneck) {  // its decoder's layers are whole causal layers: one model
    add_part(f, kParts[2], model_to_tensors(m.decoder));
    return f;
  }
  auto [self, rest] = decoder_halves(m);
  add_part(f, kParts[1], model_to_tensors(self));
  add_part(f, kParts[2], model_to_tensors(rest));
  return f;
}

Result<TranslateModel> translate_from_tensors(const TensorFile& f) {
  const auto arch_it = f.metadata.find(kTranslateKey);
  if (arch_it == f.metadata.end()) return make_error(std::string("not a translation model: no ") + kTranslateKey + " metadata");
  auto j = json_parse_strict(arch_it->second, kTranslateKey);
  if (!j) return make_error(j.error());
  auto arch = arch_from_json(*j);
  if (!arch) return make_error(arch.error());
  TensorFile parts[3];
  const auto part_of = [](const std::string& name) {
    for (int i = 0; i < 3; ++i)
      if (name.rfind(kParts[i], 0) == 0) return i;
    return -1;
  };
  for (const auto& [key, value] : f.metadata) {
    if (key == kTranslateKey) continue;
    const int p = part_of(key);
    if (p < 0) return make_error("translation model: metadata '" + key + "' is under none of encoder., decoder_self., decoder.");
    parts[p].metadata[key.substr(std::string(kParts[p]).size())] = value;
  }
  for (const Tensor& t : f.tensors) {
    const int p = part_of(t.name);
    if (p < 0) return make_error("translation model: tensor '" + t.name + "' is under none of encoder., decoder_self., decoder.");
    Tensor copy = t;
    copy.name = t.name.substr(std::string(kParts[p]).size());
    parts[p].tensors.push_back(std::move(copy));
  }
  if (arch->bottleneck && (!parts[1].tensors.empty() || !parts[1].metadata.empty()))
    return make_error("translation model: the bottleneck model has no decoder_self. part, yet the file holds one");
  Model models[3];
  for (int i = 0; i < 3; ++i) {
    if (i == 1 && arch->bottleneck) continue;
    auto m = model_from_tensors(parts[i], std::nullopt);
    if (!m) return make_error(std::string("translation model: ") + kParts[i] + " " + m.error());
    models[i] = std::move(*m);
  }
  TranslateModel out;
  out.arch = *arch;
  const ModelConfig enc = translate_config(*arch, arch->encoder_layers), dec = translate_config(*arch, arch->decoder_layers);
  const auto same = [](const ModelConfig& a, const ModelConfig& b) {
    return a.d_model == b.d_model && a.n_heads == b.n_heads && a.n_layers == b.n_layers && a.d_ff == b.d_ff &&
           a.max_positions == b.max_positions && a.norm == b.norm && a.final_norm == b.final_norm;
  };
  if (!same(models[0].config, enc)) return make_error("translation model: the encoder disagrees with " + std::string(kTranslateKey));
  if ((!arch->bottleneck && !same(models[1].config, self_parts_config(dec))) || !same(models[2].config, dec))
    return make_error("translation model: the decoder disagrees with " + std::string(kTranslateKey));
  // The three parts run as one model: each part's scoring function, temperature, activation and
  // norm must be the encoder's (a file that disagrees is refused, naming both values).
  for (int i = 1; i < 3; ++i) {
    if (i == 1 && arch->bottleneck) continue;
    const ModelConfig& a = models[0].config;
    const ModelConfig& b = models[i].config;
    const auto differs = [&](const char* what, const std::string& mine, const std::string& theirs) {
      const std::string part(kParts[i], std::string_view(kParts[i]).size() - 1);  // "decoder_self." -> "decoder_self"
      return make_error("translation model: the " + part + " part's " + what + " (" + theirs +
                        ") disagrees with the encoder's (" + mine + ")");
    };
    if (b.score != a.score) return differs("scoring function", std::string(name_of(a.score)), std::string(name_of(b.score)));
    if (b.temperature != a.temperature) return differs("temperature", std::to_string(a.temperature), std::to_string(b.temperature));
    if (b.activation != a.activation)
      return differs("activation", std::string(name_of(a.activation)), std::string(name_of(b.activation)));
    if (b.ln_eps != a.ln_eps) return differs("LayerNorm epsilon", std::to_string(a.ln_eps), std::to_string(b.ln_eps));
  }
  out.arch.score = models[0].config.score;
  out.arch.norm = models[0].config.norm;
  out.encoder = std::move(models[0]);
  out.decoder = std::move(models[2]);
  std::vector<LayerWeights> cross = std::move(out.decoder.weights.layers);
  out.decoder.weights.layers.clear();
  if (arch->bottleneck) out.decoder.weights.layers = std::move(cross);
  for (int l = 0; !arch->bottleneck && l < arch->decoder_layers; ++l) {
    out.decoder.weights.layers.push_back(std::move(models[1].weights.layers[static_cast<size_t>(l)]));
    out.decoder.weights.layers.push_back(std::move(cross[static_cast<size_t>(l)]));
  }
  if (out.encoder.vocab != translate_source_vocabulary() || out.decoder.vocab != translate_target_vocabulary())
    return make_error("translation model: its vocabularies are not this grammar's (data/translation_lexicon.tsv)");
  return out;
}

Status translate_save(const std::string& path, const TranslateModel& model) { return safetensors_write(path, translate_to_tensors(model)); }

Result<TranslateModel> translate_load(const std::string& path) {
  auto file = safetensors_read(path);
  if (!file) return make_error(file.error());
  auto model = translate_from_tensors(*file);
  if (!model) return make_error("'" + path + "': " + model.error());
  model->encoder.source = model->decoder.source = path;
  return model;
}

}  // namespace attnviz
