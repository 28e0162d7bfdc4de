// config.json parsing and the GPT-2 / BERT tensor-name maps.
#include "io/hf_checkpoint.h"

#include "io/json.h"
#include "io/model_file.h"
#include "io/tensor_copies.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iterator>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace attnviz {

namespace {

using json = nlohmann::json;

// Reads config.json keys, null or absent meaning "the family's default". The first wrong type is
// kept in `error` (naming the key and what it must be); later keys then read as their defaults.
struct ConfigReader {
  const json& j;
  std::string error;

  int integer(const char* key, int fallback) {
    const auto v = get<int64_t>(key, "a non-negative whole number", [](const json& x) {
      return x.is_number_integer() && x.get<int64_t>() >= 0 && x.get<int64_t>() <= (int64_t{1} << 30);
    });
    return v ? static_cast<int>(*v) : fallback;
  }
  float number(const char* key, float fallback) {
    return get<float>(key, "a number", [](const json& x) { return x.is_number(); }).value_or(fallback);
  }
  std::string text(const char* key, const std::string& fallback) {
    return get<std::string>(key, "a string", [](const json& x) { return x.is_string(); }).value_or(fallback);
  }
  bool flag(const char* key, bool fallback) {
    return get<bool>(key, "true or false", [](const json& x) { return x.is_boolean(); }).value_or(fallback);
  }

 private:
  // The value of `key` when present, non-null and accepted by `fits`; otherwise nullopt (and the
  // error "'key' must be <must_be>" when present but not fitting).
  template <class T, class Fits>
  std::optional<T> get(const char* key, const char* must_be, Fits fits) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!fits(*it)) {
      if (error.empty()) error = std::string("config.json: '") + key + "' must be " + must_be;
      return std::nullopt;
    }
    return it->get<T>();
  }
};

// Hugging Face's activation names; "gelu_fast" and friends are other approximations, not supported.
std::optional<Activation> activation_from_hf(const std::string& name) {
  if (name == "gelu") return Activation::gelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::gelu_tanh;
  if (name == "relu") return Activation::relu;
  return std::nullopt;
}

Result<CheckpointFamily> family_of(const json& j) {
  if (auto it = j.find("model_type"); it != j.end() && it->is_string()) {
    const auto& t = it->get_ref<const std::string&>();
    if (t == "gpt2") return CheckpointFamily::gpt2;
    if (t == "bert") return CheckpointFamily::bert;
    return make_error("config.json: model_type '" + t + "' is not supported (attnviz opens GPT-2 and BERT checkpoints)");
  }
  if (auto it = j.find("architectures"); it != j.end() && it->is_array())
    for (const auto& a : *it)
      if (a.is_string()) {
        const auto& name = a.get_ref<const std::string&>();
        if (name.rfind("GPT2", 0) == 0) return CheckpointFamily::gpt2;
        if (name.rfind("Bert", 0) == 0) return CheckpointFamily::bert;
      }
  return make_error("config.json names no model_type (expected \"gpt2\" or \"bert\")");
}

// The activation named by `key` (the families spell it differently), or an error naming the value.
Status read_activation(ConfigReader& r, const char* key, const char* fallback, Activation& out) {
  const std::string act = r.text(key, fallback);
  auto a = activation_from_hf(act);
  if (!a) return make_error(std::string("config.json: ") + key + " '" + act + "' is not supported (gelu, gelu_new, relu)");
  out = *a;
  return Ok{};
}

struct SizeKey {
  const char* name;
  int fallback;  // the family's published default
};

// The sizes every family has, under each family's own config.json names.
void read_sizes(ConfigReader& r, ModelConfig& c, SizeKey d_model, SizeKey n_heads, SizeKey n_layers,
                SizeKey max_positions) {
  c.d_model = r.integer(d_model.name, d_model.fallback);
  c.n_heads = r.integer(n_heads.name, n_heads.fallback);
  c.n_layers = r.integer(n_layers.name, n_layers.fallback);
  c.max_positions = r.integer(max_positions.name, max_positions.fallback);
}

Status fill_gpt2(ConfigReader& r, HfConfig& out) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"n_embd", 768}, {"n_head", 12}, {"n_layer", 12}, {"n_positions", 1024});
  c.d_ff = r.integer("n_inner", 4 * c.d_model);
  c.ln_eps = r.number("layer_norm_epsilon", 1e-5f);
  out.vocab_size = r.integer("vocab_size", 50257);
  if (!r.flag("scale_attn_weights", true))
    return make_error("config.json: GPT-2 without attention scaling (scale_attn_weights false) is not supported");
  if (r.flag("scale_attn_by_inverse_layer_idx", false))
    return make_error("config.json: GPT-2 with attention scaled by layer index is not supported");
  if (Status s = read_activation(r, "activation_function", "gelu_new", c.activation); !s) return s;
  c.norm = NormPlacement::pre;
  c.positions = PositionEncoding::learned;
  c.final_norm = true;
  c.causal = true;
  return Ok{};
}

