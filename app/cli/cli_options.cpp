// A table-driven parser: each flag names the field it sets and how to read its value, so --help
// and parsing cannot disagree about which flags exist.
#include "cli_options.h"

#include <functional>
#include <iomanip>
#include <optional>
#include <sstream>

#include "base/memory_available.h"
#include "base/parse_number.h"

namespace attnviz {

namespace {

using Setter = std::function<Status(CliOptions&, const std::string&)>;

// Which commands a flag belongs to.
enum : unsigned { kAttention = 1, kTrain = 2, kPredict = 4, kHeads = 8, kGenerate = 16, kTranslate = 32, kSentences = 64,
                  kPatch = 128 };

struct Flag {
  const char* name;
  const char* arg;   // nullptr: takes no value
  const char* help;
  Setter set;
  unsigned commands = kAttention;
};

// "1-10" (both ends included) or "1,4,7": at most 100 seeds, each a whole number; nullopt otherwise.
std::optional<std::vector<uint64_t>> parse_seed_list(std::string_view text) {
  constexpr size_t kMaxSeeds = 100;
  std::vector<uint64_t> out;
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) {
    uint64_t lo = 0, hi = 0;
    if (!parse_number(text.substr(0, dash), lo) || !parse_number(text.substr(dash + 1), hi) || hi < lo ||
        hi - lo >= kMaxSeeds)
      return std::nullopt;
    for (uint64_t s = lo; s <= hi; ++s) out.push_back(s);
    return out;
  }
  while (true) {
    const size_t comma = text.find(',');
    uint64_t s = 0;
    if (!parse_number(text.substr(0, comma), s) || out.size() == kMaxSeeds) return std::nullopt;
    out.push_back(s);
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

const char* train_demo_name(CliCommand c) {
  switch (c) {
    case CliCommand::train_coref: return "coref";
    case CliCommand::train_induction: return "induction";
    case CliCommand::train_gather: return "gather";
    case CliCommand::train_translate: return "translate";
    default: return "pair";
  }
}

Status bad_value(const char* flag, const std::string& value, const char* expected) {
  return make_error("--" + std::string(flag) + " '" + value + "': expected " + expected);
}

Setter int_flag(int CliOptions::*field, int lo, int hi, const char* flag) {
  return [=](CliOptions& o, const std::string& v) -> Status {
    int n = 0;
    if (!parse_number(v, n) || n < lo || n > hi)
      return bad_value(flag, v, ("a whole number from " + std::to_string(lo) + " to " + std::to_string(hi)).c_str());
    o.*field = n;
    return Ok{};
  };
}

Setter config_int(int ModelConfig::*field, int lo, int hi, const char* flag) {
  return [=](CliOptions& o, const std::string& v) -> Status {
    int n = 0;
    if (!parse_number(v, n) || n < lo || n > hi)
      return bad_value(flag, v, ("a whole number from " + std::to_string(lo) + " to " + std::to_string(hi)).c_str());
    o.config.*field = n;
    return Ok{};
  };
}

template <class E>
Setter config_enum(E ModelConfig::*field, std::optional<E> (*parse)(std::string_view), const char* flag,
                   const char* names) {
  return [=](CliOptions& o, const std::string& v) -> Status {
    auto e = parse(v);
    if (!e) return bad_value(flag, v, names);
    o.config.*field = *e;
    return Ok{};
  };
}

Setter string_flag(std::string CliOptions::*field) {
  return [=](CliOptions& o, const std::string& v) -> Status {
    o.*field = v;
    return Ok{};
  };
}

const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {"text", "TEXT", "the sentence to analyse (the target sentence with --source; generate: the prompt)",
       string_flag(&CliOptions::text), kAttention | kPredict | kHeads | kGenerate | kTranslate},
      {"text-b", "TEXT", "the second sentence of a pair: [CLS] A [SEP] B [SEP] (BERT checkpoints)",
       string_flag(&CliOptions::text_b)},
      {"source", "TEXT", "cross-attention: keys and values come from this source sentence",
       string_flag(&CliOptions::source_text)},
      {"input-npy", "FILE", "float32 (T, C) embeddings: skips the tokenizer, embedding and positions",
       string_flag(&CliOptions::input_npy)},
      {"weights", "FILE", "a .safetensors model (PyTorch TransformerEncoder names); default: random weights",
       string_flag(&CliOptions::weights_path)},
      {"attention", "FILE",
       "an attention file: attentions.{l} (H, T, T) and metadata tokens, saved from any model (README); "
       "statistics and exports of its weights, no model needed",
       string_flag(&CliOptions::attention_path)},
      {"cross", nullptr, "with --attention: --json/--csv/--png show the file's cross_attentions",
       [](CliOptions& o, const std::string&) -> Status {
         o.cross = true;
         return Ok{};
       }},
      {"save-weights", "FILE", "write the model that was used as .safetensors", string_flag(&CliOptions::save_weights)},
      {"d-model", "C", "model width d_model (default 512; train coref and induction: 32)",
       config_int(&ModelConfig::d_model, 1, kMaxDModel, "d-model"), kAttention | kTrain},
      {"heads", "NH", "number of heads; must divide d_model (default 8; train coref: 4, induction: 2)",
       config_int(&ModelConfig::n_heads, 1, kMaxDModel, "heads"), kAttention | kTrain},
      {"layers", "L", "number of layers (default 1; train: 2)",
       config_int(&ModelConfig::n_layers, 1, kMaxLayers, "layers"), kAttention | kTrain},
      {"ffn", "F", "FFN width; 0: attention-only layers (default 2048; train coref and induction: 0)",
       config_int(&ModelConfig::d_ff, 0, kMaxFF, "ffn"), kAttention | kTrain},
      {"activation", "relu|gelu|gelu_tanh", "FFN activation (default relu)",
       config_enum(&ModelConfig::activation, activation_from_name, "activation", "relu, gelu or gelu_tanh")},
      {"norm", "post|pre", "LayerNorm placement: post (2017 paper, BERT) or pre (GPT) (default post)",
       config_enum(&ModelConfig::norm, norm_from_name, "norm", "post or pre"), kAttention | kTrain},
      {"positions", "sinusoidal|learned|none", "positional encoding (default sinusoidal)",
       config_enum(&ModelConfig::positions, positions_from_name, "positions", "sinusoidal, learned or none"),
       kAttention | kTrain},
      {"ln-eps", "EPS", "LayerNorm epsilon (default 1e-5)",
       [](CliOptions& o, const std::string& v) -> Status {
         float f = 0;
         if (!parse_number(v, f) || !(f > 0 && f < 1)) return bad_value("ln-eps", v, "a number between 0 and 1");
         o.config.ln_eps = f;
         return Ok{};
       }},
      {"seed", "N",
       "seed of the random weights (train: of weights, data order and split) (default 1; train coref: 78 and train gather: 7, the shipped demos)",
       [](CliOptions& o, const std::string& v) -> Status {
         if (!parse_number(v, o.seed)) return bad_value("seed", v, "a non-negative whole number");
         return Ok{};
       },
       kAttention | kTrain | kGenerate},
      {"generator", "NAME",
       "what draws the sandbox's weights from --seed: philox4x32-10 (default) or polar-splitmix64 (the weights of "
       "sessions and files made before it)",
       [](CliOptions& o, const std::string& v) -> Status {
         auto g = rng_generator_from_name(v);
         if (!g) return make_error("--generator: " + g.error());
         o.generator = *g;
         return Ok{};
       }},
      {"score", "KIND", "scoring function of every head: scaled_dot, dot, general (Luong) or additive (Bahdanau)",
       config_enum(&ModelConfig::score, score_from_name, "score", "scaled_dot, dot, general or additive"),
       kAttention | kTrain},
      {"head-scores", "K1,K2,...", "one scoring function per head, comma separated",
       [](CliOptions& o, const std::string& v) -> Status {
         o.config.head_scores.clear();
         std::stringstream ss(v);
         std::string item;
         while (std::getline(ss, item, ',')) {
           auto k = score_from_name(item);
           if (!k) return bad_value("head-scores", item, "scaled_dot, dot, general or additive");
           o.config.head_scores.push_back(*k);
         }
         return Ok{};
       }},
      {"temperature", "TAU",
       "divide the scores by TAU before softmax (default 1); generate: sample the next token "
       "from softmax(logits / TAU) over the --top-k most probable (default 0: greedy)",
       [](CliOptions& o, const std::string& v) -> Status {
         float f = 0;
         if (o.command == CliCommand::generate) {
           if (!parse_number(v, f) || !(f >= 0.0f && f <= 100.0f))
             return bad_value("temperature", v, "a number from 0 to 100");
           o.sample_temperature = f;
           return Ok{};
         }
         if (!parse_number(v, f) || !(f >= kMinTemperature && f <= kMaxTemperature))
           return bad_value("temperature", v, "a number from 0.001 to 1000");
         o.config.temperature = f;
         return Ok{};
       },
       kAttention | kGenerate},
      {"words", nullptr,
       "--json/--csv/--png and the statistics in words: a word's column sums its pieces' weights, its row averages them",
       [](CliOptions& o, const std::string&) -> Status {
         o.word_view.merge_pieces = true;
         return Ok{};
       }},
      {"hide-special", nullptr,
       "leave out special tokens ([CLS], [SEP], <s>, <|begin_of_text|>, ...) and renormalise each row over the rest",
       [](CliOptions& o, const std::string&) -> Status {
         o.word_view.hide_special = true;
         return Ok{};
       }},
      {"tokens", "N", "generate: how many new tokens (default 20)", int_flag(&CliOptions::tokens, 1, 1024, "tokens"),
       kGenerate},
      {"mask", "SPEC", "causal | window:R | strided:S | pad:N | none; repeat to combine",
       [](CliOptions& o, const std::string& v) -> Status { return mask_spec_add(o.mask, v); },
       kAttention | kPredict | kHeads | kPatch},
      {"ablate", "L:H,...", "switch these heads off (layers and heads from 0): their outputs are replaced before W_O",
       [](CliOptions& o, const std::string& v) -> Status {
         auto heads = ablation_heads_parse(v);
         if (!heads) return make_error("--ablate: " + heads.error());
         o.ablation.heads = std::move(*heads);
         return Ok{};
       },
       kAttention | kPredict},
      {"ablation", "zero|mean",
       "what a switched-off head passes on: zeros, or its output averaged over the input's positions (default zero)",
       [](CliOptions& o, const std::string& v) -> Status {
         auto m = ablation_mode_from_name(v);
         if (!m) return bad_value("ablation", v, "zero or mean");
         o.ablation.mode = *m;
         return Ok{};
       },
       kAttention | kPredict | kHeads},
      {"bottleneck", nullptr,
       "train translate: the seq2seq before attention, no cross-attention; the decoder reads one vector, the mean of the "
       "encoder's output",
       [](CliOptions& o, const std::string&) -> Status {
         o.bottleneck = true;
         return Ok{};
       },
       kTrain},
      {"set", "FILE",
       "heads --importance over a set of sentences: one per line (blank lines and # lines skipped, the first "
       "tab-separated column read); the mean grid, each head's spread and each sentence's grid",
       string_flag(&CliOptions::set_path), kHeads},
      {"importance", nullptr,
       "heads: for every head, the drop in the log-probability of the model's own answer when that head alone is off",
       [](CliOptions& o, const std::string&) -> Status {
         o.importance = true;
         return Ok{};
       },
       kHeads},
      {"logit-attribution", nullptr,
       "heads: what each head, MLP, the embeddings and the biases write towards logit(answer) - logit(wrong) at the "
       "last position, through the final norm linearised there (a pre-norm language model)",
       [](CliOptions& o, const std::string&) -> Status {
         o.logit_attribution = true;
         return Ok{};
       },
       kHeads},
      {"clean", "TEXT", "patch: the text whose activations are patched in", string_flag(&CliOptions::clean_text), kPatch},
      {"corrupt", "TEXT", "patch: the text they are patched into (the same number of tokens)",
       string_flag(&CliOptions::corrupt_text), kPatch},
      {"by", "head|position",
       "patch: replace one head's output z at every position, or the residual entering one layer at one position "
       "(default head)",
       [](CliOptions& o, const std::string& v) -> Status {
         if (v != "head" && v != "position") return bad_value("by", v, "head or position");
         o.patch_by_position = v == "position";
         return Ok{};
       },
       kPatch},
      {"answer", "TOK",
       "patch, heads --logit-attribution: the answer token, written as the text it decodes to with its leading space "
       "(\" street\"); default: the clean run's top token (logit attribution: the top token)",
       string_flag(&CliOptions::answer_token), kPatch | kHeads},
      {"wrong", "TOK",
       "the token it is compared with; default: the corrupt run's top token (logit attribution: the second token)",
       string_flag(&CliOptions::wrong_token), kPatch | kHeads},
      {"answer-id", "N", "the answer token by its vocabulary id", int_flag(&CliOptions::answer_id, 0, 1 << 30, "answer-id"),
       kPatch | kHeads},
      {"wrong-id", "N", "the wrong token by its vocabulary id", int_flag(&CliOptions::wrong_id, 0, 1 << 30, "wrong-id"),
       kPatch | kHeads},
      {"measure", "weights|value-norm|rollout",
       "what --json/--csv/--png show: the softmax weights, value-norm (weight x the size of what the key moves, "
       "Kobayashi et al. 2020) or rollout across layers (Abnar & Zuidema 2020) (default weights)",
       [](CliOptions& o, const std::string& v) -> Status {
         auto m = measure_from_name(v);
         if (!m) return bad_value("measure", v, "weights, value-norm or rollout");
         o.measure = *m;
         return Ok{};
       }},
      {"json", "FILE",
       "attention: tokens, config, every head's weights and statistics, final hidden states; predict: the answer(s); "
       "heads: the importance grid; train pair: each seed's steps to the target and held-out accuracy ('-': stdout)",
       string_flag(&CliOptions::json_path), kAttention | kTrain | kPredict | kHeads | kGenerate | kTranslate | kPatch},
      {"out", "DIR", "train: the folder to write model.safetensors to; sentences: the file to write (default: standard output)",
       string_flag(&CliOptions::out_dir), kTrain | kSentences},
      {"split", "heldout|train", "sentences: the demo's held-out sentences (the default: none trained on) or its training ones",
       [](CliOptions& o, const std::string& v) -> Status {
         if (v != "heldout" && v != "train") return make_error("--split is heldout or train, not '" + v + "'");
         o.heldout = v == "heldout";
         return Ok{};
       },
       kSentences},
      {"seeds", "LIST",
       "train pair: the seeds to train the pair for, a range (1-10, the default) or a list (1,4,7); at most 100",
       [](CliOptions& o, const std::string& v) -> Status {
         auto seeds = parse_seed_list(v);
         if (!seeds) return bad_value("seeds", v, "a range such as 1-10 or a list such as 1,4,7 (at most 100 seeds)");
         o.seeds = std::move(*seeds);
         return Ok{};
       },
       kTrain},
      {"steps", "N",
       "train: the most optimiser steps (default 3000; coref stops at 99% held-out accuracy, induction once a head past layer 0 "
       "scores 0.95 as an induction head)",
       int_flag(&CliOptions::steps, 1, 1000000, "steps"), kTrain},
      {"lr", "LR",
       "train: AdamW's learning rate (default: the demo's own; coref 0.003 for the shipped shape, lower for wide, deep or unscaled ones; induction 0.005 for the shipped shape, lower for wide, unscaled or deep post-norm ones)",
       [](CliOptions& o, const std::string& v) -> Status {
         float f = 0;
         if (!parse_number(v, f) || !(f > 0 && f < 1)) return bad_value("lr", v, "a number between 0 and 1");
         o.lr = f;
         return Ok{};
       },
       kTrain},
      {"batch", "N",
       "train: examples per optimiser step (default: the demo's own; coref 16, or 32 with 3 layers or more; induction 8)",
       int_flag(&CliOptions::batch, 1, 1024, "batch"), kTrain},
      {"eval-every", "N",
       "train: steps between held-out evaluations, where a run can stop (default: the demo's own; coref 100, or 50 for 3 "
       "or more layers at d_model 64 or more; induction 25)",
       int_flag(&CliOptions::eval_every, 1, 1000000, "eval-every"), kTrain},
      {"model", "PATH",
       "a Hugging Face checkpoint folder (GPT-2, BERT, RoBERTa, DistilBERT, Llama, Mistral, Qwen2, GPT-NeoX: config.json, weights, tokenizer files), an "
       "attnviz model (folder with model.safetensors, or the file), or a shipped demo: demo:coref, demo:induction, "
       "demo:coref/heads{NH}_dmodel{C} (attnviz-cli --version --verbose lists them)",
       string_flag(&CliOptions::model_path), kAttention | kPredict | kHeads | kGenerate | kTranslate | kPatch},
      {"no-weights", nullptr, "leave the (T, T) weight matrices out of --json",
       [](CliOptions& o, const std::string&) -> Status {
         o.json_weights = false;
         return Ok{};
       }},
      {"top-k", "K",
       "attention: strongest keys listed per query in --json (default 3; 0: none); predict: the most "
       "probable tokens listed per position (default 5)",
       int_flag(&CliOptions::top_k, 0, kMaxTokens, "top-k"), kAttention | kPredict | kGenerate},
      {"max-trace-memory", "SIZE",
       "the most memory one trace may take, as 8G or 512M (K, M, G, T: powers of 1024); a longer input is "
       "refused, saying how many tokens fit (default: half of the memory available, less 1G)",
       [](CliOptions& o, const std::string& v) -> Status {
         auto size = memory_size_parse(v);
         if (!size) return make_error("--max-trace-memory " + size.error());
         o.max_trace_memory = *size;
         return Ok{};
       },
       kAttention | kPredict | kHeads | kGenerate},
      {"layers-kept", "N",
       "a GGUF model's layers stay in the file until used; keep the first N decoded in memory (default: as many as a "
       "third of the memory available holds; 0: none, the least memory, every layer decoded each time)",
       int_flag(&CliOptions::layers_kept, 0, kMaxLayers, "layers-kept"), kAttention | kPredict | kHeads | kGenerate},
      {"csv", "FILE", "write one head's weights as CSV (needs --layer and --head)", string_flag(&CliOptions::csv_path)},
      {"png", "FILE", "draw a labelled grid of one layer's heads (needs --layer)", string_flag(&CliOptions::png_path)},
      {"svg", "FILE", "the same grid as an SVG: vector cells, text as text (needs --layer)",
       string_flag(&CliOptions::svg_path)},
      {"layer", "L", "layer number, from 0", int_flag(&CliOptions::layer, 0, kMaxLayers, "layer")},
      {"head", "H", "head number, from 0", int_flag(&CliOptions::head, 0, kMaxDModel, "head")},
      {"png-scale", "S", "scale of the PNG (default 1)",
       [](CliOptions& o, const std::string& v) -> Status {
         float f = 0;
         if (!parse_number(v, f) || !(f >= 0.25f && f <= 8.0f))
           return bad_value("png-scale", v, "a number from 0.25 to 8");
         o.png_scale = f;
         return Ok{};
       }},
      {"colormap", "NAME", "viridis, magma or high_contrast (default viridis)",
       [](CliOptions& o, const std::string& v) -> Status {
         auto c = colormap_from_name(v);
         if (!c) return bad_value("colormap", v, "viridis, magma or high_contrast");
         o.colormap = *c;
         return Ok{};
       }},
      {"color-scale", "linear|log|power", "how --png/--svg spread values over the colours: log shows three decades, "
                                          "power the square root (default linear)",
       [](CliOptions& o, const std::string& v) -> Status {
         auto k = color_scale_from_name(v);
         if (!k) return bad_value("color-scale", v, "linear, log or power");
         o.color_scale.kind = *k;
         return Ok{};
       }},
      {"first-aside", nullptr, "--png/--svg: the first token's column drawn apart in greys, the rest of each row "
                               "renormalised (the weights and the rollout)",
       [](CliOptions& o, const std::string&) -> Status {
         o.first_aside = true;
         return Ok{};
       }},
  };
  return table;
}

const Flag* find_flag(std::string_view name) {
  for (const Flag& f : flags())
    if (name == f.name) return &f;
  return nullptr;
}

// The attention command's flags that only mean something when a model runs.
constexpr const char* kNeedsModel[] = {"model", "weights", "text", "text-b", "source", "input-npy", "save-weights",
                                       "ablate", "ablation", "mask", "d-model", "heads", "layers", "ffn",
                                       "activation", "norm", "positions", "ln-eps", "seed", "generator", "score",
                                       "head-scores", "temperature", "max-trace-memory"};

Status check_combination(const CliOptions& o) {
  if (o.command == CliCommand::train_translate && o.given.count("positions"))
    return make_error("train translate takes no --positions: the encoder and the decoder learn theirs");
  if (o.bottleneck && o.command != CliCommand::train_translate) return make_error("--bottleneck is for train translate only");
  if (o.command == CliCommand::train_coref || o.command == CliCommand::train_induction ||
      o.command == CliCommand::train_gather || o.command == CliCommand::train_translate) {
    const std::string name = std::string("train ") + train_demo_name(o.command);
    if (o.out_dir.empty()) return make_error(name + " needs --out DIR");
    if (o.given.count("json")) return make_error(name + " does not take --json (train pair writes one)");
    if (o.given.count("seeds")) return make_error(name + " does not take --seeds (train pair does; " + name + " takes --seed)");
    return Ok{};
  }
  if (o.command == CliCommand::train_pair) {
    if (o.given.count("out")) return make_error("train pair saves no model: use --json FILE for its results");
    if (o.given.count("seed")) return make_error("train pair takes --seeds (a range or a list), not --seed");
    if (o.given.count("heads") && o.config.n_heads < 2)
      return make_error("train pair compares 1 head with --heads NH: NH must be at least 2");
    return Ok{};
  }
  if (o.command == CliCommand::generate) {
    if (o.model_path.empty()) return make_error("generate needs --model PATH");
    if (!o.given.count("text")) return make_error("generate needs --text (the prompt)");
    if (o.given.count("top-k") && o.top_k < 1) return make_error("--top-k must be at least 1 for generate");
    return Ok{};
  }
  if (o.command == CliCommand::sentences) return Ok{};  // its flags are its own (--split, --out)
  if (o.command == CliCommand::translate) {
    if (o.model_path.empty()) return make_error("translate needs --model PATH (demo:translate, or a folder `train translate` wrote)");
    if (!o.given.count("text")) return make_error("translate needs --text (an English sentence of the demo's grammar)");
    return Ok{};
  }
  for (const char* which : {"answer", "wrong"})
    if (o.given.count(which) && o.given.count(std::string(which) + "-id"))
      return make_error("--" + std::string(which) + " and --" + which + "-id name the same token: give one");
  if (o.command == CliCommand::patch) {
    if (o.model_path.empty()) return make_error("patch needs --model PATH");
    if (!o.given.count("clean") || !o.given.count("corrupt")) return make_error("patch needs --clean TEXT and --corrupt TEXT");
    return Ok{};
  }
  if (o.command == CliCommand::heads) {
    if (o.logit_attribution && o.importance) return make_error("heads takes --importance or --logit-attribution, not both");
    if (o.logit_attribution && o.given.count("set")) return make_error("--logit-attribution reads one text: give --text, not --set");
    if (!o.logit_attribution)
      for (const char* f : {"answer", "wrong", "answer-id", "wrong-id"})
        if (o.given.count(f)) return make_error("--" + std::string(f) + " is for --logit-attribution (or patch)");
  }
  if (o.command == CliCommand::predict || o.command == CliCommand::heads) {
    const char* name = o.command == CliCommand::predict ? "predict" : "heads";
    if (o.model_path.empty()) return make_error(std::string(name) + " needs --model PATH");
    const bool set = o.command == CliCommand::heads && o.given.count("set");
    if (set && o.given.count("text")) return make_error("heads takes --text or --set, not both");
    if (!o.given.count("text") && !set) return make_error(std::string(name) + (o.command == CliCommand::heads ? " needs --text or --set" : " needs --text"));
    if (o.command == CliCommand::heads && !o.importance && !o.logit_attribution)
      return make_error("heads needs --importance or --logit-attribution");
    if (o.command == CliCommand::predict && o.given.count("top-k") && o.top_k < 1)
      return make_error("--top-k must be at least 1 for predict");
    return Ok{};
  }
  if (o.word_view.any() && o.measure != AttentionMeasure::weights)
    return make_error(std::string(o.word_view.merge_pieces ? "--words" : "--hide-special") +
                      " shows the softmax weights only: it cannot be combined with --measure " + std::string(name_of(o.measure)));
  if (o.word_view.any() && !o.save_weights.empty()) return make_error("--words and --hide-special change what is shown, not the model: --save-weights does not apply");
  if (o.first_aside && o.measure == AttentionMeasure::value_norm)
    return make_error("--first-aside renormalises rows of weights or of the rollout; value-norm rows are not distributions");
  if ((o.first_aside || o.color_scale.kind != ColorScale::linear) && o.png_path.empty() && o.svg_path.empty())
    return make_error("--first-aside and --color-scale change how --png or --svg draw the maps: give one of them");
  if (o.measure != AttentionMeasure::weights && o.json_path.empty() && o.csv_path.empty() && o.png_path.empty() &&
      o.svg_path.empty())
    return make_error("--measure needs --json, --csv, --png or --svg to show it in");
  if (o.cross && o.attention_path.empty()) return make_error("--cross needs --attention FILE");
  if (!o.attention_path.empty()) {
    // A saved attention file holds weights only: anything that needs a model to run is refused by name.
    for (const char* flag : kNeedsModel)
      if (o.given.count(flag))
        return make_error("--attention and --" + std::string(flag) + " cannot be combined: --" + flag +
                          " needs a model, and an attention file holds only the weights");
    if (o.word_view.any())
      return make_error(std::string("--attention and --") + (o.word_view.merge_pieces ? "words" : "hide-special") +
                        " cannot be combined: an attention file's tokens do not say which pieces form a word or which are special");
    if (o.measure == AttentionMeasure::value_norm)
      return make_error("--attention and --measure value-norm cannot be combined: value-norm needs the model's "
                        "values and W_O, and an attention file holds only the weights");
    if (!o.csv_path.empty() && (o.layer < 0 || o.head < 0)) return make_error("--csv needs --layer and --head");
    if (!o.png_path.empty() && o.layer < 0) return make_error("--png needs --layer");
    if (!o.svg_path.empty() && o.layer < 0) return make_error("--svg needs --layer");
    return Ok{};
  }
  const bool has_text = o.given.count("text") > 0, has_npy = !o.input_npy.empty();
  if (has_text == has_npy) return make_error("give exactly one of --text or --input-npy");
  if (!o.source_text.empty() && has_npy) return make_error("--source needs --text, not --input-npy");
  if (!o.csv_path.empty() && (o.layer < 0 || o.head < 0)) return make_error("--csv needs --layer and --head");
  if (!o.png_path.empty() && o.layer < 0) return make_error("--png needs --layer");
  if (!o.svg_path.empty() && o.layer < 0) return make_error("--svg needs --layer");
  if (!o.model_path.empty() && !o.weights_path.empty()) return make_error("give one of --model or --weights");
  if (!o.text_b.empty() && has_npy) return make_error("--text-b needs --text, not --input-npy");
  if (o.weights_path.empty() && o.model_path.empty())
    if (Status s = config_validate(o.config); !s) return s;
  return Ok{};
}

}  // namespace

