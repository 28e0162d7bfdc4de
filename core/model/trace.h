// The Trace: every intermediate of a forward pass for one input, per layer and head. It is the
// only thing the app's panels and the CLI's exporters read — they never recompute attention.
// trace_run is the one forward function for the sandbox, trained demos and loaded checkpoints.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/ablation.h"
#include "model/config.h"
#include "model/intervention.h"
#include "model/layer.h"
#include "model/model.h"
#include "text/word_tokenizer.h"

namespace attnviz {

struct TraceInput {
  std::string text;               // the sentence; in cross-attention, the target (queries)
  std::string text_b;             // non-empty: the second sentence of a pair (checkpoint tokenizers only;
                                  // BERT frames [CLS] A [SEP] B [SEP] with segments 0 / 1)
  std::vector<int> token_ids;     // non-empty: these vocabulary ids instead of tokenizing `text`
  std::vector<int> segment_ids;   // with token_ids: one segment per id (empty: all 0)
  std::string source_text;        // non-empty: cross-attention, keys and values from this sentence
  std::optional<Mat> embeddings;  // (T, C) used as X directly: no tokenizer, embedding or positions
  MaskSpec mask;
  Ablation ablation;              // heads switched off (every pass of the stack, the encoder's too)
  bool maps_on_demand = false;     // true: every dot-product head forms its map on demand (MapsKept::none)
                                  // whatever the length; false: as the length asks (trace_maps_kept)
  int64_t max_memory = 0;         // the most bytes the trace may hold (trace_bytes), refused before any layer
                                  // runs; 0: kTraceMemoryDefault. The app and the CLI size it from the
                                  // machine (base/memory_available.h) or take --max-trace-memory
};

struct TraceToken {
  std::string text;
  TokenKind kind = TokenKind::word;
  bool in_vocab = true;  // false: the model saw [UNK] here
  bool pad = false;      // a [PAD] added by the padding mask
  // Checkpoint tokenizers only (id -1 otherwise):
  int id = -1;            // vocabulary id
  std::string piece{};    // vocabulary entry ("Ġcat", "##ing"); `text` is what it covers, readable
  int segment = 0;        // sentence A (0) or B (1)
  int type_id = 0;        // the token-type row it is embedded with (BERT: = segment; RoBERTa: always 0)
  bool continues = false; // continues the previous token's word
  size_t begin = 0, end = 0;  // bytes of the (sanitized) sentence it covers; begin == end for framing
};

struct Trace {
  ModelConfig config;
  std::string model_source;
  bool cross = false;
  bool causal = false;              // the causal mask was applied (asked for, or the model's own)
  std::vector<TraceToken> queries;  // Tq: heatmap rows
  std::vector<TraceToken> keys;     // Tk: heatmap columns (the same tokens in self-attention)
  int real_keys = 0;                // keys before padding
  Mat embed;                        // (Tq, C) the first layer's input
  Mat memory;                       // (Tk, C) cross-attention only: the encoded source
  Mat mask;                         // (Tq, Tk) additive, 0 visible / -inf hidden, shared by all heads (of
                                    // every layer, unless the model's layers differ: trace_layer_mask)
  Mat mask_sliding;                 // (Tq, Tk) the sliding layers' mask when only some layers slide
                                    // (config.sliding_window_pattern: Gemma 2/3); empty otherwise
  std::vector<LayerTrace> layers;   // L
  Mat final;                        // (Tq, C) last layer's output (after the final LayerNorm, if any)
  Ablation ablation;                // the heads that were switched off
  MapsKept maps_kept = MapsKept::all;  // what its dot-product heads keep of their (Tq, Tk) matrices: with
                                    // none, read a head's map through head_map (model/head_map.h)
  int reused_rows = 0;              // rows [0, reused_rows) of every intermediate were copied from an
                                    // earlier trace (trace_run_reusing), not computed; trace_run: 0
  bool weights_only = false;        // read from an attention file (io/attention_file.h): no model ran, each
                                    // head holds only its weights; q/k/v, scores, embed and final are empty,
                                    // config has only n_layers and n_heads (d_model 0), mask is all 0

