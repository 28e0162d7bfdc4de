// Path dispatch for model_open, and the Hugging Face folder loader with its progress stages:
// config and tokenizer 0-5%, converting and checking the (memory-mapped) weights 5-95%.
#include "io/model_open.h"

#include <filesystem>

#include "base/file_io.h"
#include "io/gguf_model.h"
#include "io/hf_checkpoint.h"
#include "io/hf_tokenizer_files.h"
#include "io/local_models.h"
#include "io/model_file.h"
#include "io/safetensors.h"

namespace attnviz {

namespace {

namespace fs = std::filesystem;

bool is_dir(const fs::path& p) { return path_is_folder(p.string()); }

void report(const OpenProgress& progress, float fraction) {
  if (progress) progress(fraction);
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// hf_config_parse's messages name the file "config.json" ("config.json is not valid JSON",
// "config.json: 'n_head' must be ..."); here it has a path, which takes that name's place.
std::string config_json_error(const fs::path& dir, const std::string& message) {
  constexpr std::string_view kName = "config.json";
  const std::string path = "'" + (dir / kName).string() + "'";
  if (message.rfind(kName, 0) == 0) return path + message.substr(kName.size());
  return path + ": " + message;
}

// A .safetensors that is none of what open_file reads, said with what it looked for; `folder` is
// the folder the user gave, when the file is that folder's model.safetensors.
std::string neither_model_error(const fs::path& path, const fs::path& dir, bool folder) {
  const std::string not_ours = "neither an attnviz model file (no '" + std::string(kConfigKey) +
                               "' metadata) nor a PyTorch nn.TransformerEncoder state dict (no tensor '" +
                               std::string(kRawEncoderProbe) + "')";
  if (folder)
    return "'" + dir.string() + "' has no config.json (a Hugging Face checkpoint), and its " +
           path.filename().string() + " is " + not_ours;
  return "'" + path.string() + "' is " + not_ours + ", and its folder has no config.json (a Hugging Face checkpoint)";
}

// The weights of a checkpoint folder: one file, or the sharded index.
Result<fs::path> weights_in(const fs::path& dir) {
  if (path_is_file(dir / "model.safetensors")) return dir / "model.safetensors";
  if (path_is_file(dir / "model.safetensors.index.json")) return dir / "model.safetensors.index.json";
  if (path_is_file(dir / "pytorch_model.bin"))
    return make_error("'" + dir.string() + "' has only pytorch_model.bin: attnviz reads safetensors checkpoints "
                      "(a pickle file can run code when loaded); convert it to model.safetensors");
  return make_error("'" + dir.string() + "' has config.json but no model.safetensors or model.safetensors.index.json");
}

// Mapped, not read: each tensor is converted straight into its matrix by hf_model_from_tensors,
// or with MappedValues::in_place, where it can be, read from the mapping by its matrix.
Result<TensorFile> map_weights(const fs::path& weights, MappedValues use) {
  return ends_with(weights.string(), ".index.json") ? safetensors_read_sharded(weights.string(), true, use)
                                                    : safetensors_map(weights.string(), use);
}

// A Hugging Face folder whose weights are `weights` (already read into `file` when given).
Result<Model> open_checkpoint(const fs::path& dir, const fs::path& weights, std::optional<TensorFile> file,
                              const OpenProgress& progress, MappedValues use) {
  auto config_text = file_read_bytes((dir / "config.json").string(), uint64_t{1} << 24);
  if (!config_text) return make_error(config_text.error());
  auto hf = hf_config_parse(std::string(config_text->begin(), config_text->end()));
  if (!hf) return make_error(config_json_error(dir, hf.error()));
  // The tokenizer first: it is small, and a folder without one should fail before reading 500 MB.
  auto tokenizer = hf_tokenizer_load(dir.string(), hf->family);
  if (!tokenizer) return make_error(tokenizer.error());
  report(progress, 0.05f);
  if (!file) {
    auto mapped = map_weights(weights, use);
    if (!mapped) return make_error(mapped.error());
    file = std::move(*mapped);
  }
  auto model = hf_model_from_tensors(std::move(*file), *hf, [&](float f) { report(progress, 0.05f + 0.9f * f); });
  if (!model) return make_error("'" + weights.string() + "': " + model.error());
  model->tokenizer = *tokenizer;
  if (model->weights.tok_embed.rows() < (*tokenizer)->vocab_size())
    return make_error("'" + dir.string() + "': the tokenizer has " + std::to_string((*tokenizer)->vocab_size()) +
                      " pieces but config.json's vocab_size is " + std::to_string(model->weights.tok_embed.rows()));
  if (Status s = model_check_shapes(*model); !s) return make_error("'" + dir.string() + "': " + s.error());
  report(progress, 1.0f);
  return model;
}

// A GGUF file (llama.cpp, Ollama, LM Studio): mapped, its tensors decoded into the model.
Result<Model> open_gguf(const fs::path& path, const OpenProgress& progress, int layers_kept) {
  auto mapped = gguf_map(path.string());
  if (!mapped) return make_error(mapped.error());
  report(progress, 0.02f);
  GgufOpen how;
  how.layers_kept = layers_kept;
  auto model = gguf_model_from_file(std::make_shared<const GgufMapped>(std::move(*mapped)), how,
                                    [&](float f) { report(progress, 0.02f + 0.98f * f); });
  if (!model) return make_error("'" + path.string() + "': " + model.error());
  report(progress, 1.0f);
  return model;
}

// A .safetensors file: ours when its metadata carries our config, a checkpoint when config.json
// sits beside it, a raw PyTorch encoder when it has an encoder's tensors, otherwise an error.
// `folder`: the user gave the folder holding it.
Result<Model> open_file(const fs::path& path, const std::optional<ModelConfig>& fallback, const OpenProgress& progress,
                        MappedValues use, bool folder = false) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (ends_with(path.filename().string(), ".index.json")) {
    if (!path_is_file(dir / "config.json"))
      return make_error("'" + path.string() + "' is a sharded index but its folder has no config.json");
    return open_checkpoint(dir, path, std::nullopt, progress, use);
  }
  auto file = safetensors_map(path.string(), use);
  if (!file) return make_error(file.error());
  if (!file->metadata.contains(kConfigKey)) {
    if (path_is_file(dir / "config.json")) return open_checkpoint(dir, path, std::move(*file), progress, use);
    // A checkpoint's weights without their config.json would otherwise be read as an encoder and
    // fail on its first missing tensor, which says nothing about what is really missing.
    if (!file->find(kRawEncoderProbe)) return make_error(neither_model_error(path, dir, folder));
  }
  auto model = model_from_tensors(*file, fallback);
  if (!model) return make_error("'" + path.string() + "': " + model.error());
  report(progress, 1.0f);
  return model;
}

}  // namespace

Result<Model> model_open(const std::string& path, const std::optional<ModelConfig>& fallback,
                         const OpenProgress& progress, MappedValues weights, int gguf_layers_kept) {
  if (path.rfind(kOllamaPrefix, 0) == 0) {  // an Ollama model by its name: its weights' blob
    auto blob = ollama_model_path(LocalModelPlaces::from_environment().ollama, path.substr(kOllamaPrefix.size()));
    if (!blob) return make_error(blob.error());
    auto model = open_gguf(*blob, progress, gguf_layers_kept);
    if (!model) return make_error(path + ": " + model.error());
    model->source = path;
    return model;
  }
  const fs::path p(path);
  Result<Model> model = make_error("");
  if (is_dir(p)) {
    if (path_is_file(p / "config.json")) {
      auto weights_file = weights_in(p);
      if (!weights_file) return make_error(weights_file.error());
      model = open_checkpoint(p, *weights_file, std::nullopt, progress, weights);
    } else if (path_is_file(p / "model.safetensors")) {
      model = open_file(p / "model.safetensors", fallback, progress, weights, /*folder=*/true);
    } else {
      return make_error(
          "'" + path +
          "' has neither config.json (a Hugging Face checkpoint) nor model.safetensors (an attnviz model)");
    }
  } else if (path_is_file(p)) {
    model = gguf_magic(file_read_prefix(path, 4)) ? open_gguf(p, progress, gguf_layers_kept)
                                                   : open_file(p, fallback, progress, weights);
  } else {
    std::error_code ec;
    if (fs::exists(p, ec)) return make_error("'" + path + "' is not a model file or folder");
    return make_error("'" + path + "' does not exist");
  }
  if (model && gguf_layers_kept >= 0 && !model->layer_source)
    return make_error("'" + path + "' is not a GGUF file: only a GGUF file's layers are kept decoded or not");
  if (model) model->source = path;
  return model;
}

std::string model_summary(const Model& model) {
  const ModelConfig& c = model.config;
  std::string s = std::to_string(c.n_layers) + " layers, " + std::to_string(c.n_heads) + " heads, d_model " +
                  std::to_string(c.d_model);
  if (model.tokenizer)
    s += ", " + std::string(model.tokenizer->kind_name()) + " " + std::to_string(model.tokenizer->vocab_size()) +
         " pieces";
  else if (!model.vocab.empty())
    s += ", " + std::to_string(model.vocab.size()) + " words";
  if (!model.stored_as.empty()) s += ", " + model.stored_as;
  return s;
}

}  // namespace attnviz