namespace {

Result<CliOptions> parse_args(const std::vector<std::string>& args) {
  CliOptions o;
  if (args.empty()) return make_error("no command given (try 'attnviz-cli --help')");
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") return o;
  if (args[0] == "--version") {
    o.command = CliCommand::version;
    o.verbose = args.size() == 2 && args[1] == "--verbose";
    if (args.size() > (o.verbose ? 2u : 1u)) return make_error("--version takes only --verbose after it");
    return o;
  }
  size_t first_flag = 1;
  unsigned allowed = kAttention;
  if (args[0] == "attention") {
    o.command = CliCommand::attention;
  } else if (args[0] == "train") {
    const std::string demo = args.size() < 2 ? std::string() : args[1];
    if (demo == "coref") o.command = CliCommand::train_coref;
    else if (demo == "induction") o.command = CliCommand::train_induction;
    else if (demo == "gather") o.command = CliCommand::train_gather;
    else if (demo == "translate") o.command = CliCommand::train_translate;
    else if (demo == "pair") o.command = CliCommand::train_pair;
    else
      return make_error(
          "train needs a demo name: 'train coref', 'train induction', 'train gather', 'train translate' or 'train pair'");
    allowed = kTrain;
    first_flag = 2;
  } else if (args[0] == "predict") {
    o.command = CliCommand::predict;
    allowed = kPredict;
  } else if (args[0] == "heads") {
    o.command = CliCommand::heads;
    allowed = kHeads;
  } else if (args[0] == "patch") {
    o.command = CliCommand::patch;
    allowed = kPatch;
  } else if (args[0] == "generate") {
    o.command = CliCommand::generate;
    allowed = kGenerate;
  } else if (args[0] == "translate") {
    o.command = CliCommand::translate;
    allowed = kTranslate;
  } else if (args[0] == "sentences") {
    if (args.size() < 2 || args[1] != "coref")
      return make_error("sentences needs a demo name: 'sentences coref' (the coreference demo's sentences, one a line)");
    o.command = CliCommand::sentences;
    allowed = kSentences;
    first_flag = 2;
  } else {
    return make_error("unknown command '" + args[0] + "' (try 'attnviz-cli --help')");
  }
  for (size_t i = first_flag; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.command = CliCommand::help;
      return o;
    }
    if (a.rfind("--", 0) != 0) return make_error("unexpected argument '" + a + "' (flags start with --)");
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const Flag* f = find_flag(name);
    if (!f) return make_error("unknown flag --" + name + " (try 'attnviz-cli --help')");
    if (!(f->commands & allowed)) return make_error("--" + name + " does not apply to '" + args[0] + "'");
    if (f->arg) {
      if (!inline_value) {
        if (i + 1 >= args.size()) return make_error("--" + name + " needs a value (" + f->arg + ")");
        value = args[++i];
      }
    } else if (inline_value) {
      return make_error("--" + name + " takes no value");
    }
    if (Status s = f->set(o, value); !s) return make_error(s.error());
    o.given.insert(name);
  }
  if (Status s = check_combination(o); !s) return make_error(s.error());
  return o;
}