Status fill_bert(ConfigReader& r, HfConfig& out) {
  ModelConfig& c = out.config;
  read_sizes(r, c, {"hidden_size", 768}, {"num_attention_heads", 12}, {"num_hidden_layers", 12},
             {"max_position_embeddings", 512});
  c.d_ff = r.integer("intermediate_size", 3072);
  c.type_vocab = r.integer("type_vocab_size", 2);
  c.ln_eps = r.number("layer_norm_eps", 1e-12f);
  out.vocab_size = r.integer("vocab_size", 30522);
  const std::string pos = r.text("position_embedding_type", "absolute");
  if (pos != "absolute")
    return make_error("config.json: position_embedding_type '" + pos + "' is not supported (only absolute)");
  if (Status s = read_activation(r, "hidden_act", "gelu", c.activation); !s) return s;
  c.norm = NormPlacement::post;
  c.positions = PositionEncoding::learned;
  c.embed_norm = true;
  return Ok{};
}

// Takes tensors out of the file by name, each at most once. Taking a tensor checks that it exists
// and has the expected shape, sizes its destination and only plans the copy; error() (or check_tied)
// then converts every planned tensor straight into its destination, checks its values are finite
// and releases its memory. Destinations must stay in place until then.
//
// The tensors are independent, so they are converted in parallel (OpenMP): each destination is
// written by one thread only, so the weights are the same bit for bit whatever the thread count.
// The first error in the order of taking wins, as if the tensors had been converted one by one.
class TensorTaker {
 public:
  TensorTaker(TensorFile& file, std::string prefix, const std::function<void(float)>& progress, int expected)
      : file_(file), prefix_(std::move(prefix)), progress_(progress), expected_(expected) {
    for (size_t i = 0; i < file_.tensors.size(); ++i) index_.emplace(file_.tensors[i].name, i);
  }
  // Converts what is planned, then gives the first error so far ("" when none).
  const std::string& error() {
    run();
    return error_.message;
  }
  void fail(const std::string& message) { error_.keep(planned(), message); }

  // Names of the base model get the prefix ("bert.encoder..."); `top` names the heads on top of
  // it, which sit outside it ("cls.predictions.bias", "lm_head.weight").
  enum class Where { base, top };
  bool has(const std::string& name, Where where = Where::base) const { return index_.count(full(name, where)) > 0; }

  // `transposed`: the file stores the (cols, rows) transpose of the wanted matrix.
  void mat(const std::string& name, int64_t rows, int64_t cols, Mat& out, bool transposed = false, Where where = Where::base) {
    Tensor* t = find(full(name, where));
    if (!t) return;
    if (Status s = transposed ? tensor_check_mat(*t, cols, rows) : tensor_check_mat(*t, rows, cols); !s) return fail(s.error());
    out.resize(rows, cols);
    plan(*t, out.data(), transposed);
  }
  // Rows [first_row, first_row + rows) of `out`, which already has cols columns (rows of a
  // row-major matrix are one contiguous block).
  void rows_of(const std::string& name, int64_t rows, int64_t cols, Mat& out, int64_t first_row) {
    Tensor* t = find(full(name, Where::base));
    if (!t) return;
    if (Status s = tensor_check_mat(*t, rows, cols); !s) return fail(s.error());
    plan(*t, out.row(first_row).data(), false);
  }
  void vec(const std::string& name, int64_t len, Vec& out, Where where = Where::base) {
    Tensor* t = find(full(name, where));
    if (!t) return;
    if (Status s = tensor_check_vec(*t, len); !s) return fail(s.error());
    out.resize(len);
    plan(*t, out.data(), false);
  }
  // Values [first, first + len) of `out`, which is already sized.
  void segment_of(const std::string& name, int64_t len, Vec& out, int64_t first) {
    Tensor* t = find(full(name, Where::base));
    if (!t) return;
    if (Status s = tensor_check_vec(*t, len); !s) return fail(s.error());
    plan(*t, out.data() + first, false);
  }

 private:
  // The error that comes first in the order of taking: `at` counts the tensors planned before it.
  struct FirstError {
    size_t at = 0;
    std::string message;
    void keep(size_t when, const std::string& text) {
      if (message.empty() || when < at) at = when, message = text;
    }
  };

