// config.json's family and the family table, then each family's own file (io/hf_gpt2_bert.cpp,
// io/hf_llama_neox.cpp) maps the config and the tensors. The helpers every family uses are here.
#include "io/hf_checkpoint.h"

#include <iterator>

#include "io/hf_detail.h"
#include "io/json.h"
#include "io/model_file.h"

namespace attnviz {

namespace hf {

namespace {

// Hugging Face's activation names; "gelu_fast" and friends are other approximations, not supported.
std::optional<Activation> activation_from_hf(const std::string& name) {
  if (name == "gelu") return Activation::gelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::gelu_tanh;
  if (name == "relu") return Activation::relu;
  if (name == "silu" || name == "swish") return Activation::silu;
  return std::nullopt;
}

}  // namespace

Status read_activation(ConfigReader& r, const char* key, const char* fallback, Activation& out) {
  const std::string act = r.text(key, fallback);
  auto a = activation_from_hf(act);
  if (!a)
    return make_error(std::string("config.json: ") + key + " '" + act + "' is not supported (gelu, gelu_new, relu, silu)");
  out = *a;
  return Ok{};
}

void read_sizes(ConfigReader& r, ModelConfig& c, SizeKey d_model, SizeKey n_heads, SizeKey n_layers,
                SizeKey max_positions) {
  c.d_model = r.integer(d_model.name, d_model.fallback);
  c.n_heads = r.integer(n_heads.name, n_heads.fallback);
  c.n_layers = r.integer(n_layers.name, n_layers.fallback);
  c.max_positions = r.integer(max_positions.name, max_positions.fallback);
}

std::string prefix_for(const TensorFile& file, const std::string& probe, const std::string& prefixed) {
  return file.find(probe) ? "" : file.find(prefixed + probe) ? prefixed : "";
}

void layer_norm_from(TensorTaker& take, const std::string& name, int C, Vec& w, Vec& b) {
  take.vec(name + ".weight", C, w);
  take.vec(name + ".bias", C, b);
}

void linear_from(TensorTaker& take, const std::string& name, int out, int in, WeightMat& w, Vec& b) {
  take.mat(name + ".weight", out, in, w);
  take.vec(name + ".bias", out, b);
}

}  // namespace hf

namespace {

using hf::Family;
using hf::json;

const Family* const kFamilies[] = {&hf::family_gpt2(),  &hf::family_bert(),    &hf::family_roberta(),
                                   &hf::family_distilbert(), &hf::family_llama(), &hf::family_mistral(),
                                   &hf::family_qwen2(), &hf::family_gpt_neox()};

std::string family_names() {
  std::string out;
  for (const Family* f : kFamilies) out += (out.empty() ? "" : ", ") + std::string(f->model_type);
  return out;
}

const Family& spec_of(CheckpointFamily family) {
  for (const Family* f : kFamilies)
    if (f->family == family) return *f;
  return hf::family_gpt2();  // every enum value is in the table (a test checks it)
}

Result<const Family*> family_of(const json& j) {
  if (auto it = j.find("model_type"); it != j.end() && it->is_string()) {
    const auto& t = it->get_ref<const std::string&>();
    for (const Family* f : kFamilies)
      if (t == f->model_type) return f;
    return make_error("config.json: model_type '" + t + "' is not supported (attnviz opens " + family_names() + ")");
  }
  if (auto it = j.find("architectures"); it != j.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) {
        const auto& name = a.get_ref<const std::string&>();
        for (const Family* f : kFamilies)
          if (name.rfind(f->architecture_prefix, 0) == 0) return f;
      }
  return make_error("config.json names no model_type (expected one of " + family_names() + ")");
}

}  // namespace

std::string_view name_of(CheckpointFamily family) { return spec_of(family).model_type; }

Result<HfConfig> hf_config_parse(std::string_view config_json) {
  auto parsed = json_parse_strict(config_json, "config.json");
  if (!parsed) return make_error(parsed.error());
  const json& j = *parsed;
  if (!j.is_object()) return make_error("config.json is not a JSON object");
  auto family = family_of(j);
  if (!family) return make_error(family.error());
  HfConfig out;
  out.family = (*family)->family;
  hf::ConfigReader r{j, {}, "config.json"};
  Status filled = (*family)->fill(r, out);
  if (!r.error.empty()) return make_error(r.error);
  if (!filled) return make_error(filled.error());
  if (out.vocab_size < 1 || out.vocab_size > (1 << 22))
    return make_error("config.json: vocab_size must be between 1 and " + std::to_string(1 << 22));
  if (Status s = config_validate(out.config); !s) return make_error("config.json: " + s.error());
  return out;
}

Result<Model> hf_model_from_tensors(TensorFile file, const HfConfig& config, const std::function<void(float)>& progress) {
  const ModelConfig& c = config.config;
  const Family& family = spec_of(config.family);
  const std::string prefix = hf::prefix_for(file, family.probe, family.prefix);
  Model model;
  model.config = c;
  model.source = std::string(family.model_type) + " checkpoint";
  model.weights.layers.resize(static_cast<size_t>(c.n_layers));
  hf::TensorTaker take(file, prefix, progress, family.tensor_count(config, file));
  family.load(take, config, prefix, model.weights);
  if (!take.error().empty()) return make_error(take.error());
  // The general/additive scoring functions have no checkpoint weights: seeded random blocks, made
  // only when the config asks for one (model_ensure_score_parameters after a change of score).
  model_ensure_score_parameters(model, kMissingScoreSeed);
  return model;
}

}  // namespace attnviz
