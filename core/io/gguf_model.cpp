// GGUF to engine model: the metadata keys checked against the family's table, the config filled, the
// tensors decoded row by row (Q and K of a llama model put back in Hugging Face's row order) and the
// tokenizer built; then the shapes and values checked as every other model's are.
#include "io/gguf_model.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "base/memory_available.h"
#include "io/gguf_detail.h"
#include "io/gguf_tokenizer.h"

namespace attnviz {

namespace gguf {

namespace {

std::string shape_text(const std::vector<int64_t>& ne) {
  std::string s = "[";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "]";
}

// tokenizer.ggml.* keys: read by io/gguf_tokenizer.cpp, or ids and flags only chat and infill use.
constexpr std::string_view kTokenizerRead[] = {"model",          "pre",          "tokens",           "scores",
                                               "token_type",     "merges",       "bos_token_id",     "eos_token_id",
                                               "unknown_token_id", "padding_token_id", "add_bos_token", "add_eos_token",
                                               "add_space_prefix"};
constexpr std::string_view kTokenizerHarmless[] = {
    "eot_token_id",     "eom_token_id",     "seperator_token_id", "separator_token_id", "cls_token_id",
    "mask_token_id",    "prefix_token_id",  "suffix_token_id",    "middle_token_id",    "fim_pre_token_id",
    "fim_suf_token_id", "fim_mid_token_id", "fim_pad_token_id",   "fim_rep_token_id",   "fim_sep_token_id",
    "add_sep_token",    "token_type_count",
    // The SentencePiece model's normaliser table: llama.cpp's "llama" tokenizer does not apply it.
    "precompiled_charsmap"};

bool in(std::span<const std::string_view> names, std::string_view key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

}  // namespace

bool ArchReader::listed(std::string_view key) {
  const auto it = std::find_if(keys.begin(), keys.end(), [&](const ArchKey& k) { return key == k.name; });
  if (it == keys.end() || it->use != KeyUse::read) {
    fail("attnviz reads '" + arch + "." + std::string(key) + "' but the " + arch + " table of keys does not list it");
    return false;
  }
  return true;
}

int64_t ArchReader::integer(std::string_view key, int64_t fallback, int64_t max) {
  if (!listed(key) || !has(key)) return fallback;
  const std::string full = arch + "." + std::string(key);
  auto v = file.int_value(full);
  if (!v) return fail(v.error()), fallback;
  if (*v < 0 || *v > max) return fail("GGUF metadata '" + full + "' is " + std::to_string(*v) + ", outside 0.." + std::to_string(max)), fallback;
  return *v;
}

int64_t ArchReader::required(std::string_view key, int64_t max) {
  if (listed(key) && !has(key)) fail("the file has no '" + arch + "." + std::string(key) + "', which a " + arch + " model needs");
  return integer(key, 0, max);
}

double ArchReader::number(std::string_view key, double fallback) {
  if (!listed(key) || !has(key)) return fallback;
  auto v = file.float_value(arch + "." + std::string(key));
  if (!v) return fail(v.error()), fallback;
  return *v;
}

std::string ArchReader::text(std::string_view key, const std::string& fallback) {
  if (!listed(key) || !has(key)) return fallback;
  auto v = file.string_value(arch + "." + std::string(key));
  if (!v) return fail(v.error()), fallback;
  return *v;
}

Status metadata_keys_check(const GgufFile& file, const std::string& arch, std::span<const ArchKey> keys) {
  const std::string own = arch + ".";
  for (const auto& [key, value] : file.metadata) {
    if (key.starts_with("general.") || key.starts_with("quantize.") || key.starts_with("tokenizer.chat_template"))
      continue;
    if (key.starts_with("tokenizer.ggml.")) {
      const std::string_view rest = std::string_view(key).substr(15);
      if (in(kTokenizerRead, rest) || in(kTokenizerHarmless, rest)) continue;
      if (rest == "remove_extra_whitespaces") {
        if (auto b = file.bool_value(key); b && !*b) continue;
        return make_error("GGUF metadata '" + key + "' is not false: collapsing spaces is not supported");
      }
      return make_error("GGUF metadata '" + key + "' is not a tokenizer key attnviz knows");
    }
    if (key == "split.count") {
      const auto* n = std::get_if<int64_t>(&value.value);
      if (n && *n <= 1) continue;
      return make_error("the file is one part of a model split over several files (split.count): attnviz opens "
                        "single-file models; join the parts with llama.cpp's llama-gguf-split --merge");
    }
    if (key == "split.no" || key == "split.tensors.count") continue;
    // A vision encoder and its projector stored with the language model (Ollama's Gemma 3): the
    // language model attnviz shows reads none of it (gguf_vision_tensor).
    if (key.starts_with(own + "vision.") || key.starts_with(own + "mm.")) continue;
    if (key.starts_with(own)) {
      const std::string_view rest = std::string_view(key).substr(own.size());
      const auto it = std::find_if(keys.begin(), keys.end(), [&](const ArchKey& k) { return rest == k.name; });
      if (it == keys.end()) return make_error("GGUF metadata '" + key + "' is not a " + arch + " key attnviz knows");
      if (it->use == KeyUse::zero) {
        const auto* n = std::get_if<int64_t>(&value.value);
        if (!n || *n != 0)
          return make_error("GGUF metadata '" + key + "' is not 0: a mixture of experts is not supported");
      }
      continue;
    }
    return make_error("GGUF metadata '" + key + "' is not a key attnviz knows for a " + arch + " model");
  }
  return Ok{};
}

TensorTaker::TensorTaker(const GgufMapped& file, const std::function<void(float)>& progress)
    : file_(file), progress_(progress), taken_(file.file.tensors.size(), 0) {
  for (const GgufTensorInfo& t : file.file.tensors) total_bytes_ += t.bytes;
}

const GgufTensorInfo* TensorTaker::find(const std::string& name, std::vector<int64_t> ne) {
  if (!error_.empty()) return nullptr;
  const GgufTensorInfo* t = file_.file.tensor(name);
  if (!t) {
    fail("the file has no tensor '" + name + "'");
    return nullptr;
  }
  taken_[static_cast<size_t>(t - file_.file.tensors.data())] = 1;
  // A vector may be stored with trailing dimensions of 1, as ggml allows.
  std::vector<int64_t> have = t->ne;
  while (have.size() > ne.size() && have.back() == 1) have.pop_back();
  if (have != ne) {
    fail("tensor '" + name + "' has shape " + shape_text(t->ne) + "; the model's sizes need " + shape_text(ne));
    return nullptr;
  }
  return t;
}

void TensorTaker::mat(const std::string& name, int64_t rows, int64_t cols, WeightMat& out, int head_size_permuted) {
  const GgufTensorInfo* t = find(name, {cols, rows});
  if (!t || !decoding_) return;
  out.resize(rows, cols);
  jobs_.push_back({t, out.data(), rows, cols, head_size_permuted, 0});
}

void TensorTaker::rows_of(const std::string& name, int64_t rows, int64_t cols, WeightMat& out, int64_t first_row,
                          int head_size_permuted) {
  const GgufTensorInfo* t = find(name, {cols, rows});
  if (!t || !decoding_) return;
  jobs_.push_back({t, out.row(first_row).data(), rows, cols, head_size_permuted, 0});
}

void TensorTaker::rows_part(const std::string& name, int64_t total_rows, int64_t from, int64_t rows, int64_t cols,
                            WeightMat& out, int64_t first_row) {
  // The same tensor is taken once per part: a later part finds it already counted as used.
  const GgufTensorInfo* t = find(name, {cols, total_rows});
  if (!t || !decoding_) return;
  jobs_.push_back({t, out.row(first_row).data(), rows, cols, 0, from});
}

void TensorTaker::vocab_mat(const std::string& name, int64_t rows, int64_t cols, WeightMat& out,
                            std::shared_ptr<const EncodedRows>& encoded) {
  if (!vocab_file_) return mat(name, rows, cols, out);
  if (const GgufTensorInfo* t = find(name, {cols, rows})) encoded = encoded_rows_make(vocab_file_, *t, rows, cols);
}

void TensorTaker::vec(const std::string& name, int64_t len, Vec& out) {
  const GgufTensorInfo* t = find(name, {len});
  if (!t || !decoding_) return;
  out.resize(len);
  jobs_.push_back({t, out.data(), 1, len, 0, 0});
}

void TensorTaker::segment_of(const std::string& name, int64_t len, Vec& out, int64_t first, int head_size_permuted) {
  const GgufTensorInfo* t = find(name, {len});
  if (!t) return;
  // Permuted like the matrix's rows: one value a row, which only the plain float types can be read as.
  if (head_size_permuted != 0 && ggml_type_info(static_cast<uint32_t>(t->type))->block_values != 1)
    return fail("tensor '" + name + "' is a bias stored as " + ggml_type_name(static_cast<uint32_t>(t->type)) +
                ", which attnviz reads only as F32, F16 or BF16");
  if (!decoding_) return;
  if (head_size_permuted == 0) {
    jobs_.push_back({t, out.data() + first, 1, len, 0, 0});
    return;
  }
  jobs_.push_back({t, out.data() + first, len, 1, head_size_permuted, 0});
}

const std::string& TensorTaker::run() {
  for (const Job& job : jobs_) {
    if (!error_.empty()) break;
    const GgmlTypeInfo* info = ggml_type_info(static_cast<uint32_t>(job.tensor->type));
    const std::span<const uint8_t> bytes = file_.tensor_bytes(*job.tensor);
    const int64_t row_bytes = job.cols / info->block_values * info->block_bytes;
    const int64_t hs = job.head_size_permuted;
    bool finite = true;
#pragma omp parallel for schedule(static) reduction(&& : finite)
    for (int64_t r = 0; r < job.rows; ++r) {
      // Hugging Face's row h·HS + j·HS/2 + i is the converter's row h·HS + 2i + j.
      int64_t from = job.first_row + r;
      if (hs > 0) {
        const int64_t h = r / hs, d = r % hs, half = hs / 2;
        from = h * hs + 2 * (d % half) + d / half;
      }
      float* dst = job.out + r * job.cols;
      ggml_dequantize(job.tensor->type, bytes.data() + from * row_bytes, dst, job.cols);
      for (int64_t c = 0; c < job.cols; ++c) finite = finite && std::isfinite(dst[c]);
    }
    if (!finite) fail("tensor '" + job.tensor->name + "' contains NaN or infinite values");
    done_bytes_ += job.tensor->bytes;
    if (progress_ && total_bytes_ > 0) progress_(static_cast<float>(static_cast<double>(done_bytes_) / static_cast<double>(total_bytes_)));
  }
  jobs_.clear();
  return error_;
}

Status TensorTaker::finish() {
  if (!run().empty()) return make_error(error_);
  for (size_t i = 0; i < taken_.size(); ++i)
    if (!taken_[i] && !gguf_vision_tensor(file_.file.tensors[i].name))
      return make_error("tensor '" + file_.file.tensors[i].name + "' is not one attnviz reads for this architecture");
  return Ok{};
}

bool gguf_vision_tensor(std::string_view name) { return name.starts_with("v.") || name.starts_with("mm."); }

}  // namespace gguf

namespace {

const gguf::Arch* const kArchs[] = {&gguf::arch_llama(),  &gguf::arch_qwen2(),  &gguf::arch_qwen3(),
                                     &gguf::arch_phi3(),   &gguf::arch_gemma2(), &gguf::arch_gemma3()};

std::string arch_names() {
  std::string s;
  for (const gguf::Arch* a : kArchs) s += (s.empty() ? "" : ", ") + std::string(a->name);
  return s;
}

// "GGUF: Q4_K 71%, Q6_K 27%, F32 2%": the tensor types by their share of the tensors' bytes.
std::string stored_as(const GgufFile& file) {
  std::vector<std::pair<uint64_t, std::string>> by_type;
  uint64_t total = 0;
  for (const GgufTensorInfo& t : file.tensors) {
    if (gguf::gguf_vision_tensor(t.name)) continue;  // counted apart (Model::vision_tensors_unread)
    const std::string name = ggml_type_name(static_cast<uint32_t>(t.type));
    auto it = std::find_if(by_type.begin(), by_type.end(), [&](const auto& e) { return e.second == name; });
    if (it == by_type.end()) by_type.emplace_back(t.bytes, name);
    else it->first += t.bytes;
    total += t.bytes;
  }
  std::stable_sort(by_type.begin(), by_type.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out = "GGUF";
  for (size_t i = 0; i < by_type.size(); ++i) {
    const double share = total ? 100.0 * static_cast<double>(by_type[i].first) / static_cast<double>(total) : 0.0;
    out += (i == 0 ? ": " : ", ") + by_type[i].second + " " + (share < 1.0 ? std::string("<1") : std::to_string(static_cast<int>(share + 0.5))) + "%";
  }
  return out;
}

}  // namespace

std::vector<std::string_view> gguf_architectures() {
  std::vector<std::string_view> out;
  for (const gguf::Arch* a : kArchs) out.emplace_back(a->name);
  return out;
}

namespace {

// How many decoded layers a model kept on demand may hold: a third of what the process may still
// take (the mapped file's pages come and go as the kernel needs); none when not even one fits.
int layers_kept_by_memory(const ModelConfig& c) {
  const uint64_t per_layer = std::max<uint64_t>(gguf::layer_float_bytes(c), 1);
  const std::optional<int64_t> available = memory_available(memory_texts_read());
  const uint64_t budget = available && *available > 0 ? static_cast<uint64_t>(*available) / 3 : uint64_t{4} << 30;
  return static_cast<int>(std::clamp<uint64_t>(budget / per_layer, 0, static_cast<uint64_t>(c.n_layers)));
}

// Whether the token table and output head stay encoded (GgufOpen::Vocab): their floats against an
// eighth of the memory available (512 MiB when it is unknown).
bool vocab_kept_encoded(const GgufOpen& how, const GgufFile& file, int64_t vocab, int64_t d_model) {
  if (how.layers != GgufOpen::Layers::on_demand || how.vocab == GgufOpen::Vocab::decoded) return false;
  if (how.vocab == GgufOpen::Vocab::encoded) return true;
  const int64_t tables = file.tensor("output.weight") ? 2 : 1;
  const uint64_t floats = static_cast<uint64_t>(tables * vocab * d_model) * sizeof(float);
  const std::optional<int64_t> available = memory_available(memory_texts_read());
  const uint64_t budget = available && *available > 0 ? static_cast<uint64_t>(*available) / 8 : uint64_t{512} << 20;
  return floats > budget;
}

}  // namespace

Result<Model> gguf_model_from_file(std::shared_ptr<const GgufMapped> shared, const GgufOpen& how,
                                   const std::function<void(float)>& progress) {
  const GgufMapped& mapped = *shared;
  const GgufFile& file = mapped.file;
  auto arch_name = file.string_value("general.architecture");
  if (!arch_name) return make_error(arch_name.error());
  const auto* const* found = std::find_if(std::begin(kArchs), std::end(kArchs),
                                          [&](const gguf::Arch* a) { return *arch_name == a->name; });
  if (found == std::end(kArchs))
    return make_error("general.architecture \"" + *arch_name + "\" is not supported (attnviz opens " + arch_names() + ")");
  const gguf::Arch& arch = **found;
  if (Status s = gguf::metadata_keys_check(file, arch.name, arch.keys); !s) return make_error(s.error());

  Model model;
  gguf::ArchReader reader{file, arch.name, arch.keys, {}};
  if (Status s = arch.fill(reader, model.config); !s) return make_error(s.error());
  if (!reader.error.empty()) return make_error(reader.error);
  const bool on_demand = how.layers == GgufOpen::Layers::on_demand;
  const int64_t max_params = on_demand ? kMaxEncodedLayerParams : kMaxLayerParams;
  if (Status s = config_validate(model.config, max_params); !s) return make_error(s.error());

  // The tokenizer before the weights: it is small, and a file without one should fail first.
  auto tokenizer = gguf_tokenizer(file);
  if (!tokenizer) return make_error(tokenizer.error());
  const int vocab = (*tokenizer)->vocab_size();
  if (reader.has("vocab_size")) {
    const int64_t stated = reader.integer("vocab_size", vocab);
    if (stated != vocab)
      return make_error(std::string(arch.name) + ".vocab_size is " + std::to_string(stated) + " but tokenizer.ggml.tokens has " +
                        std::to_string(vocab) + " tokens");
  }

  model.weights.layers.resize(static_cast<size_t>(model.config.n_layers));
  gguf::TensorTaker take(mapped, progress);
  if (vocab_kept_encoded(how, file, vocab, model.config.d_model)) take.set_vocab_encoded(shared);
  arch.load_globals(take, model.config, vocab, model.weights);
  // On demand, each layer's tensors are checked now (names, shapes) and decoded when first needed.
  take.set_decoding(!on_demand);
  LayerWeights scratch;
  for (int l = 0; l < model.config.n_layers; ++l)
    arch.load_layer(take, model.config, l, on_demand ? scratch : model.weights.layers[static_cast<size_t>(l)]);
  if (Status s = take.finish(); !s) return make_error(s.error());
  if (Status s = config_validate(model.config, max_params); !s) return make_error(s.error());
  if (on_demand)
    model.layer_source = gguf::layer_source_make(
        shared, arch, model.config, how.layers_kept >= 0 ? how.layers_kept : layers_kept_by_memory(model.config));
  model.tokenizer = *tokenizer;
  model.stored_as = stored_as(file);
  model.vision_tensors_unread = static_cast<int>(
      std::count_if(file.tensors.begin(), file.tensors.end(), [](const GgufTensorInfo& t) { return gguf::gguf_vision_tensor(t.name); }));
  if (Status s = model_check_shapes(model); !s) return make_error(s.error());
  return model;
}

}  // namespace attnviz
