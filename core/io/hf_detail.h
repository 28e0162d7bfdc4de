// What every checkpoint family's file (core/io/hf_*.cpp) shares: reading config.json keys with the
// family's defaults, taking tensors out of the file by name into the engine's matrices, and the
// table of families. Internal to core/io: the public interface is io/hf_checkpoint.h.
#pragma once
#include <omp.h>

#include <atomic>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/hf_checkpoint.h"
#include "io/tensor_copies.h"

namespace attnviz {

namespace hf {

using json = nlohmann::json;

// How attnviz treats one config.json key of a family. Each family's file holds its table (and the
// Llama-shaped decoders share one); hf_checkpoint.cpp holds the keys every transformers config has.
// A key in no table is refused by name: a key attnviz does not know might change the numbers.
enum class KeyUse {
  read,      // the family's fill reads it
  harmless,  // changes nothing at inference whatever its value (dropout, token ids, labels, ...)
  only,      // harmless at `value` (or null); any other value changes the model in a way attnviz
             // does not follow, and is refused naming the key and the value
};
struct ConfigKey {
  const char* name;
  KeyUse use;
  const char* value = nullptr;  // only: the value accepted, as JSON ("false", "null", "\"absolute\"")
  const char* means = nullptr;  // only: what that value means, for the message
};
using ConfigKeys = std::span<const ConfigKey>;

struct Family;
// Whether `key` is one `family`'s tables list as read.
bool family_reads(const Family& family, std::string_view key);

// Reads config.json keys, null or absent meaning "the family's default". The first wrong type is
// kept in `error` (naming the key and what it must be); later keys then read as their defaults.
// With `family` set, reading a key its tables do not list as read is an error too: the tables and
// the fill functions cannot drift apart unnoticed.
struct ConfigReader {
  const json& j;
  std::string error;
  std::string where = "config.json";  // how messages name the object read
  const Family* family = nullptr;

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
    if (family && !family_reads(*family, key) && error.empty())
      error = where + ": attnviz reads '" + key + "' but its table of keys does not list it";
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::nullopt;
    if (!fits(*it)) {
      if (error.empty()) error = where + ": '" + key + "' must be " + must_be;
      return std::nullopt;
    }
    return it->get<T>();
  }
};

// The activation named by `key` (the families spell it differently), or an error naming the value.
Status read_activation(ConfigReader& r, const char* key, const char* fallback, Activation& out);

struct SizeKey {
  const char* name;
  int fallback;  // the family's published default
};

// The sizes every family has, under each family's own config.json names.
void read_sizes(ConfigReader& r, ModelConfig& c, SizeKey d_model, SizeKey n_heads, SizeKey n_layers,
                SizeKey max_positions);

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
  const TensorFile& file() const { return file_; }

  // Names of the base model get the prefix ("bert.encoder..."); `top` names the heads on top of
  // it, which sit outside it ("cls.predictions.bias", "lm_head.weight").
  enum class Where { base, top };
  bool has(const std::string& name, Where where = Where::base) const { return index_.count(full(name, where)) > 0; }

  // `transposed`: the file stores the (cols, rows) transpose of the wanted matrix.
  void mat(const std::string& name, int64_t rows, int64_t cols, WeightMat& out, bool transposed = false,
           Where where = Where::base) {
    Tensor* t = find(full(name, where));
    if (!t) return;
    if (Status s = transposed ? tensor_check_mat(*t, cols, rows) : tensor_check_mat(*t, rows, cols); !s) return fail(s.error());
    copies_.push_back(weight_plan(*t, rows, cols, transposed, out));
  }
  // Rows [first_row, first_row + rows) of `out`, which already has cols columns (rows of a
  // row-major matrix are one contiguous block).
  void rows_of(const std::string& name, int64_t rows, int64_t cols, WeightMat& out, int64_t first_row) {
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
      // The copies point into file_, which is ours to release from; a weight read in place keeps its pages.
      if (!copies_[i].in_place)
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
std::string prefix_for(const TensorFile& file, const std::string& probe, const std::string& prefixed);

void layer_norm_from(TensorTaker& take, const std::string& name, int C, Vec& w, Vec& b);
// An nn.Linear's name.weight (out, in) and name.bias (out).
void linear_from(TensorTaker& take, const std::string& name, int out, int in, WeightMat& w, Vec& b);

// A head's copy of a tied tensor must be that tensor, value for value. Both are converted first
// (take.error() runs what is planned), so `copy` may be a local the caller took just before.
template <class M>
void check_tied(TensorTaker& take, const M& copy, const std::string& copy_name, const M& tied,
                const std::string& tied_name, const std::string& why) {
  if (!take.error().empty() || (copy.rows() == tied.rows() && copy.cols() == tied.cols() && copy == tied)) return;
  take.fail("tensor '" + copy_name + "' differs from '" + tied_name + "': " + why);
}

// An output head that tie_word_embeddings says is the head's own (untied) must be in the file:
// transformers would make random weights for it, which no numbers here could match.
inline void require_untied_head(TensorTaker& take, const std::string& name) {
  if (!take.has(name, TensorTaker::Where::top))
    take.fail("tie_word_embeddings is false but the checkpoint has no tensor '" + name +
              "' (an output head not tied to the token embeddings needs its own weights)");
}

// One checkpoint family: how config.json names it, how its files are recognised, the keys its
// config.json may hold, and the two functions that map its config and its tensors onto the engine's
// model.
struct Family {
  CheckpointFamily family;
  const char* model_type;           // config.json's "model_type"
  const char* architecture_prefix;  // an "architectures" entry starting with this names the family
  const char* probe;                // a tensor every file of the family has (without the prefix)
  const char* prefix;               // what a model with a head on top puts before the base's names
  Status (*fill)(ConfigReader& r, HfConfig& out);
  // Plans every tensor (and checks what the heads hold); `prefix` is the file's own.
  void (*load)(TensorTaker& take, const HfConfig& config, const std::string& prefix, ModelWeights& w);
  // The tensors load takes from this file (for the progress count).
  int (*tensor_count)(const HfConfig& config, const TensorFile& file);
  const char* config_class;  // transformers' class whose keys the tables follow ("LlamaConfig")
  ConfigKeys keys;           // the family's own keys, looked up first
  ConfigKeys shared_keys;    // its group's (BERT's for RoBERTa, the Llama-shaped decoders'), then
                             // the keys every config has
};

// A value from config.json for a message: a string in quotes, anything else as JSON, kept short.
std::string shown(const json& value);

// Every key of config.json is in one of the family's tables (the first table that lists it
// decides); an unknown key, or an `only` key at another value, is an error naming it.
Status config_keys_check(const json& j, const Family& family);

// The families of hf_gpt2_bert.cpp (gpt2, bert, roberta, distilbert) and hf_llama_neox.cpp (llama,
// mistral, qwen2, gpt_neox).
const Family& family_gpt2();
const Family& family_bert();
const Family& family_roberta();
const Family& family_distilbert();
const Family& family_llama();
const Family& family_mistral();
const Family& family_qwen2();
const Family& family_gpt_neox();

}  // namespace hf

}  // namespace attnviz
