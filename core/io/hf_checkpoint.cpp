// config.json's family and the family table, then each family's own file (io/hf_gpt2_bert.cpp,
// io/hf_llama_neox.cpp) maps the config and the tensors. The helpers every family uses are here,
// with the keys every transformers config shares and the check that config.json holds no other.
#include "io/hf_checkpoint.h"

#include <iterator>

#include "io/hf_detail.h"
#include "base/json.h"
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

// The keys of transformers' PretrainedConfig (4.x) / PreTrainedConfig (5.x), which any config.json
// may carry whatever its family. A family's own table comes first, so a family that reads one of
// these (RoBERTa's pad_token_id, every family's tie_word_embeddings) says so there.
constexpr ConfigKey kSharedKeys[] = {
    // What the file is and where it came from.
    {"architectures", KeyUse::harmless},  // family_of reads it when model_type is absent
    {"model_type", KeyUse::harmless},     // family_of reads it
    {"transformers_version", KeyUse::harmless},
    {"_name_or_path", KeyUse::harmless},
    {"_commit_hash", KeyUse::harmless},
    {"_attn_implementation_autoset", KeyUse::harmless},  // eager / sdpa / flash: the same math
    // The stored dtype: attnviz reads the tensors' own dtypes and computes in float32.
    {"torch_dtype", KeyUse::harmless},
    {"dtype", KeyUse::harmless},  // transformers 5's name for it
    {"use_bfloat16", KeyUse::harmless},
    // Token ids: the tokenizer files say which ids are special.
    {"bos_token_id", KeyUse::harmless},
    {"eos_token_id", KeyUse::harmless},
    {"pad_token_id", KeyUse::harmless},
    {"sep_token_id", KeyUse::harmless},
    {"decoder_start_token_id", KeyUse::harmless},
    {"forced_bos_token_id", KeyUse::harmless},
    {"forced_eos_token_id", KeyUse::harmless},
    // Classification heads and tasks, which attnviz does not run.
    {"id2label", KeyUse::harmless},
    {"label2id", KeyUse::harmless},
    {"num_labels", KeyUse::harmless},
    {"_num_labels", KeyUse::harmless},
    {"finetuning_task", KeyUse::harmless},
    {"problem_type", KeyUse::harmless},
    {"task_specific_params", KeyUse::harmless},
    {"prefix", KeyUse::harmless},
    {"tokenizer_class", KeyUse::harmless},
    // What a forward returns, and training-time switches.
    {"return_dict", KeyUse::harmless},
    {"output_hidden_states", KeyUse::harmless},
    {"output_attentions", KeyUse::harmless},
    {"output_past", KeyUse::harmless},
    {"torchscript", KeyUse::harmless},
    {"tf_legacy_loss", KeyUse::harmless},
    {"xla_device", KeyUse::harmless},
    {"gradient_checkpointing", KeyUse::harmless},
    {"use_cache", KeyUse::harmless},
    {"initializer_range", KeyUse::harmless},        // how untrained weights would be drawn
    {"chunk_size_feed_forward", KeyUse::harmless},  // the FFN applied to chunks of rows: the same values
    // Generation defaults (sampling), not the model's numbers.
    {"max_length", KeyUse::harmless},
    {"min_length", KeyUse::harmless},
    {"do_sample", KeyUse::harmless},
    {"early_stopping", KeyUse::harmless},
    {"num_beams", KeyUse::harmless},
    {"num_beam_groups", KeyUse::harmless},
    {"diversity_penalty", KeyUse::harmless},
    {"temperature", KeyUse::harmless},
    {"top_k", KeyUse::harmless},
    {"top_p", KeyUse::harmless},
    {"typical_p", KeyUse::harmless},
    {"repetition_penalty", KeyUse::harmless},
    {"length_penalty", KeyUse::harmless},
    {"no_repeat_ngram_size", KeyUse::harmless},
    {"encoder_no_repeat_ngram_size", KeyUse::harmless},
    {"bad_words_ids", KeyUse::harmless},
    {"num_return_sequences", KeyUse::harmless},
    {"output_scores", KeyUse::harmless},
    {"return_dict_in_generate", KeyUse::harmless},
    {"remove_invalid_values", KeyUse::harmless},
    {"exponential_decay_length_penalty", KeyUse::harmless},
    {"suppress_tokens", KeyUse::harmless},
    {"begin_suppress_tokens", KeyUse::harmless},
    // Harmless only at their defaults.
    {"is_decoder", KeyUse::only, "false", "an encoder, its tokens attending both ways"},  // decoders: any
    {"is_encoder_decoder", KeyUse::only, "false", "one stack, not an encoder-decoder pair"},
    {"add_cross_attention", KeyUse::only, "false", "no cross-attention layers"},
    {"tie_encoder_decoder", KeyUse::only, "false", "one stack, not an encoder-decoder pair"},
    {"cross_attention_hidden_size", KeyUse::only, "null", "no cross-attention layers"},
    {"pruned_heads", KeyUse::only, "{}", "every layer keeps all its heads"},
    {"quantization_config", KeyUse::only, "null", "float weights, not quantized ones"},
    {"auto_map", KeyUse::only, "null", "the model code transformers ships, not custom code"},
};

const ConfigKey* key_in(ConfigKeys keys, std::string_view name) {
  for (const ConfigKey& k : keys)
    if (name == k.name) return &k;
  return nullptr;
}

const ConfigKey* key_of(const Family& f, std::string_view name) {
  for (const ConfigKeys keys : {f.keys, f.shared_keys, ConfigKeys(kSharedKeys)})
    if (const ConfigKey* k = key_in(keys, name)) return k;
  return nullptr;
}

}  // namespace

std::string shown(const json& v) {
  if (v.is_string()) return json_quote(v.get_ref<const std::string&>());
  std::string s = v.dump(-1, ' ', /*ensure_ascii=*/true);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

bool family_reads(const Family& family, std::string_view key) {
  const ConfigKey* k = key_of(family, key);
  return k && k->use == KeyUse::read;
}

Status config_keys_check(const json& j, const Family& family) {
  for (const auto& [key, value] : j.items()) {
    const ConfigKey* k = key_of(family, key);
    if (!k)
      return make_error("config.json: unknown key " + json_quote(key) + ": attnviz knows the keys of transformers' " +
                        family.config_class + " and refuses others, which might change the numbers");
    if (k->use != KeyUse::only || value.is_null()) continue;
    const json accepted = json::parse(k->value, nullptr, /*allow_exceptions=*/false);
    if (value == accepted) continue;
    return make_error("config.json: " + key + " " + shown(value) + " is not supported (attnviz supports only " +
                      shown(accepted) + ": " + k->means + ")");
  }
  return Ok{};
}

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
  if (Status s = hf::config_keys_check(j, **family); !s) return make_error(s.error());
  HfConfig out;
  out.family = (*family)->family;
  hf::ConfigReader r{j, {}, "config.json", *family};
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
