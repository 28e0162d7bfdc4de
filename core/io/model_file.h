// Models as safetensors files, with the tensor names of PyTorch's
// nn.TransformerEncoder(nn.TransformerEncoderLayer(...), L).state_dict() — so any PyTorch encoder
// saved with a few lines of Python opens here — plus tok_embed.weight, pos_embed.weight, norm.*,
// output.* (a trained model's projection to its vocabulary) and
// our scoring-function parameters. The config travels as JSON in the "__metadata__".
#pragma once
#include <optional>
#include <string>

#include "io/safetensors.h"
#include "model/model.h"

namespace attnviz {

inline constexpr const char* kConfigKey = "attnviz.config";  // metadata: config_to_json as a string
inline constexpr const char* kVocabKey = "attnviz.vocab";    // metadata: JSON list of token strings
// metadata: decimal seed of the hashed word vectors used when the model has no vocabulary; a file
// without it (e.g. a raw PyTorch state dict) uses kDefaultSeed.
inline constexpr const char* kSeedKey = "attnviz.seed";
inline constexpr uint64_t kDefaultSeed = 1;
// metadata: the name of the generator that drew the model's random weights (Model::generator), and
// draws the scoring parameters a file lacks; a file without it means kRngUnrecorded, as before.
inline constexpr const char* kGeneratorKey = "attnviz.generator";
// The tensor that makes a file without our config a PyTorch encoder's state dict.
inline constexpr const char* kRawEncoderProbe = "layers.0.self_attn.in_proj_weight";
// Parameters of the general/additive scoring functions that a plain PyTorch file lacks are drawn
// from this seed, so every scoring function can still be tried on a loaded model.
inline constexpr uint64_t kMissingScoreSeed = 0x5C0E;

// Reads the model's tensors. The config comes from the file's metadata; a file without it (a raw
// PyTorch state dict) takes d_model, layers and FFN width from the shapes and the rest — above all
// the number of heads, which no shape reveals — from `fallback`; a file without layers.0.linear1 is
// attention-only (d_ff 0). A missing tensor, a wrong shape or a non-finite value is an error naming
// the tensor. Tensors with other names are ignored, and so is metadata outside "attnviz."; an
// unknown key in the config or an unknown "attnviz." metadata key is an error naming it and the
// known ones. An attention-only model is saved without FFN and norm2 tensors.
Result<Model> model_from_tensors(const TensorFile& file, const std::optional<ModelConfig>& fallback);
TensorFile model_to_tensors(const Model& model);

Result<Model> model_load(const std::string& path, const std::optional<ModelConfig>& fallback);
Status model_save(const std::string& path, const Model& model);

}  // namespace attnviz