  size_t planned() const { return ran_ + copies_.size(); }
  std::string full(const std::string& name, Where where) const { return where == Where::base ? prefix_ + name : name; }
  // Nothing more is taken after an error in planning, as nothing was read after the first error.
  Tensor* find(const std::string& name) {
    if (!error_.message.empty()) return nullptr;
    auto it = index_.find(name);
    if (it == index_.end()) {
      fail("the checkpoint has no tensor '" + name + "'");
      return nullptr;
    }
    return &file_.tensors[it->second];
  }
  void plan(Tensor& t, float* out, bool transposed) { copies_.push_back({&t, out, transposed}); }

  // Converts the planned copies, each thread taking the next one in order when it is free. Progress
  // is reported from the calling thread only (an OpenMP team's thread 0), as callers expect.
  void run() {
    if (copies_.empty()) return;
    std::atomic<int> done{done_};
    const std::vector<char> finite = tensor_copies_run(copies_, [&](size_t i) {
      // The copies point into file_, which is ours to release from.
      tensor_release(file_.tensors[static_cast<size_t>(copies_[i].tensor - file_.tensors.data())]);
      const int now = ++done;
      if (omp_get_thread_num() == 0) report(now);
    });
    done_ = done.load();
    report(done_);
    for (size_t i = 0; i < copies_.size(); ++i)
      if (!finite[i]) error_.keep(ran_ + i, "tensor '" + copies_[i].tensor->name + "' contains NaN or infinite values");
    ran_ += copies_.size();
    copies_.clear();
  }
  void report(int done) const {
    if (progress_ && expected_ > 0) progress_(static_cast<float>(done) / static_cast<float>(expected_));
  }

  TensorFile& file_;
  std::string prefix_;
  const std::function<void(float)>& progress_;
  int expected_ = 0, done_ = 0;
  std::unordered_map<std::string, size_t> index_;
  std::vector<TensorCopy> copies_;  // planned, not yet converted (tensors of file_)
  size_t ran_ = 0;            // copies converted so far
  FirstError error_;
};

// "transformer." / "bert." when the checkpoint was saved from a model with a head on top.
std::string prefix_for(const TensorFile& file, const std::string& probe, const std::string& prefixed) {
  return file.find(probe) ? "" : file.find(prefixed + probe) ? prefixed : "";
}

void layer_norm_from(TensorTaker& take, const std::string& name, int C, Vec& w, Vec& b) {
  take.vec(name + ".weight", C, w);
  take.vec(name + ".bias", C, b);
}

void load_gpt2(TensorTaker& take, const ModelConfig& c, int vocab, ModelWeights& w) {
  const int C = c.d_model, F = c.d_ff;
  take.mat("wte.weight", vocab, C, w.tok_embed);
  take.mat("wpe.weight", c.max_positions, C, w.pos_embed);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    layer_norm_from(take, p + "ln_1", C, L.norm1_w, L.norm1_b);
    // Conv1D stores (in, out): y = x W + b. The engine wants nn.Linear's (out, in).
    take.mat(p + "attn.c_attn.weight", 3 * C, C, L.attn.in_proj_w, true);
    take.vec(p + "attn.c_attn.bias", 3 * C, L.attn.in_proj_b);
    take.mat(p + "attn.c_proj.weight", C, C, L.attn.out_w, true);
    take.vec(p + "attn.c_proj.bias", C, L.attn.out_b);
    layer_norm_from(take, p + "ln_2", C, L.norm2_w, L.norm2_b);
    take.mat(p + "mlp.c_fc.weight", F, C, L.ff1_w, true);
    take.vec(p + "mlp.c_fc.bias", F, L.ff1_b);
    take.mat(p + "mlp.c_proj.weight", C, F, L.ff2_w, true);
    take.vec(p + "mlp.c_proj.bias", C, L.ff2_b);
  }
  layer_norm_from(take, "ln_f", C, w.final_norm_w, w.final_norm_b);
}

