// Attention files: the names, shapes and values are checked in one pass over the tensor file, and
// only then is anything built. Rows are queries, columns keys, as everywhere; a (1, H, T, T) tensor
// is a batch of one, what a Hugging Face model returns. Rows not summing to 1 are recorded, not fixed.
#include "io/attention_file.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "base/file_io.h"
#include "base/json.h"
#include "model/config.h"
#include "text/subword_display.h"
#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

constexpr const char* kSelfPrefix = "attentions.";
constexpr const char* kCrossPrefix = "cross_attentions.";
constexpr const char* kKnownTensors = "attentions.{layer} and cross_attentions.{layer}";
constexpr const char* kKnownKeys = "tokens, source_tokens and model";
constexpr int kMaxAttentionHeads = 1024;

Error fail(const std::string& name, const std::string& message) {
  return make_error("attention file '" + name + "': " + message);
}

// "attentions.12" -> 12 when `name` is prefix + a layer number written without leading zeros.
std::optional<int> layer_number(const std::string& name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (digits.size() > 3 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  int n = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Punctuation tokens count for the statistics' punctuation share: every character (spaces aside)
// is punctuation. Anything else, markers such as GPT-2's Ġ included, is a word, as written.
TokenKind token_kind(const std::string& text) {
  if (!utf8_is_valid(text)) return TokenKind::word;
  bool any = false;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = utf8_next(text, i);
    if (unicode_is_white_space(c)) continue;
    if (unicode_category(c) != UnicodeCategory::punctuation) return TokenKind::word;
    any = true;
  }
  return any ? TokenKind::punct : TokenKind::word;
}

// The space markers of byte-level BPE (Ġ, U+0120: GPT-2, RoBERTa, Llama 3) and SentencePiece (▁, U+2581:
// T5, Llama 2) read as the app shows a checkpoint's spaces (·); the saved string stays the token's
// `piece`. Nothing else is decoded.
std::string token_display(const std::string& piece) {
  std::string out;
  for (size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 2, "\xC4\xA0") == 0) {
      out += kShownSpace;
      i += 2;
    } else if (piece.compare(i, 3, "\xE2\x96\x81") == 0) {
      out += kShownSpace;
      i += 3;
    } else {
      out += piece[i++];
    }
  }
  return out;
}

// A metadata value that must be a JSON list of strings, as TraceTokens.
Result<std::vector<TraceToken>> token_list(const std::string& name, const std::string& key, const std::string& text) {
  auto j = json_parse_strict(text, "metadata '" + key + "'", 2);
  if (!j) return fail(name, j.error() + " (expected a JSON list of strings, e.g. json.dumps(tokens))");
  if (!j->is_array()) return fail(name, "metadata '" + key + "' is not a JSON list of strings");
  if (j->empty()) return fail(name, "metadata '" + key + "' is an empty list");
  std::vector<TraceToken> out;
  for (size_t i = 0; i < j->size(); ++i) {
    const nlohmann::json& t = (*j)[i];
    if (!t.is_string())
      return fail(name, "metadata '" + key + "' item " + std::to_string(i) + " is not a string (" + t.type_name() + ")");
    TraceToken tok;
    tok.piece = t.get<std::string>();
    tok.text = token_display(tok.piece);
    tok.kind = token_kind(tok.text);
    out.push_back(std::move(tok));
  }
  return out;
}

// One kind of attention tensor (self or cross), its layers in order once checked.
struct Group {
  const char* prefix;
  std::map<int, const Tensor*> layers;
};