  int n_queries() const { return static_cast<int>(queries.size()); }
  int n_keys() const { return static_cast<int>(keys.size()); }
  const HeadTrace& head(int layer, int h) const {
    return layers[static_cast<size_t>(layer)].attn.heads[static_cast<size_t>(h)];
  }
};

// The last query row holding a real token (padding comes last): where a next-token model answers.
inline int trace_last_real_query(const Trace& t) {
  int last = t.n_queries() - 1;
  while (last > 0 && t.queries[static_cast<size_t>(last)].pad) --last;
  return last;
}

// Lets another thread follow and stop a long forward pass (the app's worker): `layers_done` counts
// finished layers (of the encoder too, in cross-attention), and a set `cancel` stops the pass at
// the next layer boundary with the error kTraceCancelled.
struct TraceControl {
  const std::atomic<bool>* cancel = nullptr;
  std::atomic<int>* layers_done = nullptr;
};
inline constexpr const char* kTraceCancelled = "cancelled";

// Above this many attention cells over all layers and heads (Tq·Tk·NH·L), dot-product heads keep
// only their weights, not their raw and scaled scores (head_scores recomputes them): 2^25 cells is
// 256 MB of scores. GPT-2 small at 128 tokens keeps everything; at 1024 tokens it drops them.
inline constexpr int64_t kKeepScoresCells = int64_t{1} << 25;
// Above this many, they keep neither: a head's map is formed from its Q and K when asked (head_map).
// 2^28 cells is 1 GiB of weights: GPT-2 small keeps its maps up to 1,365 tokens, a TinyLlama-shaped
// model (22 layers x 32 heads) up to 617, a Llama-3.2-1B-shaped one (16 x 32) up to 724.
inline constexpr int64_t kKeepMapsCells = int64_t{1} << 28;
// What a trace of Tq queries over Tk keys keeps (on_demand: TraceInput::maps_on_demand).
MapsKept trace_maps_kept(const ModelConfig& config, int64_t tq, int64_t tk, bool on_demand = false);

// The mask layer l's heads applied: mask_sliding on a sliding layer of a model whose layers differ,
// else mask.
const Mat& trace_layer_mask(const Trace& trace, int l);

// Tokenizes, embeds, builds the mask and runs every layer. Errors (bad config, too many tokens,
// a mask that does not fit, shape mismatches) come back as messages; nothing is half-built.
Result<Trace> trace_run(const Model& model, const TraceInput& input, const TraceControl& control = {});

// The two halves of trace_run for self-attention input (what model/trace_reuse.h builds on).
// trace_prepare does everything before the first layer: the checks, tokens, embed, mask and the
// fields describing the run; `layers` and `final` stay empty. trace_finish runs the layers on a
// prepared trace; its only error is kTraceCancelled. Cross-attention input is an error here.
Result<Trace> trace_prepare(const Model& model, const TraceInput& input);
Status trace_finish(const Model& model, Trace& trace, const TraceControl& control = {});

// The bytes a trace of Tq queries over Tk keys holds: each layer's (Tq, Tk) matrices per head (the
// weights and the scores, as trace_maps_kept keeps them) and the mask, plus what it keeps per token: each layer's rows
// (LayerTrace, AttentionTrace) and each head's q, k, v and out (and the unrotated q and k). A
// cross-attention trace's encoder is not counted here.
int64_t trace_bytes(const ModelConfig& config, int64_t tq, int64_t tk, bool on_demand = false);
// The most tokens a self-attention trace of this model may have within `max_memory` bytes (at most
// kMaxTokens; 0 when not even one fits).
int trace_tokens_fit(const ModelConfig& config, int64_t max_memory, bool on_demand = false);
// Ok when a trace of Tq queries over Tk keys (plus `extra_bytes`: a cross-attention encoder's)
// stays within `max_memory` (0: kTraceMemoryDefault); otherwise an error saying how large it would
// be, how many tokens fit in this model, and how to raise the limit. trace_run asks before any layer runs.
Status trace_size_check(const ModelConfig& config, int64_t tq, int64_t tk, int64_t max_memory, int64_t extra_bytes = 0,
                        bool on_demand = false);
// The last layer's output (T, C) through the model's final LayerNorm, when it has one.
Mat trace_final_of(const Model& model, const Mat& last_out);

// The final hidden states (Tq, C) of base's input with `ablation` instead of base's own, running
// only the layers from the first one whose ablation differs (earlier layers' outputs are base's).
// Self-attention traces only; what measures of importance run once per head.
Result<Mat> trace_final_ablated(const Model& model, const Trace& base, const Ablation& ablation);

// The same with any interventions (model/intervention.h): heads switched off, heads' outputs and
// residual rows replaced. Runs from the first layer they change; the ablation is compared with
// base's own, patches always count. Errors: a trace not made by this model, cross-attention, an
// intervention outside the model or of the wrong size (interventions_validate's message).
Result<Mat> trace_final_intervened(const Model& model, const Trace& base, const Interventions& interventions);

}  // namespace attnviz