void load_bert(TensorTaker& take, const ModelConfig& c, int vocab, ModelWeights& w) {
  const int C = c.d_model, F = c.d_ff;
  take.mat("embeddings.word_embeddings.weight", vocab, C, w.tok_embed);
  take.mat("embeddings.position_embeddings.weight", c.max_positions, C, w.pos_embed);
  take.mat("embeddings.token_type_embeddings.weight", c.type_vocab, C, w.type_embed);
  layer_norm_from(take, "embeddings.LayerNorm", C, w.embed_norm_w, w.embed_norm_b);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    LayerWeights& L = w.layers[static_cast<size_t>(i)];
    // query, key and value stacked in that order: the engine's in_proj (PyTorch's in_proj_weight),
    // each converted straight into its block.
    L.attn.in_proj_w.resize(3 * C, C);
    L.attn.in_proj_b.resize(3 * C);
    const char* parts[] = {"query", "key", "value"};
    for (int k = 0; k < 3; ++k) {
      const std::string name = p + "attention.self." + parts[k];
      take.rows_of(name + ".weight", C, C, L.attn.in_proj_w, k * C);
      take.segment_of(name + ".bias", C, L.attn.in_proj_b, k * C);
    }
    take.mat(p + "attention.output.dense.weight", C, C, L.attn.out_w);
    take.vec(p + "attention.output.dense.bias", C, L.attn.out_b);
    layer_norm_from(take, p + "attention.output.LayerNorm", C, L.norm1_w, L.norm1_b);
    take.mat(p + "intermediate.dense.weight", F, C, L.ff1_w);
    take.vec(p + "intermediate.dense.bias", F, L.ff1_b);
    take.mat(p + "output.dense.weight", C, F, L.ff2_w);
    take.vec(p + "output.dense.bias", C, L.ff2_b);
    layer_norm_from(take, p + "output.LayerNorm", C, L.norm2_w, L.norm2_b);
  }
}

// BERT's masked-LM head (BertForMaskedLM, BertForPreTraining): cls.predictions.transform is dense,
// hidden_act, LayerNorm with layer_norm_eps (the model's own activation and eps); the decoder is
// tied to the word embeddings and its bias is cls.predictions.bias. These names sit outside the
// "bert." prefix. Safetensors drops tied duplicates, so decoder.weight / decoder.bias are usually
// absent; a file that keeps them must hold the tied values, the only layout supported.
constexpr const char* kMlmDenseW = "cls.predictions.transform.dense.weight";
constexpr const char* kMlmDenseB = "cls.predictions.transform.dense.bias";
constexpr const char* kMlmNormW = "cls.predictions.transform.LayerNorm.weight";
constexpr const char* kMlmNormB = "cls.predictions.transform.LayerNorm.bias";
constexpr const char* kMlmBias = "cls.predictions.bias";
constexpr const char* kMlmDecoderW = "cls.predictions.decoder.weight";
constexpr const char* kMlmDecoderB = "cls.predictions.decoder.bias";
constexpr const char* kMlmNames[] = {kMlmDenseW, kMlmDenseB, kMlmNormW, kMlmNormB, kMlmBias, kMlmDecoderW, kMlmDecoderB};

// Tensors of the output head the file holds (for the progress count): BERT's masked-LM head,
// GPT-2's lm_head.
int head_tensors(const TensorFile& file, bool gpt2) {
  if (gpt2) return file.find("lm_head.weight") ? 1 : 0;
  int n = 0;
  for (const char* name : kMlmNames) n += file.find(name) ? 1 : 0;
  return n;
}

// A head's copy of a tied tensor must be that tensor, value for value. Both are converted first
// (take.error() runs what is planned), so `copy` may be a local the caller took just before.
template <class M>
void check_tied(TensorTaker& take, const M& copy, const std::string& copy_name, const M& tied,
                const std::string& tied_name, const std::string& why) {
  if (!take.error().empty() || (copy.rows() == tied.rows() && copy.cols() == tied.cols() && copy == tied)) return;
  take.fail("tensor '" + copy_name + "' differs from '" + tied_name + "': " + why);
}

