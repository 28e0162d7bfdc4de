// A model is a config plus weights (plus an optional vocabulary). One struct serves the sandbox
// model (random weights from a seed), the trained demos and loaded checkpoints. This file holds
// the weight layout, random initialisation and shape checks; the forward pass is in trace.h.
// Weight matrices are WeightMat: the model's own values, or a file's read in place (model_open
// with MappedValues::in_place); either way they read and write like a Mat.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/rng.h"
#include "base/tensor.h"
#include "base/weight_matrix.h"
#include "model/config.h"
#include "model/vocab_table.h"
#include "text/subword_tokenizer.h"

namespace attnviz {

// QD = NH·HS, the width of the heads side by side: C unless config.head_dim says otherwise.
struct AttentionWeights {
  WeightMat in_proj_w;  // (QD + 2·NKV·HS, C) rows: W_q (QD), then W_k, then W_v (NKV·HS each; 3C without
                        // grouped key/value heads, PyTorch's in_proj_weight)
  Vec in_proj_b;        // (QD + 2·NKV·HS); zeros for models without these biases (Llama)
  WeightMat out_w;      // (C, QD) W_O
  Vec out_b;            // (C)
  Vec q_norm_w, k_norm_w;  // (HS) with config.qk_norm: the RMSNorm of every head's Q and K; empty otherwise
  // Parameters of the other scoring functions, one (HS, HS) block per head stacked by head.
  WeightMat general_w;    // (NH*HS, HS) Luong "general": score = qᵀ W_a k
  WeightMat additive_wq;  // (NH*HS, HS) Bahdanau: score = vᵀ tanh(W_q q + W_k k)
  WeightMat additive_wk;  // (NH*HS, HS)
  WeightMat additive_v;   // (NH, HS)
};

// With d_ff == 0 (attention only) the FFN tensors and norm2 are empty: the layer has none.
struct LayerWeights {
  AttentionWeights attn;
  WeightMat ff_gate_w;   // (F, C) the gate of a gated FFN (SwiGLU's gate_proj); empty otherwise
  WeightMat ff1_w;       // (F, C) linear1 (SwiGLU's up_proj)
  Vec ff1_b;             // (F)
  WeightMat ff2_w;       // (C, F) linear2
  Vec ff2_b;             // (C)
  Vec norm1_w, norm1_b;  // (C) around attention (RMSNorm: the bias is zeros, unused)
  Vec norm2_w, norm2_b;  // (C) around the FFN
  // With config.sublayer_norm (Gemma 2/3): the RMSNorms of the attention's and the FFN's outputs
  // before each residual add; empty otherwise.
  Vec attn_out_norm_w, ffn_out_norm_w;  // (C)
};

struct ModelWeights {
  std::vector<LayerWeights> layers;  // L
  WeightMat tok_embed;               // (V, C); empty: words are embedded by hash (sandbox)
  WeightMat pos_embed;               // (P, C) for learned positions; empty otherwise
  WeightMat type_embed;              // (config.type_vocab, C) segment embeddings (BERT); empty otherwise
  Vec embed_norm_w, embed_norm_b;    // (C) when config.embed_norm
  Vec final_norm_w, final_norm_b;    // (C) when config.final_norm
  WeightMat output_w;                // (V, C) output projection to the vocabulary (trained models); may be empty
  Vec output_b;                      // (V) its bias; for a BERT masked-LM head, the decoder's bias
  // BERT's masked-LM head (cls.predictions.transform): dense, GELU, LayerNorm, then the decoder
  // tied to tok_embed. Empty when the checkpoint has none.
  WeightMat mlm_dense_w;                    // (C, C)
  Vec mlm_dense_b, mlm_norm_w, mlm_norm_b;  // (C)
  // A GGUF file opened with its layers on demand keeps its token table and output head in the
  // file's encoding (tok_embed / output_w then empty): read them through model/vocab_table.h.
  std::shared_ptr<const EncodedRows> tok_embed_encoded, output_w_encoded;
};

class LayerSource;

struct Model {
  ModelConfig config;
  ModelWeights weights;
  // Non-null: the layers' weights are kept in their file's encoding and decoded when needed
  // (model/layer_source.h; weights.layers are then empty). Read layers through model_layer.
  std::shared_ptr<const LayerSource> layer_source;
  std::vector<std::string> vocab;  // V entries when tok_embed is set and there is no tokenizer
  // A loaded checkpoint's own tokenizer (GPT-2 BPE, BERT WordPiece); tok_embed is indexed by its ids
  // and `vocab` stays empty. Null for word-level models (sandbox, demos).
  std::shared_ptr<const SubwordTokenizer> tokenizer;
  uint64_t seed = 0;               // hashed embeddings of the sandbox depend on it
  // What drew the random weights (model_init_random's, and the scoring parameters drawn for a file
  // that lacks them): a model read from a file that names none, or opened from a checkpoint, keeps
  // the first generator, as it drew them before there was a choice.
  RngGenerator generator = kRngUnrecorded;
  std::string source = "sandbox";  // where it came from, for the UI and JSON output
  // How a file stored the weights when that is worth saying: a GGUF file's tensor types by their share
  // of the weights' bytes ("GGUF: Q4_K 71%, Q6_K 27%, F32 2%"); empty otherwise.
  std::string stored_as;
  // Tensors of a vision encoder the file holds beside the language model (Ollama's Gemma 3): not read.
  int vision_tensors_unread = 0;
};

// Model::source of a model made here rather than opened (a file's source is its path): what it is,
// then its seed, "sandbox (seed 1)". Apps translate `what` by these names (the desktop's Korean).
inline constexpr std::string_view kSourceSandbox = "sandbox";
inline constexpr std::string_view kSourceCorefDemo = "demo: coreference";
inline constexpr std::string_view kSourceInductionDemo = "demo: induction heads";
inline constexpr std::string_view kSourceGatherDemo = "demo: several heads";
std::string made_source(std::string_view what, uint64_t seed);
// The seed of a made_source(what, seed) string; false for any other string.
bool made_source_seed(std::string_view source, std::string_view what, uint64_t& seed);

// How a model turns a final hidden state into scores over its vocabulary, if it can:
// linear   output_w · h + output_b (the trained demos)
// tied     tok_embed · h (GPT-2 ties its head to the token table)
// bert_mlm tok_embed · LN(GELU(mlm_dense · h)) + output_b (BERT's cls.predictions)
enum class OutputHead { none, linear, tied, bert_mlm };
OutputHead model_output_head(const Model& model);

// Random weights, Xavier-style normal scale, zero biases, unit LayerNorm: the sandbox model.
// Every tensor draws from its own stream seeded by (seed, tensor name), so the values are the
// same on any machine and do not shift when a tensor is added. The generator is recorded in the
// model; a session or file made before kRngNewest names kRngUnrecorded. The config must be valid.
Model model_init_random(const ModelConfig& config, uint64_t seed, RngGenerator generator = kRngNewest);
// The same model, but every tensor `earlier` already holds (same name, shape, seed and generator)
// is copied rather than drawn again: adding a layer, or changing what leaves the weights' shapes
// alone (norm placement, scoring function, heads), costs only the new tensors. `earlier` must
// itself be model_init_random's (of any config); with another seed or generator everything is drawn.
Model model_init_random_from(const ModelConfig& config, uint64_t seed, const Model& earlier,
                             RngGenerator generator = kRngNewest);

// Draws only the general/additive scoring parameters of every layer (same streams as
// model_init_random, with model.generator). The layers must already exist.
void model_init_score_parameters(Model& model, uint64_t seed);
// Draws the scoring parameters the config uses (a head scoring "general" or "additive") and the
// model lacks, nothing else, with model.generator: loaded files and checkpoints have no such
// weights, and most never use them, so they are made only when a scoring function asks for them.
// Call after changing the config's score or head_scores on a model that came from a file.
void model_ensure_score_parameters(Model& model, uint64_t seed);

// Checks every weight shape against the config and that all values are finite; the message names
// the first offending tensor. Run where weights enter (loading); it reads every weight.
Status model_check(const Model& model);
// The shape half of model_check: cheap, run before every forward pass.
Status model_check_shapes(const Model& model);

}  // namespace attnviz