// The messages quote what was typed; a newline or escape byte inside an argument must neither
// break the one-line promise nor reach the terminal raw, so control bytes are shown as \xNN.
std::string message_one_line(const std::string& message) {
  std::string out;
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[u >> 4];
    out += kHex[u & 15];
  }
  return out;
}

}  // namespace

Result<CliOptions> cli_parse(const std::vector<std::string>& args) {
  auto o = parse_args(args);
  if (!o) return make_error(message_one_line(o.error()));
  return o;
}

std::string cli_help() {
  std::ostringstream out;
  out << "attnviz-cli — every intermediate of multi-head attention, for one sentence, from the command line\n\n"
         "usage: attnviz-cli attention (--text TEXT | --input-npy FILE) [options]\n"
         "       attnviz-cli attention --attention FILE [--cross] [--json FILE] [--csv FILE --layer L --head H]\n"
         "                             [--png|--svg FILE --layer L] [--measure weights|rollout]\n"
         "       attnviz-cli train coref --out DIR [--seed S] [--heads NH] [--d-model C] [--layers L] [--ffn F] [--score K]\n"
         "                               [--norm post|pre] [--positions P] [--steps N] [--lr LR] [--batch N]\n                               [--eval-every N]\n"
         "       attnviz-cli train induction --out DIR [--seed S] [--heads NH] [--d-model C] [--layers L] [--ffn F]\n"
         "                               [--score K] [--norm post|pre] [--positions P] [--steps N] [--lr LR] [--batch N]\n"
         "                               [--eval-every N]\n"
         "       attnviz-cli train gather --out DIR [--seed S] [--heads NH] [the architecture and training flags above]\n"
         "       attnviz-cli train translate --out DIR [--seed S] [--heads NH] [--d-model C] [--layers L] [--ffn F]\n"
         "                               [--score K] [--norm post|pre] [--bottleneck] [--steps N] [--lr LR] [--batch N]\n"
         "                               [--eval-every N]\n"
         "       attnviz-cli train pair [--seeds 1-10] [--heads NH] [--json FILE] [the architecture and training flags]\n"
         "       attnviz-cli predict --model PATH --text TEXT [--ablate L:H,...] [--ablation zero|mean] [--top-k K]\n"
         "                           [--json FILE]\n"
         "       attnviz-cli heads --model PATH (--text TEXT | --set FILE) --importance [--ablation zero|mean] [--json FILE]\n"
         "       attnviz-cli heads --model PATH --text TEXT --logit-attribution [--answer TOK --wrong TOK] [--json FILE]\n"
         "       attnviz-cli patch --model PATH --clean TEXT --corrupt TEXT [--answer TOK --wrong TOK] [--by head|position]\n"
         "                         [--json FILE]\n"
         "       attnviz-cli generate --model PATH --text PROMPT [--tokens N] [--temperature TAU] [--top-k K] [--seed S]\n"
         "                            [--json FILE]\n"
         "       attnviz-cli translate --model demo:translate --text TEXT [--json FILE]\n"
         "       attnviz-cli sentences coref [--split heldout|train] [--out FILE]\n"
         "       attnviz-cli --version [--verbose]\n\n"
         "Without an output flag it prints the tokens and each head's statistics. Layers and heads count from 0.\n"
         "Exit status: 0 done, 1 a file could not be read or written or the input was rejected, 2 usage error.\n\n"
         "options:\n";
  for (const Flag& f : flags()) {
    std::ostringstream left;
    left << "  --" << f.name;
    if (f.arg) left << " " << f.arg;
    const std::string flag = left.str();
    out << std::left << std::setw(34) << flag;
    if (flag.size() >= 34) out << "\n" << std::setw(34) << "";
    out << f.help << "\n";
  }
  out << "  --help                          this text\n"
         "  --version [--verbose]           print the version (verbose: where the shipped demos are, and their names)\n\n"
         "examples:\n"
         "  attnviz-cli attention --text \"The animal didn't cross the street because it was too tired.\"\n"
         "  attnviz-cli attention --text \"The cat sat on the mat\" --heads 4 --d-model 64 --mask causal --png heads.png --layer 0\n"
         "  attnviz-cli predict --model demo:coref --text \"The animal didn't cross the street because it was too tired.\"\n"
         "  attnviz-cli attention --weights model.safetensors --text \"...\" --json trace.json\n"
         "  attnviz-cli attention --attention attention.safetensors --png layer0.png --layer 0\n";
  return out.str();
}

}  // namespace attnviz