// The layers must be 0..L-1 with no gap; every layer the same head count and (rows, cols).
Status check_group(const std::string& name, const Group& g, int64_t rows, int64_t cols, const char* cols_key,
                   int64_t& heads) {
  int expect = 0;
  for (const auto& [l, t] : g.layers) {
    const std::string label = std::string(g.prefix) + std::to_string(l);
    if (l != expect)
      return fail(name, std::string(g.prefix) + std::to_string(expect) + " is missing: layers must be numbered 0 to " +
                            std::to_string(g.layers.size() - 1) + " without a gap (found " + label + ")");
    ++expect;
    if (t->stored != DType::F32 && t->stored != DType::F16 && t->stored != DType::BF16 && t->stored != DType::F64)
      return fail(name, label + " has dtype " + std::string(dtype_name(t->stored)) + ", expected F32, F16 or BF16");
    std::vector<int64_t> s = t->shape;
    if (s.size() == 4 && s[0] == 1) s.erase(s.begin());
    std::string shape;
    for (size_t i = 0; i < t->shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t->shape[i]);
    if (t->shape.size() == 4 && t->shape[0] != 1)
      return fail(name, label + " has shape (" + shape + "): a batch of " + std::to_string(t->shape[0]) +
                            " inputs; save one (a[0]) as (H, T, T)");
    if (s.size() != 3)
      return fail(name, label + " has shape (" + shape + "), expected (heads, queries, keys) or (1, heads, queries, keys)");
    if (s[0] < 1 || s[0] > kMaxAttentionHeads)
      return fail(name, label + " has " + std::to_string(s[0]) + " heads, expected 1 to " + std::to_string(kMaxAttentionHeads));
    if (heads == 0) heads = s[0];
    if (s[0] != heads)
      return fail(name, label + " has " + std::to_string(s[0]) + " heads but " + std::string(g.prefix) + "0 has " +
                            std::to_string(heads) + ": every layer must have the same number of heads");
    if (s[1] != rows || s[2] != cols)
      return fail(name, label + " has shape (" + shape + "), but the metadata lists " + std::to_string(rows) +
                            " tokens" + (cols_key ? std::string(" and ") + std::to_string(cols) + " " + cols_key : std::string()) +
                            ": expected (" + std::to_string(s[0]) + ", " + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
  return Ok{};
}

std::string number_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

// Fills `trace.layers` from the group's tensors, checking every value and flagging rows.
Status fill_layers(const std::string& name, const Group& g, int64_t heads, Trace& trace, bool cross,
                   std::vector<OffRow>& off) {
  const int64_t rows = trace.n_queries(), cols = trace.n_keys();
  std::vector<float> values;
  for (const auto& [l, t] : g.layers) {
    values.resize(static_cast<size_t>(heads * rows * cols));
    const bool finite = tensor_values_into(*t, values.data());
    LayerTrace layer;
    for (int64_t h = 0; h < heads; ++h) {
      HeadTrace head;
      head.weights_kept = Eigen::Map<const Mat>(values.data() + h * rows * cols, rows, cols);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          const float v = head.weights_kept(i, j);
          if (finite && v >= 0) continue;
          const std::string where = std::string(g.prefix) + std::to_string(l) + ": head " + std::to_string(h) +
                                    ", row " + std::to_string(i) + ", column " + std::to_string(j) + " is ";
          if (std::isnan(v)) return fail(name, where + "NaN");
          if (std::isinf(v)) return fail(name, where + (v > 0 ? "inf" : "-inf"));
          if (v < 0) return fail(name, where + "negative (" + number_text(v) + "): attention weights are >= 0");
        }
        const double sum = head.weights_kept.row(i).cast<double>().sum();
        if (std::abs(sum - 1.0) > kRowSumTolerance)
          off.push_back({cross, l, static_cast<int>(h), static_cast<int>(i), static_cast<float>(sum)});
      }
      layer.attn.heads.push_back(std::move(head));
    }
    trace.layers.push_back(std::move(layer));
  }
  return Ok{};
}

Trace empty_trace(const std::string& source, std::vector<TraceToken> queries, std::vector<TraceToken> keys,
                  int64_t heads, size_t layers, bool cross) {
  Trace t;
  t.weights_only = true;
  t.model_source = source;
  t.cross = cross;
  t.config.n_heads = static_cast<int>(heads);
  t.config.n_layers = static_cast<int>(layers);
  t.config.d_model = 0;  // unknown: no model ran
  t.config.d_ff = 0;
  t.config.positions = PositionEncoding::none;
  t.queries = std::move(queries);
  t.keys = std::move(keys);
  t.real_keys = t.n_keys();
  t.mask = Mat::Zero(t.n_queries(), t.n_keys());  // nothing is known to be hidden: a zero weight is drawn as 0
  return t;
}

}  // namespace

