// A model is a config plus weights. This file holds the config side: architecture sizes, the
// per-head scoring function, masks, and their validation and JSON form. Nothing here allocates
// weights or computes attention.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "text/token_limit.h"

namespace attnviz {

enum class Activation { relu, gelu, gelu_tanh, silu };
enum class NormPlacement { post, pre };           // post: 2017 paper, BERT. pre: GPT, ViT, Llama.
enum class NormKind { layer_norm, rms_norm };     // rms_norm: x / sqrt(mean(x^2) + eps) * w, no bias (Llama)
// rotary: no vector is added to the embeddings; each head's queries and keys are rotated by their
// position instead (RoFormer; Llama, Mistral, Qwen2, GPT-NeoX), see RopeConfig.
enum class PositionEncoding { sinusoidal, learned, none, rotary };
enum class ScoreKind { scaled_dot, dot, general, additive };
// How rotary frequencies are stretched for long contexts (transformers' rope_scaling "rope_type";
// `divisors`: each pair's frequency divided by its own number, as llama.cpp applies a GGUF file's
// rope_freqs tensor, which is how its converter stores Llama 3.1's scaling).
enum class RopeScaling { none, linear, llama3, divisors };

// Rotary position embedding, as transformers computes it: the first `dims` = floor(HS * fraction)
// dimensions of every query and key head are rotated in pairs (d, d + dims/2) by position ·
// inv_freq[d], inv_freq[d] = 1 / theta^(2d / dims), then stretched by the scaling.
struct RopeConfig {
  float theta = 10000.0f;
  float fraction = 1.0f;        // GPT-NeoX's rotary_pct: the share of each head's dimensions rotated
  RopeScaling scaling = RopeScaling::none;
  float factor = 1.0f;          // linear: inv_freq / factor; llama3: the long-wavelength divisor
  float low_freq_factor = 1.0f, high_freq_factor = 4.0f;  // llama3's band edges
  int original_max_positions = 8192;                      // llama3's original context length
  std::vector<float> divisors;  // divisors: one per rotated pair (dims / 2), each > 0
  bool operator==(const RopeConfig&) const = default;
};

struct ModelConfig {
  int d_model = 512;      // C
  int n_heads = 8;        // NH; C % NH must be 0, HS = C / NH (unless head_dim says otherwise)
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
  // The model families after GPT-2 / BERT (all off for the sandbox unless chosen):
  int n_kv_heads = 0;       // NKV: grouped-query attention, NH / NKV query heads share each key/value
                            // head (Llama 2 70B, Llama 3, Mistral, Qwen2); 0: NKV = NH
  NormKind norm_kind = NormKind::layer_norm;  // every norm of the model (RMSNorm weights only: biases are 0)
  bool gated_ffn = false;         // SwiGLU: FFN(x) = W2 (act(W_gate x) * (W1 x)), no biases (Llama)
  bool parallel_residual = false; // x + SA(LN1(x)) + FFN(LN2(x)) in one step (GPT-NeoX, Pythia)
  int sliding_window = 0;         // >0: the model's own local window, each query sees its last
                                  // `sliding_window` keys, itself included (Mistral)
  int position_padding_idx = -1;  // >=0: learned positions start at row padding_idx + 1 and tokens
                                  // with id padding_idx take that row (RoBERTa)
  RopeConfig rope;                // positions == rotary
  // The families after Llama (Qwen3, Gemma 2 and 3; all off unless a loaded file says so):
  int head_dim = 0;               // >0: each head's width, independent of d_model (Qwen3, Gemma: NH·HS ≠ C,
                                  // so W_Q is (NH·HS, C) and W_O (C, NH·HS)); 0: C / NH
  bool qk_norm = false;           // each head's Q and K RMS-normalised over its HS dimensions (weights shared
                                  // by the heads) before the rotation (Qwen3, Gemma 3)
  float scaled_dot_scale = 0.0f;  // >0: scaled_dot multiplies by this instead of 1/√HS (Gemma 27B: 1/√(C/NH))
  float attn_softcap = 0.0f;      // >0: scaled scores become cap·tanh(score/cap) before the mask (Gemma 2)
  float logit_softcap = 0.0f;     // >0: the output head's logits become cap·tanh(logit/cap) (Gemma 2)
  float embed_multiplier = 1.0f;  // token embeddings are multiplied by it (Gemma: √C)
  bool sublayer_norm = false;     // pre-norm with each sublayer's output normalised by its own weights before
                                  // the residual add (Gemma 2/3: post_attention_norm, post_ffw_norm)
  int sliding_window_pattern = 0; // with sliding_window: 0, every layer slides; n >= 2, layer l slides when
                                  // l % n < n - 1 (llama.cpp's swa pattern: Gemma 2 n = 2, Gemma 3 n = 6)
                                  // and the others see every key
  float rope_local_theta = 0.0f;  // >0: the sliding layers rotate with this base and no scaling (Gemma 3)

