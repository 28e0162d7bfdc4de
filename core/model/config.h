// A model is a config plus weights. This file holds the config side: architecture sizes, the
// per-head scoring function, masks, and their validation and JSON form. Nothing here allocates
// weights or computes attention.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace attnviz {

enum class Activation { relu, gelu, gelu_tanh };
enum class NormPlacement { post, pre };           // post: 2017 paper, BERT. pre: GPT, ViT.
enum class PositionEncoding { sinusoidal, learned, none };
enum class ScoreKind { scaled_dot, dot, general, additive };

struct ModelConfig {
  int d_model = 512;      // C
  int n_heads = 8;        // NH; C % NH must be 0, HS = C / NH
  int n_layers = 1;       // L
  int d_ff = 2048;        // F; 0: attention-only layers (no feed-forward block, no norm2)
  Activation activation = Activation::relu;
  NormPlacement norm = NormPlacement::post;
  PositionEncoding positions = PositionEncoding::sinusoidal;
  float ln_eps = 1e-5f;
  ScoreKind score = ScoreKind::scaled_dot;  // every head's scoring function...
  std::vector<ScoreKind> head_scores;       // ...unless overridden per head (empty or NH long)
  float temperature = 1.0f;                 // τ: scores are divided by it before softmax
  int max_positions = 1024;                 // rows of a learned position table
  bool final_norm = false;                  // a LayerNorm after the last layer (GPT's ln_f)
  // What loaded checkpoints bring (all off for the sandbox):
  bool causal = false;      // the model itself is causal (GPT): every trace adds the causal mask
  bool embed_norm = false;  // a LayerNorm on the embeddings before the first layer (BERT)
  int type_vocab = 0;       // >0: segment (token type) embeddings for sentence pairs (BERT: 2)

  int head_size() const { return n_heads > 0 ? d_model / n_heads : 0; }
  ScoreKind score_of_head(int h) const {
    return head_scores.empty() ? score : head_scores[static_cast<size_t>(h)];
  }
};

// Hard limits that keep a typo from allocating the machine away; checked before any allocation.
inline constexpr int kMaxDModel = 8192;
inline constexpr int kMaxLayers = 96;
inline constexpr int kMaxFF = 65536;
inline constexpr int kMaxTokens = 4096;
inline constexpr int kMaxTypeVocab = 1024;
// τ outside this range either overflows the scores (tiny τ) or flattens every row (huge τ).
inline constexpr float kMinTemperature = 1e-3f;
inline constexpr float kMaxTemperature = 1e3f;

Status config_validate(const ModelConfig& config);

// Masks combine: a key is visible to a query only if every active mask allows it.
struct MaskSpec {
  bool causal = false;    // key j > query i hidden
  int pad_to = 0;         // >0: pad the sentence with [PAD] to this many tokens; pad keys hidden
  int window = -1;        // >=0: |i - j| > window hidden
  int stride = 0;         // >0: visible when |i - j| < stride or (i - j) mod stride == 0
  std::vector<std::pair<int, int>> hidden_cells;  // custom: (query, key) cells switched off

  bool any() const {
    return causal || pad_to > 0 || window >= 0 || stride > 0 || !hidden_cells.empty();
  }
};

Status mask_spec_validate(const MaskSpec& spec);

// Names as used by the CLI, JSON and safetensors metadata ("scaled_dot", "post", ...).
std::string_view name_of(Activation v);
std::string_view name_of(NormPlacement v);
std::string_view name_of(PositionEncoding v);
std::string_view name_of(ScoreKind v);
std::optional<Activation> activation_from_name(std::string_view s);
std::optional<NormPlacement> norm_from_name(std::string_view s);
std::optional<PositionEncoding> positions_from_name(std::string_view s);
std::optional<ScoreKind> score_from_name(std::string_view s);

// Parses one --mask value: "causal", "window:R", "strided:S", "pad:N", "none".
Status mask_spec_add(MaskSpec& spec, std::string_view text);

nlohmann::json config_to_json(const ModelConfig& config);
// Missing keys keep their defaults; unknown names, wrong types or an invalid result are errors.
Result<ModelConfig> config_from_json(const nlohmann::json& j);
nlohmann::json mask_to_json(const MaskSpec& spec);
Result<MaskSpec> mask_from_json(const nlohmann::json& j);

}  // namespace attnviz
