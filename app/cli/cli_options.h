// attnviz-cli's command line: what the user asked for, parsed and checked without touching a file.
// A parse error is a usage error (exit 2) with a one-line message; files are read later (exit 1),
// where an architecture flag that disagrees with a model file is a usage error too (cli_run).
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/measures.h"
#include "analysis/word_view.h"
#include "base/result.h"
#include "base/rng.h"
#include "model/ablation.h"
#include "model/config.h"
#include "render/colormap.h"

namespace attnviz {

enum class CliCommand { help, version, attention, train_coref, train_induction, train_gather, train_translate, train_pair, translate, predict, heads,
                        generate, sentences, patch };

struct CliOptions {
  CliCommand command = CliCommand::help;
  std::string text;           // --text: the sentence (the target, with --source)
  std::string text_b;         // --text-b: the second sentence of a pair (BERT checkpoints)
  std::string source_text;    // --source: cross-attention keys/values
  std::string input_npy;      // --input-npy: float32 (T, C) embeddings instead of text
  std::string weights_path;   // --weights FILE.safetensors
  std::string attention_path; // --attention FILE.safetensors: saved attention weights instead of a model
  bool cross = false;         // --cross: with --attention, export the file's cross_attentions
  std::string save_weights;   // --save-weights FILE.safetensors: write the model used
  ModelConfig config;         // --d-model, --heads, --layers, --ffn, --activation, --norm, ...
  uint64_t seed = 1;          // --seed: the sandbox's random weights
  RngGenerator generator = kRngNewest;  // --generator: what draws them from the seed
  MaskSpec mask;              // --mask (repeatable)
  std::string json_path;      // --json FILE ('-' = standard output)
  std::string set_path;       // heads --set FILE: importance over the file's sentences
  bool heldout = true;        // sentences --split heldout|train: which of the demo's sentences
  std::string csv_path;       // --csv FILE with --layer and --head
  std::string png_path;       // --png FILE with --layer
  std::string svg_path;       // --svg FILE with --layer: the same grid as vector graphics
  int layer = -1, head = -1;  // 0-based
  float png_scale = 1.0f;     // --png-scale
  Colormap colormap = Colormap::viridis;  // --colormap
  ColorScaleSpec color_scale;  // --color-scale linear|log|power: how values spread over it (--png, --svg)
  bool first_aside = false;    // --first-aside: the first key apart, the rest of each row renormalised (--png, --svg)
  int64_t max_trace_memory = 0;  // --max-trace-memory SIZE in bytes; 0: sized from the memory available (cli_run)
  int layers_kept = -1;          // --layers-kept N: a GGUF model's decoded layers kept (-1: by the memory available)
  int top_k = 3;              // --top-k: strongest keys per query in JSON; predict: tokens listed (default 5)
  bool json_weights = true;   // --no-weights drops the (T, T) matrices from JSON
  std::string out_dir;        // train coref / induction / gather: --out DIR (model.safetensors is written there)
  std::vector<uint64_t> seeds{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // train pair: --seeds 1-10 or 1,4,7
  int steps = 3000;           // train: --steps, the most optimiser steps
  float lr = 0;               // train: --lr, AdamW's learning rate (0: the demo's own)
  int batch = 0;              // train: --batch, examples per optimiser step (0: the demo's own)
  int eval_every = 0;         // train: --eval-every, steps between held-out evaluations (0: the demo's own)
  std::string model_path;     // --model: a checkpoint folder, a model folder, a .safetensors file or a demo (demo:coref)
  Ablation ablation;          // --ablate L:H,... and --ablation zero|mean: heads switched off
  bool importance = false;    // heads --importance: the drop of the answer's log-probability per head
  bool logit_attribution = false;  // heads --logit-attribution: each head's, MLP's, ... direct effect on the logit difference
  std::string clean_text, corrupt_text;  // patch --clean, --corrupt
  bool patch_by_position = false;        // patch --by position (default: by head)
  std::string answer_token, wrong_token; // --answer, --wrong TOK: one vocabulary token's text (" street")
  int answer_id = -1, wrong_id = -1;     // --answer-id, --wrong-id N instead
  bool bottleneck = false;    // train translate --bottleneck: the decoder without cross-attention
  AttentionMeasure measure = AttentionMeasure::weights;  // --measure: what --json/--csv/--png show
  WordViewOptions word_view;      // --words, --hide-special: words instead of pieces, no special tokens
  int tokens = 20;                // generate: --tokens, how many new tokens
  float sample_temperature = 0;   // generate: --temperature, 0 greedy (attention: config.temperature)
  bool verbose = false;           // --version --verbose: also where the shipped demos were found
  std::set<std::string> given;  // flags the user set explicitly (without the leading dashes)
};

// args excludes the program name. The error text is the one-line usage message.
Result<CliOptions> cli_parse(const std::vector<std::string>& args);
std::string cli_help();

}  // namespace attnviz
