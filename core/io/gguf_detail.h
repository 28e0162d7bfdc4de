// What the GGUF architectures (core/io/gguf_*.cpp, one per family, like llama.cpp's src/models/) share:
// reading `{arch}.*` metadata with defaults and a table of the keys each family knows, and taking
// tensors by name into the engine's matrices, decoding them in parallel. Internal to core/io: the
// public interface is io/gguf_model.h.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/gguf.h"
#include "model/layer_source.h"
#include "model/model.h"

namespace attnviz::gguf {

// How a family treats one `{arch}.` key (written without the prefix).
enum class KeyUse {
  read,      // the family's fill reads it
  harmless,  // changes nothing attnviz computes
  zero,      // harmless when 0 (expert_count: a mixture of experts is refused)
};
struct ArchKey {
  const char* name;
  KeyUse use;
};

// Reads `{arch}.` keys; the first error (a wrong type, a key the family's table does not list as
// read) is kept and later reads give their fallback.
struct ArchReader {
  const GgufFile& file;
  std::string arch;
  std::span<const ArchKey> keys;
  std::string error;

  bool has(std::string_view key) const { return file.find(arch + "." + std::string(key)) != nullptr; }
  int64_t integer(std::string_view key, int64_t fallback, int64_t max = int64_t{1} << 30);
  // Required: absent is an error naming the key.
  int64_t required(std::string_view key, int64_t max = int64_t{1} << 30);
  double number(std::string_view key, double fallback);
  std::string text(std::string_view key, const std::string& fallback);
  void fail(const std::string& message) {
    if (error.empty()) error = message;
  }

 private:
  bool listed(std::string_view key);
};

// Every metadata key is one this family reads or knows to be harmless: `{arch}.` keys by the family's
// table, general.*, quantize.* and tokenizer.chat_template* as harmless, tokenizer.ggml.* by the
// tokenizer's table, split.count only 1. Anything else is an error naming the key.
Status metadata_keys_check(const GgufFile& file, const std::string& arch, std::span<const ArchKey> keys);

// Takes tensors by name, each at most once, checking each one's shape; run() decodes every planned
// tensor into its destination (in parallel: each destination written by one thread), checks its
// values are finite, and finish() says which tensor of the file no family step took.
class TensorTaker {
 public:
  TensorTaker(const GgufMapped& file, const std::function<void(float)>& progress);

  bool has(const std::string& name) const { return file_.file.tensor(name) != nullptr; }
  // (rows, cols) = ne [cols, rows]. `head_size_permuted` > 0: the rows of each block of `head_size` are
  // stored as llama.cpp's converter permutes a llama model's Q and K (its rope rotates adjacent
  // dimensions); they are put back in Hugging Face's order, pairs (d, d + head_size/2).
  void mat(const std::string& name, int64_t rows, int64_t cols, WeightMat& out, int head_size_permuted = 0);
  // Rows [first_row, first_row + rows) of `out`, which already has cols columns.
  void rows_of(const std::string& name, int64_t rows, int64_t cols, WeightMat& out, int64_t first_row,
               int head_size_permuted = 0);
  // Rows [from, from + rows) of a stored (total_rows, cols) tensor — a part of a fused one (Phi-3's
  // attn_qkv, ffn_up) — into rows [first_row, first_row + rows) of `out`, which already has cols columns.
  void rows_part(const std::string& name, int64_t total_rows, int64_t from, int64_t rows, int64_t cols, WeightMat& out,
                 int64_t first_row);
  void vec(const std::string& name, int64_t len, Vec& out);
  // A vocabulary table (the token table, the output head): kept in the file's encoding when
  // set_vocab_encoded gave the file (`encoded` set, `out` left empty), else decoded as mat() does.
  void vocab_mat(const std::string& name, int64_t rows, int64_t cols, WeightMat& out,
                 std::shared_ptr<const EncodedRows>& encoded);
  void set_vocab_encoded(std::shared_ptr<const GgufMapped> file) { vocab_file_ = std::move(file); }
  void segment_of(const std::string& name, int64_t len, Vec& out, int64_t first, int head_size_permuted = 0);