  int head_size() const { return head_dim > 0 ? head_dim : n_heads > 0 ? d_model / n_heads : 0; }
  int q_dim() const { return n_heads * head_size(); }                  // width of Q and of the heads' concat
  int kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  int kv_dim() const { return kv_heads() * head_size(); }             // width of K and of V
  int kv_group(int h) const { return h / (n_heads / kv_heads()); }    // the key/value head of query head h
  int rotary_dims() const {  // floor, as GPT-NeoX's int(head_size * rotary_pct); even
    return positions == PositionEncoding::rotary ? (static_cast<int>(head_size() * rope.fraction) / 2) * 2 : 0;
  }
  ScoreKind score_of_head(int h) const {
    return head_scores.empty() ? score : head_scores[static_cast<size_t>(h)];
  }
};

// Hard limits that keep a typo from allocating the machine away; checked before any allocation.
inline constexpr int kMaxDModel = 8192;
inline constexpr int kMaxLayers = 96;
inline constexpr int kMaxFF = 65536;
inline constexpr int kMaxTypeVocab = 1024;
// τ outside this range either overflows the scores (tiny τ) or flattens every row (huge τ).
inline constexpr float kMinTemperature = 1e-3f;
inline constexpr float kMaxTemperature = 1e3f;

// The layers' parameters a config may have: what drawing or reading them into floats may allocate
// (a typo of a size is refused before it allocates the machine away).
inline constexpr int64_t kMaxLayerParams = int64_t{1} << 31;
// ...and what a model whose layers stay in their file's encoding may have (model/layer_source.h):
// its file holds them, so only a file of over 60 GB reaches this.
inline constexpr int64_t kMaxEncodedLayerParams = int64_t{1} << 35;
Status config_validate(const ModelConfig& config, int64_t max_layer_params = kMaxLayerParams);
inline constexpr int kMaxHeadDim = 1024;
// Whether layer l attends within the model's sliding window (sliding_window, sliding_window_pattern).
bool layer_slides(const ModelConfig& config, int l);
// The config layer l runs with: its own window (0 on the layers that see every key) and, on sliding
// layers of a model with rope_local_theta, that base without scaling. Equal to `config` for models
// whose layers are all alike.
ModelConfig config_of_layer(const ModelConfig& config, int l);
// Whether the layers differ in window or rotation (sliding_window_pattern): masks are then per layer.
bool layers_differ(const ModelConfig& config);
// Whether any head scores with `kind` (the model's score, or a per-head override).
bool config_uses(const ModelConfig& config, ScoreKind kind);

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
  friend bool operator==(const MaskSpec&, const MaskSpec&) = default;
};

Status mask_spec_validate(const MaskSpec& spec);

// Names as used by the CLI, JSON and safetensors metadata ("scaled_dot", "post", ...).
std::string_view name_of(Activation v);
std::string_view name_of(NormPlacement v);
std::string_view name_of(PositionEncoding v);
std::string_view name_of(ScoreKind v);
std::string_view name_of(NormKind v);
std::string_view name_of(RopeScaling v);
std::optional<Activation> activation_from_name(std::string_view s);
std::optional<NormPlacement> norm_from_name(std::string_view s);
std::optional<PositionEncoding> positions_from_name(std::string_view s);
std::optional<ScoreKind> score_from_name(std::string_view s);
std::optional<NormKind> norm_kind_from_name(std::string_view s);
std::optional<RopeScaling> rope_scaling_from_name(std::string_view s);

// Parses one --mask value: "causal", "window:R", "strided:S", "pad:N", "none".
Status mask_spec_add(MaskSpec& spec, std::string_view text);

nlohmann::json config_to_json(const ModelConfig& config);
// Missing keys keep their defaults; unknown keys or names, wrong types or an invalid result are
// errors, each message starting with `what` (the model file's metadata key, say).
Result<ModelConfig> config_from_json(const nlohmann::json& j, std::string_view what = "model config");
nlohmann::json mask_to_json(const MaskSpec& spec);
Result<MaskSpec> mask_from_json(const nlohmann::json& j);  // unknown keys are errors too

}  // namespace attnviz
