// tokenizer.ggml.* as a PipelineSpec: the vocabulary and its types, the merges (given for "gpt2",
// ranked from the scores for "llama"), the pre-tokenizer llama.cpp uses for tokenizer.ggml.pre, the
// special tokens, BOS/EOS framing and the decoder, the way llama.cpp's llama-vocab.cpp sets them up.
#include "io/gguf_tokenizer.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "base/utf8.h"
#include "text/pipeline_tokenizer.h"

namespace attnviz {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 "▁", SentencePiece's space

// llama.cpp's token types (llama_token_type in the GGUF's tokenizer.ggml.token_type).
enum TokenType : int64_t { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

// tokenizer.ggml.pre names llama.cpp maps to the split patterns attnviz has, and whether that
// family's vocabulary ignores merges for a word it holds whole (Llama 3's does).
struct PreTokenizer {
  std::string_view name;
  SplitPattern pattern;
  bool ignore_merges;
};
constexpr PreTokenizer kPreTokenizers[] = {
    {"gpt-2", SplitPattern::gpt2, false},       {"llama-bpe", SplitPattern::llama3, true},
    {"llama3", SplitPattern::llama3, true},     {"llama-v3", SplitPattern::llama3, true},
    {"qwen2", SplitPattern::qwen2, false},      {"deepseek-r1-qwen", SplitPattern::qwen2, false},
};

std::string supported_pre_names() {
  std::string out;
  for (const PreTokenizer& p : kPreTokenizers) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

// An optional boolean key; another type is an error naming it.
Result<bool> flag(const GgufFile& file, std::string_view key, bool fallback) {
  return file.find(key) ? file.bool_value(key) : Result<bool>(fallback);
}

// An optional token id; it must name an entry of the vocabulary.
Result<std::optional<int>> token_id(const GgufFile& file, std::string_view key, size_t vocab) {
  if (!file.find(key)) return std::optional<int>();
  auto v = file.int_value(key);
  if (!v) return make_error(v.error());
  if (*v < 0 || static_cast<uint64_t>(*v) >= vocab)
    return make_error("GGUF metadata '" + std::string(key) + "' is " + std::to_string(*v) + ", outside the vocabulary of " +
                      std::to_string(vocab) + " tokens");
  return std::optional<int>(static_cast<int>(*v));
}

// Every split of every entry into two entries, ranked by the joined entry's score (highest first, then
// by id): SentencePiece's merge order as byte-pair merges.
std::vector<std::pair<std::string, std::string>> merges_from_scores(const std::vector<std::string>& pieces,
                                                                    const std::vector<double>& scores) {
  std::unordered_map<std::string_view, int> ids;
  ids.reserve(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) ids.emplace(pieces[i], static_cast<int>(i));
  struct Split {
    int id;
    size_t at;
  };
  std::vector<Split> splits;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = pieces[i];
    size_t at = 0;
    if (!p.empty()) utf8_next(p, at);  // after the first character
    for (; at < p.size(); utf8_next(p, at))
      if (ids.count(std::string_view(p).substr(0, at)) && ids.count(std::string_view(p).substr(at)))
        splits.push_back({static_cast<int>(i), at});
  }
  std::stable_sort(splits.begin(), splits.end(), [&](const Split& a, const Split& b) {
    const double sa = scores[static_cast<size_t>(a.id)], sb = scores[static_cast<size_t>(b.id)];
    return sa != sb ? sa > sb : a.id < b.id;
  });
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(splits.size());
  for (const Split& s : splits) {
    const std::string& p = pieces[static_cast<size_t>(s.id)];
    out.emplace_back(p.substr(0, s.at), p.substr(s.at));
  }
  return out;
}

PipelineDecode decode_step(PipelineDecode::Kind kind, std::string text = {}, std::string with = {}, int start = 0) {
  PipelineDecode d;
  d.kind = kind;
  d.text = std::move(text);
  d.with = std::move(with);
  d.start = start;
  return d;
}

// "a b" -> (a, b), split at the first space after the first byte, as llama.cpp reads merges.
Result<std::pair<std::string, std::string>> merge_pair(const std::string& text, size_t index) {
  const size_t space = text.size() > 1 ? text.find(' ', 1) : std::string::npos;
  if (space == std::string::npos)
    return make_error("tokenizer.ggml.merges[" + std::to_string(index) + "] \"" + text + "\" is not two tokens separated by a space");
  return std::pair{text.substr(0, space), text.substr(space + 1)};
}

Result<std::shared_ptr<const SubwordTokenizer>> build(const GgufFile& file) {
  auto model = file.string_value("tokenizer.ggml.model");
  if (!model) return make_error(model.error());
  const bool spm = *model == "llama";
  if (!spm && *model != "gpt2")
    return make_error("tokenizer.ggml.model \"" + *model +
                      "\" is not supported (attnviz reads \"llama\", SentencePiece, and \"gpt2\", byte-level BPE)");
  auto tokens = file.array_value("tokenizer.ggml.tokens");
  if (!tokens) return make_error(tokens.error());
  if ((*tokens)->element != GgufValueType::string) return make_error("tokenizer.ggml.tokens must be an array of strings");
  PipelineSpec spec;
  spec.pieces = (*tokens)->strings;
  spec.repeated_pieces_take_last = true;  // llama.cpp's text-to-id map: the later id of a repeated entry
  const size_t n = spec.pieces.size();
  for (size_t i = 0; i < n; ++i)
    if (!utf8_is_valid(spec.pieces[i]))
      return make_error("tokenizer.ggml.tokens[" + std::to_string(i) + "] is not valid UTF-8");

  // Token types: absent means every entry is normal.
  std::vector<int64_t> types(n, TokenType::normal);
  if (file.find("tokenizer.ggml.token_type")) {
    auto t = file.array_value("tokenizer.ggml.token_type");
    if (!t) return make_error(t.error());
    if ((*t)->ints.size() != n)
      return make_error("tokenizer.ggml.token_type has " + std::to_string((*t)->size()) + " entries for " + std::to_string(n) +
                        " tokens");
    types = (*t)->ints;
  }
  // llama.cpp's Phi-3 rule, keyed on the model's name as llama.cpp keys it: its special tokens take
  // the whitespace after them, but for <unk>, <s> and <|endoftext|>.
  auto general_name = file.string_value("general.name");
  std::string name = general_name ? *general_name : std::string();
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool phi3_strip = name.find("phi3") != std::string::npos || name.find("phi-3") != std::string::npos;
  for (size_t i = 0; i < n; ++i) {
    const int64_t t = types[i];
    if (t < TokenType::normal || t > TokenType::byte)
      return make_error("tokenizer.ggml.token_type[" + std::to_string(i) + "] is " + std::to_string(t) +
                        " (llama.cpp's types are 1 to 6)");
    // llama.cpp parses control, unknown and user-defined entries out of the text before the model.
    if (t == TokenType::control || t == TokenType::unknown || t == TokenType::user_defined) {
      PipelineAddedToken added{spec.pieces[i], static_cast<int>(i), t != TokenType::user_defined};
      const std::string& p = spec.pieces[i];
      added.rstrip = phi3_strip && p != "<unk>" && p != "<s>" && p != "<|endoftext|>";
      spec.added.push_back(std::move(added));
    }
  }

  auto bos = token_id(file, "tokenizer.ggml.bos_token_id", n);
  auto eos = token_id(file, "tokenizer.ggml.eos_token_id", n);
  auto unk = token_id(file, "tokenizer.ggml.unknown_token_id", n);
  auto pad = token_id(file, "tokenizer.ggml.padding_token_id", n);
  for (const auto* r : {&bos, &eos, &unk, &pad})
    if (!*r) return make_error(r->error());
  auto add_bos = flag(file, "tokenizer.ggml.add_bos_token", spm);
  auto add_eos = flag(file, "tokenizer.ggml.add_eos_token", false);
  auto space_prefix = flag(file, "tokenizer.ggml.add_space_prefix", spm);
  for (const auto* r : {&add_bos, &add_eos, &space_prefix})
    if (!*r) return make_error(r->error());
  // llama.cpp's defaults for SentencePiece: <unk> 0, <s> 1, </s> 2.
  if (spm && !*bos && n > 1) *bos = 1;
  if (spm && !*eos && n > 2) *eos = 2;
  if (spm && !*unk && n > 0) *unk = 0;
  if (*add_bos && !*bos) return make_error("tokenizer.ggml.add_bos_token is true but the file names no tokenizer.ggml.bos_token_id");
  if (*add_eos && !*eos) return make_error("tokenizer.ggml.add_eos_token is true but the file names no tokenizer.ggml.eos_token_id");

  if (spm) {
    auto scores = file.array_value("tokenizer.ggml.scores");
    if (!scores) return make_error(scores.error());
    if ((*scores)->floats.size() != n)
      return make_error("tokenizer.ggml.scores has " + std::to_string((*scores)->size()) + " entries for " + std::to_string(n) +
                        " tokens");
    spec.merges = merges_from_scores(spec.pieces, (*scores)->floats);
    spec.byte_fallback = true;
    if (*unk) spec.unk = spec.pieces[static_cast<size_t>(**unk)];
    if (*space_prefix) spec.normalizer.push_back({PipelineNormalize::Kind::prepend, std::string(kSpace), {}});
    spec.normalizer.push_back({PipelineNormalize::Kind::replace, " ", std::string(kSpace)});
    spec.decoder = std::vector<PipelineDecode>{decode_step(PipelineDecode::Kind::replace, std::string(kSpace), " "),
                                               decode_step(PipelineDecode::Kind::byte_fallback),
                                               decode_step(PipelineDecode::Kind::fuse)};
    if (*space_prefix) spec.decoder->push_back(decode_step(PipelineDecode::Kind::strip, " ", {}, 1));
    spec.kind_name = "gguf-sentencepiece";
  } else {
    auto merges = file.array_value("tokenizer.ggml.merges");
    if (!merges) return make_error(merges.error());
    if ((*merges)->element != GgufValueType::string) return make_error("tokenizer.ggml.merges must be an array of strings");
    spec.merges.reserve((*merges)->strings.size());
    for (size_t i = 0; i < (*merges)->strings.size(); ++i) {
      auto pair = merge_pair((*merges)->strings[i], i);
      if (!pair) return make_error(pair.error());
      spec.merges.push_back(std::move(*pair));
    }
    auto pre = file.string_value("tokenizer.ggml.pre");
    const std::string pre_name = pre ? *pre : std::string("default");
    const auto* p = std::find_if(std::begin(kPreTokenizers), std::end(kPreTokenizers),
                                 [&](const PreTokenizer& x) { return x.name == pre_name; });
    if (p == std::end(kPreTokenizers))
      return make_error("tokenizer.ggml.pre \"" + pre_name + "\" is not supported (attnviz reads " + supported_pre_names() + ")");
    PipelinePreTokenize split;
    split.kind = PipelinePreTokenize::Kind::split;
    split.pattern = p->pattern;
    PipelinePreTokenize bytes;
    bytes.kind = PipelinePreTokenize::Kind::byte_level;
    bytes.use_regex = false;
    spec.pre_tokenizer = {split, bytes};
    spec.ignore_merges = p->ignore_merges;
    spec.decoder = std::vector<PipelineDecode>{decode_step(PipelineDecode::Kind::byte_level)};
    spec.kind_name = "gguf-byte-level-bpe";
  }
  std::vector<PipelineFramePart> single;
  if (*add_bos) single.push_back({-1, {**bos}, 0, 0});
  single.push_back({0, {}, 0, 0});
  if (*add_eos) single.push_back({-1, {**eos}, 0, 0});
  spec.single = single;
  if (*pad) spec.pad = spec.pieces[static_cast<size_t>(**pad)];
  auto built = PipelineTokenizer::build(std::move(spec));
  if (!built) return make_error("the GGUF tokenizer: " + built.error());
  return std::shared_ptr<const SubwordTokenizer>(std::make_shared<PipelineTokenizer>(std::move(*built)));
}

}  // namespace

Result<std::shared_ptr<const SubwordTokenizer>> gguf_tokenizer(const GgufFile& file) { return build(file); }

}  // namespace attnviz