  // Off: tensors taken from now on are checked (shape, name) and counted as used but not decoded, and
  // their destinations are not sized: the layers of a model decoded on demand (io/gguf_layers.h).
  void set_decoding(bool on) { decoding_ = on; }

  // Decodes what is planned; the first error so far ("" when none).
  const std::string& run();
  // run(), then an error naming the first tensor nothing took.
  Status finish();
  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

 private:
  struct Job {
    const GgufTensorInfo* tensor;
    float* out;         // rows x cols, row-major
    int64_t rows, cols;
    int head_size_permuted;
    int64_t first_row = 0;  // of the stored tensor: where the rows decoded start
  };
  const GgufTensorInfo* find(const std::string& name, std::vector<int64_t> ne);

  const GgufMapped& file_;
  const std::function<void(float)>& progress_;
  std::vector<Job> jobs_;
  std::vector<char> taken_;  // by tensor index
  bool decoding_ = true;
  std::shared_ptr<const GgufMapped> vocab_file_;  // set: vocab_mat keeps its tables encoded
  uint64_t total_bytes_ = 0, done_bytes_ = 0;
  std::string error_;
};

// A tensor of a vision encoder or its projector stored beside the language model ("v.*", "mm.*", as
// Ollama's Gemma 3 files hold them): not read, and not an error.
bool gguf_vision_tensor(std::string_view name);

// One architecture: its name, its `{arch}.` keys, how its metadata becomes a ModelConfig (and whether
// the output head is tied) and how its tensors are taken.
struct Arch {
  const char* name;
  std::span<const ArchKey> keys;
  Status (*fill)(ArchReader& r, ModelConfig& c);
  // Plans the tensors outside the layers (token table, final norm, output head); what the config
  // takes from tensors (rope_freqs) it sets after take.run().
  void (*load_globals)(TensorTaker& take, ModelConfig& c, int vocab, ModelWeights& w);
  // Plans layer l's tensors into `out`.
  void (*load_layer)(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& out);
};
const Arch& arch_llama();
const Arch& arch_qwen2();
const Arch& arch_qwen3();
const Arch& arch_phi3();
const Arch& arch_gemma2();
const Arch& arch_gemma3();

// What the Llama-shaped architectures share (io/gguf_llama.cpp): their `{arch}.` keys, the config
// those keys give (pre-norm RMSNorm, SwiGLU, rotary positions, grouped key/value heads, causal), and
// the tensors outside the layers: the token table, the final norm and the output head (none in the
// file: llama.cpp uses the token table, a tied head).
std::span<const ArchKey> llama_shaped_keys();
Status fill_llama_shaped(ArchReader& r, ModelConfig& c);
void load_outside_layers(TensorTaker& take, const ModelConfig& c, int vocab, ModelWeights& w);
// Whether the file's Q and K rows are in llama.cpp's order for its llama rope (adjacent pairs).
enum class QkRows { hugging_face, permuted };
// Layer l's attn_q, attn_k, attn_v (and their biases when `qkv_bias` or present), attn_output, and
// with config.qk_norm attn_q_norm and attn_k_norm.
void load_attention_rows(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& out, QkRows rows, bool qkv_bias);
// load_attention_rows, then attn_output.bias when present, attn_norm, ffn_norm, ffn_gate, ffn_up, ffn_down.
void load_llama_shaped_layer(TensorTaker& take, const ModelConfig& c, int l, LayerWeights& out, QkRows rows, bool qkv_bias);

// Rows of a (rows, cols) tensor of the mapped file, decoded when read (io/gguf_vocab.cpp).
std::shared_ptr<const EncodedRows> encoded_rows_make(std::shared_ptr<const GgufMapped> file, const GgufTensorInfo& tensor,
                                                     int64_t rows, int64_t cols);

// What one layer of the config takes decoded, in bytes.
uint64_t layer_float_bytes(const ModelConfig& c);
// The layers of `file` decoded on demand by `arch`, at most `kept` of them kept decoded (0: none;
// io/gguf_layers.cpp).
std::shared_ptr<const LayerSource> layer_source_make(std::shared_ptr<const GgufMapped> file, const Arch& arch,
                                                     ModelConfig config, int kept);

}  // namespace attnviz::gguf