Result<AttentionFile> attention_file_from_tensors(const TensorFile& file, const std::string& name) {
  for (const auto& [key, value] : file.metadata)
    if (key != "tokens" && key != "source_tokens" && key != "model")
      return fail(name, "unknown metadata key " + json_quote(key) + " (known: " + kKnownKeys + ")");
  Group self{kSelfPrefix, {}}, cross{kCrossPrefix, {}};
  for (const Tensor& t : file.tensors) {
    Group* g = t.name.rfind(kCrossPrefix, 0) == 0 ? &cross : t.name.rfind(kSelfPrefix, 0) == 0 ? &self : nullptr;
    const std::optional<int> l = g ? layer_number(t.name, g->prefix) : std::nullopt;
    if (!l) return fail(name, "unknown tensor " + json_quote(t.name) + " (known: " + kKnownTensors + ", layers from 0)");
    if (*l >= kMaxLayers)
      return fail(name, "tensor " + json_quote(t.name) + ": at most " + std::to_string(kMaxLayers) + " layers");
    g->layers[*l] = &t;
  }
  const auto tokens_it = file.metadata.find("tokens");
  if (tokens_it == file.metadata.end())
    return fail(name, "metadata key 'tokens' is missing: a JSON list of the T token strings, e.g. "
                      "json.dumps(tokenizer.convert_ids_to_tokens(ids))");
  auto tokens = token_list(name, "tokens", tokens_it->second);
  if (!tokens) return Error{tokens.error()};
  if (tokens->size() > static_cast<size_t>(kMaxTokens))
    return fail(name, "metadata 'tokens' lists " + std::to_string(tokens->size()) + " tokens, at most " +
                          std::to_string(kMaxTokens) + " are shown");
  if (self.layers.empty()) return fail(name, "no tensor attentions.0: expected attentions.{layer} of shape (H, T, T)");
  const auto source_it = file.metadata.find("source_tokens");
  if (!cross.layers.empty() && source_it == file.metadata.end())
    return fail(name, "cross_attentions need metadata key 'source_tokens': a JSON list of the S source token strings");
  if (cross.layers.empty() && source_it != file.metadata.end())
    return fail(name, "metadata key 'source_tokens' is given but there is no cross_attentions.0 tensor");
  std::vector<TraceToken> source;
  if (source_it != file.metadata.end()) {
    auto s = token_list(name, "source_tokens", source_it->second);
    if (!s) return Error{s.error()};
    if (s->size() > static_cast<size_t>(kMaxTokens))
      return fail(name, "metadata 'source_tokens' lists " + std::to_string(s->size()) + " tokens, at most " +
                            std::to_string(kMaxTokens) + " are shown");
    source = std::move(*s);
  }
  const auto T = static_cast<int64_t>(tokens->size()), S = static_cast<int64_t>(source.size());
  int64_t heads = 0, cross_heads = 0;
  if (Status s = check_group(name, self, T, T, nullptr, heads); !s) return Error{s.error()};
  if (!cross.layers.empty()) {
    if (Status s = check_group(name, cross, T, S, "source tokens", cross_heads); !s) return Error{s.error()};
    if (cross.layers.size() != self.layers.size())
      return fail(name, std::to_string(cross.layers.size()) + " cross_attentions layers but " +
                            std::to_string(self.layers.size()) + " attentions layers: a decoder layer has both");
  }

  AttentionFile out;
  if (auto it = file.metadata.find("model"); it != file.metadata.end()) out.model = it->second;
  const std::string source_label = out.model.empty() ? name : name + " (" + out.model + ")";
  out.trace = empty_trace(source_label, *tokens, *tokens, heads, self.layers.size(), false);
  if (Status s = fill_layers(name, self, heads, out.trace, false, out.off_rows); !s) return Error{s.error()};
  if (!cross.layers.empty()) {
    out.cross_trace = empty_trace(source_label, *tokens, std::move(source), cross_heads, cross.layers.size(), true);
    if (Status s = fill_layers(name, cross, cross_heads, *out.cross_trace, true, out.off_rows); !s) return Error{s.error()};
  }
  return out;
}

Result<AttentionFile> attention_file_parse(std::span<const uint8_t> bytes, const std::string& name) {
  auto file = safetensors_parse(bytes);
  if (!file) return fail(name, file.error());
  return attention_file_from_tensors(*file, name);
}

Result<AttentionFile> attention_file_read(const std::string& path) {
  auto file = safetensors_map(path);  // converted tensor by tensor, never held twice as floats
  if (!file) return make_error("attention file " + file.error());
  return attention_file_from_tensors(*file, path);
}

bool attention_file_sniff(const std::string& path) {
  auto file = safetensors_map(path);
  return file && file->find("attentions.0") != nullptr;
}

std::string off_rows_summary(const std::vector<OffRow>& rows, size_t max) {
  std::string out;
  char buf[96];
  for (size_t i = 0; i < rows.size() && i < max; ++i) {
    const OffRow& r = rows[i];
    std::snprintf(buf, sizeof buf, "%s%slayer %d head %d row %d (sum %.4g)", i ? ", " : "", r.cross ? "cross " : "",
                  r.layer, r.head, r.row, static_cast<double>(r.sum));
    out += buf;
  }
  if (rows.size() > max) out += " + " + std::to_string(rows.size() - max) + " more";
  return out;
}

}  // namespace attnviz