void load_bert_mlm_head(TensorTaker& take, const std::string& prefix, const ModelConfig& c, int vocab, ModelWeights& w) {
  constexpr auto top = TensorTaker::Where::top;
  if (std::none_of(std::begin(kMlmNames), std::end(kMlmNames), [&](const char* n) { return take.has(n, top); }))
    return;  // an encoder without its head: still a model, it answers nothing
  // Half a head is a damaged file, not an encoder: name the first missing tensor. The bias may be
  // kept under either of its tied names.
  const bool has_bias = take.has(kMlmBias, top);
  for (const char* name : {kMlmDenseW, kMlmDenseB, kMlmNormW, kMlmNormB, kMlmBias})
    if (!take.has(name, top) && !(std::string_view(name) == kMlmBias && take.has(kMlmDecoderB, top)))
      return take.fail(std::string("the masked-LM head is incomplete: the checkpoint has no tensor '") + name + "'");
  const int C = c.d_model;
  take.mat(kMlmDenseW, C, C, w.mlm_dense_w, false, top);
  take.vec(kMlmDenseB, C, w.mlm_dense_b, top);
  take.vec(kMlmNormW, C, w.mlm_norm_w, top);
  take.vec(kMlmNormB, C, w.mlm_norm_b, top);
  if (has_bias) take.vec(kMlmBias, vocab, w.output_b, top);
  if (take.has(kMlmDecoderB, top)) {
    if (!has_bias) {
      take.vec(kMlmDecoderB, vocab, w.output_b, top);  // the bias kept under its other tied name only
    } else {
      Vec decoder_b;
      take.vec(kMlmDecoderB, vocab, decoder_b, top);
      check_tied(take, decoder_b, kMlmDecoderB, w.output_b, kMlmBias,
                 "the decoder's bias must be the head's bias (Hugging Face ties them)");
    }
  }
  if (take.has(kMlmDecoderW, top)) {
    Mat decoder_w;
    take.mat(kMlmDecoderW, vocab, C, decoder_w, false, top);
    check_tied(take, decoder_w, kMlmDecoderW, w.tok_embed, prefix + "embeddings.word_embeddings.weight",
               "attnviz reads only a decoder tied to the word embeddings");
  }
}

// GPT2LMHeadModel's lm_head is tied to wte (and usually absent from safetensors); a file that keeps
// it must hold wte's values, since the engine scores tokens with tok_embed.
void check_gpt2_lm_head(TensorTaker& take, const std::string& prefix, const ModelConfig& c, int vocab,
                        const ModelWeights& w) {
  if (!take.has("lm_head.weight", TensorTaker::Where::top)) return;
  Mat lm_head;
  take.mat("lm_head.weight", vocab, c.d_model, lm_head, false, TensorTaker::Where::top);
  check_tied(take, lm_head, "lm_head.weight", w.tok_embed, prefix + "wte.weight",
             "attnviz reads only an lm_head tied to the token embeddings");
}

}  // namespace

std::string_view name_of(CheckpointFamily family) { return family == CheckpointFamily::gpt2 ? "gpt2" : "bert"; }

Result<HfConfig> hf_config_parse(std::string_view config_json) {
  auto parsed = json_parse_strict(config_json, "config.json");
  if (!parsed) return make_error(parsed.error());
  const json& j = *parsed;
  if (!j.is_object()) return make_error("config.json is not a JSON object");
  auto family = family_of(j);
  if (!family) return make_error(family.error());
  HfConfig out;
  out.family = *family;
  ConfigReader r{j, {}};
  Status filled = out.family == CheckpointFamily::gpt2 ? fill_gpt2(r, out) : fill_bert(r, out);
  if (!r.error.empty()) return make_error(r.error);
  if (!filled) return make_error(filled.error());
  if (out.vocab_size < 1 || out.vocab_size > (1 << 22))
    return make_error("config.json: vocab_size must be between 1 and " + std::to_string(1 << 22));
  if (Status s = config_validate(out.config); !s) return make_error("config.json: " + s.error());
  return out;
}

Result<Model> hf_model_from_tensors(TensorFile file, const HfConfig& hf, const std::function<void(float)>& progress) {
  const ModelConfig& c = hf.config;
  const bool gpt2 = hf.family == CheckpointFamily::gpt2;
  const std::string probe = gpt2 ? "wte.weight" : "embeddings.word_embeddings.weight";
  const std::string prefix = prefix_for(file, probe, gpt2 ? "transformer." : "bert.");
  // Weight tensors per layer (GPT-2: 12, BERT: 16) plus the embeddings and final norm, plus the
  // output head's tensors the file holds.
  const int expected = (gpt2 ? 12 * c.n_layers + 4 : 16 * c.n_layers + 5) + head_tensors(file, gpt2);
  Model model;
  model.config = c;
  model.source = std::string(name_of(hf.family)) + " checkpoint";
  model.weights.layers.resize(static_cast<size_t>(c.n_layers));
  TensorTaker take(file, prefix, progress, expected);
  if (gpt2) {
    load_gpt2(take, c, hf.vocab_size, model.weights);
    check_gpt2_lm_head(take, prefix, c, hf.vocab_size, model.weights);
  } else {
    load_bert(take, c, hf.vocab_size, model.weights);
    load_bert_mlm_head(take, prefix, c, hf.vocab_size, model.weights);
  }
  if (!take.error().empty()) return make_error(take.error());
  // The general/additive scoring functions have no checkpoint weights: seeded random blocks, made
  // only when the config asks for one (model_ensure_score_parameters after a change of score).
  model_ensure_score_parameters(model, kMissingScoreSeed);
  return model;
}

}  // namespace attnviz
