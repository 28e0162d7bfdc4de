// GPT-2 byte-level BPE: added tokens split out first (longest match), GPT-2's pre-tokenization
// pattern (text/pretokenize_split.h), then the rank-ordered merges (text/bpe_merge.h). Also the two
// loaders (vocab.json + merges.txt, tokenizer.json) and their validation. No file access here.
#include "text/bpe_tokenizer.h"

#include "text/lines.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "base/quoted.h"
#include "base/json.h"
#include "text/pretokenize_split.h"
#include "base/utf8.h"

namespace attnviz {
namespace {

// ---- GPT-2's byte <-> character table -------------------------------------------------------

// GPT-2's bytes_to_unicode(): bytes that print as themselves keep their value, so common text
// stays readable in the vocabulary; the 68 others take U+0100, U+0101, ... in byte order.
constexpr bool byte_is_printable(unsigned b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

constexpr std::array<char32_t, 256> make_byte_chars() {
  std::array<char32_t, 256> table{};
  char32_t next = 0x100;
  for (unsigned b = 0; b < 256; ++b) table[b] = byte_is_printable(b) ? char32_t(b) : next++;
  return table;
}

constexpr std::array<char32_t, 256> kByteChars = make_byte_chars();

// The inverse for the 68 remapped bytes: kRemappedBytes[c - 0x100] is the byte U+0100 + n stands for.
constexpr std::array<uint8_t, 68> make_remapped_bytes() {
  std::array<uint8_t, 68> table{};
  for (unsigned b = 0; b < 256; ++b)
    if (!byte_is_printable(b)) table[kByteChars[b] - 0x100] = uint8_t(b);
  return table;
}

constexpr std::array<uint8_t, 68> kRemappedBytes = make_remapped_bytes();

// The byte a character of the byte alphabet stands for, or -1 when it is outside the alphabet.
int byte_of_char(char32_t c) {
  if (c < 0x100) return byte_is_printable(unsigned(c)) ? int(c) : -1;
  if (c >= 0x100 + kRemappedBytes.size()) return -1;
  return kRemappedBytes[c - 0x100];
}

}  // namespace

char32_t bpe_byte_char(uint8_t byte) { return kByteChars[byte]; }

std::string bpe_piece_bytes(std::string_view piece) {
  const std::string clean = utf8_sanitize(piece);
  std::string out;
  size_t pos = 0;
  while (pos < clean.size()) {
    const size_t start = pos;
    const int b = byte_of_char(utf8_next(clean, pos));
    if (b >= 0)
      out.push_back(char(uint8_t(b)));
    else
      out.append(clean, start, pos - start);
  }
  return out;
}

// ---- BpeTokenizer -----------------------------------------------------------------------------

bool BpeTokenizer::is_special(int id) const {
  return std::any_of(specials_.begin(), specials_.end(), [id](const Special& s) { return s.id == id; });
}

std::string BpeTokenizer::decode(std::span<const int> ids) const {
  std::string out;
  for (const int id : ids)
    if (id >= 0 && id < vocab_size()) out += bytes_[size_t(id)];
  return out;
}

std::optional<size_t> BpeTokenizer::special_at(std::string_view text, size_t pos) const {
  if (!special_first_[uint8_t(text[pos])]) return std::nullopt;
  const std::string_view rest = text.substr(pos);
  for (size_t k = 0; k < specials_.size(); ++k)
    if (rest.starts_with(specials_[k].content)) return k;
  return std::nullopt;
}

Status BpeTokenizer::encode_word(std::string_view clean, size_t word_begin, size_t word_end, int segment,
                                 size_t max_tokens, std::vector<SubwordToken>& out) const {
  const size_t n = word_end - word_begin;
  // No piece spells more than longest_piece_bytes_ bytes, so this many tokens at least: a word
  // that must overflow the limit is refused before any merging.
  if (out.size() + (n + longest_piece_bytes_ - 1) / longest_piece_bytes_ > max_tokens)
    return error_too_many_tokens(max_tokens);
  // Positions and byte offsets within a word are 32-bit (a smaller heap); max_bytes keeps real
  // input far below this.
  if (n > size_t(INT32_MAX)) return make_error("a single word of more than 2 GB is not supported");

  std::vector<BpeSymbol> sym(n);
  for (size_t i = 0; i < n; ++i) sym[i] = {byte_ids_[uint8_t(clean[word_begin + i])], uint32_t(i), uint32_t(i + 1)};
  merges_.apply(sym);

  bool first = true;
  for (const BpeSymbol& s : sym) {
    if (out.size() >= max_tokens) return error_too_many_tokens(max_tokens);
    SubwordToken t;
    t.id = s.id;
    t.piece = vocab_.pieces[size_t(s.id)];
    t.begin = word_begin + s.begin;
    t.end = word_begin + s.end;
    t.segment = segment;
    t.type_id = segment;
    t.continues = !first;
    out.push_back(std::move(t));
    first = false;
  }
  return Ok{};
}

Status BpeTokenizer::encode_segment(const std::string& clean, int segment, size_t max_tokens,
                                    std::vector<SubwordToken>& out) const {
  const std::string_view s = clean;
  // Pre-tokenizes and merges the plain text in [begin, end): added tokens have already been
  // cut out, so the pattern never looks across one (as in Hugging Face's split-then-pretokenize).
  const auto plain = [&](size_t begin, size_t end) -> Status {
    const std::string_view chunk = s.substr(begin, end - begin);
    for (size_t pos = 0; pos < chunk.size();) {
      const size_t stop = split_pattern_end(SplitPattern::gpt2, chunk, pos);
      if (Status st = encode_word(s, begin + pos, begin + stop, segment, max_tokens, out); !st) return st;
      pos = stop;
    }
    return Ok{};
  };
  size_t chunk_begin = 0;
  for (size_t pos = 0; pos < s.size();) {
    const std::optional<size_t> k = special_at(s, pos);
    if (!k) {
      ++pos;
      continue;
    }
    if (Status st = plain(chunk_begin, pos); !st) return st;
    if (out.size() >= max_tokens) return error_too_many_tokens(max_tokens);
    const Special& sp = specials_[*k];
    SubwordToken t;
    t.id = sp.id;
    t.piece = vocab_.pieces[size_t(sp.id)];
    t.begin = pos;
    t.end = pos + sp.content.size();
    t.segment = segment;
    t.type_id = segment;
    t.special = true;
    out.push_back(std::move(t));
    pos += sp.content.size();
    chunk_begin = pos;
  }
  return plain(chunk_begin, s.size());
}

Result<SubwordEncoding> BpeTokenizer::encode(std::string_view text, std::optional<std::string_view> pair,
                                             const SubwordLimits& limits) const {
  if (text.size() > limits.max_bytes)
    return make_error("the text is " + std::to_string(text.size()) + " bytes; the limit is " +
                      std::to_string(limits.max_bytes));
  if (pair && pair->size() > limits.max_bytes)
    return make_error("the second text is " + std::to_string(pair->size()) + " bytes; the limit is " +
                      std::to_string(limits.max_bytes));
  const size_t max_tokens = limits.max_tokens > 0 ? size_t(limits.max_tokens) : 0;
  SubwordEncoding enc;
  enc.text = utf8_sanitize(text);
  if (pair) enc.text_b = utf8_sanitize(*pair);
  // Every token covers at least a byte: room for all of them up front, not a vector grown and
  // copied over and over (what a million tokens cost most).
  enc.tokens.reserve(std::min(max_tokens, enc.text.size() + enc.text_b.size()));
  if (Status st = encode_segment(enc.text, 0, max_tokens, enc.tokens); !st) return make_error(st.error());
  if (pair) {
    if (Status st = encode_segment(enc.text_b, 1, max_tokens, enc.tokens); !st) return make_error(st.error());
  }
  return enc;
}

// ---- building and validating ------------------------------------------------------------------

namespace {

}  // namespace

Result<BpeTokenizer> BpeTokenizer::build(Parts parts) {
  BpeTokenizer t;
  t.vocab_.pieces = std::move(parts.pieces);
  if (t.vocab_.pieces.size() > size_t(INT32_MAX)) return make_error("the vocabulary is too large");
  t.vocab_.ids.reserve(t.vocab_.pieces.size());
  for (size_t id = 0; id < t.vocab_.pieces.size(); ++id) {
    const auto [it, fresh] = t.vocab_.ids.emplace(t.vocab_.pieces[id], int(id));
    if (!fresh)
      return make_error("the piece " + in_quotes(t.vocab_.pieces[id]) + " has two ids, " + std::to_string(it->second) +
                        " and " + std::to_string(id));
  }

  for (unsigned b = 0; b < 256; ++b) {
    std::string symbol;
    utf8_append(symbol, kByteChars[b]);
    const auto it = t.vocab_.ids.find(symbol);
    if (it == t.vocab_.ids.end()) {
      constexpr char kHex[] = "0123456789ABCDEF";
      return make_error(std::string("the vocabulary has no symbol for byte 0x") + kHex[b >> 4] + kHex[b & 15] +
                        " (" + in_quotes(symbol) + ")");
    }
    t.byte_ids_[b] = it->second;
  }

  t.merges_.reserve(parts.merges.size());
  std::string joined;  // a + b, one buffer for all merges: GPT-2 has 50,000
  for (size_t rank = 0; rank < parts.merges.size(); ++rank) {
    // Named references, not a structured binding: clang before 16 cannot capture bindings in a lambda.
    const std::string& a = parts.merges[rank].first;
    const std::string& b = parts.merges[rank].second;
    joined.assign(a).append(b);
    const auto ia = t.vocab_.ids.find(a), ib = t.vocab_.ids.find(b), ir = t.vocab_.ids.find(joined);
    // The message is made for a bad merge only, not for each of GPT-2's 50,000.
    const auto fail = [&](const std::string& what) {
      return make_error("merge " + std::to_string(rank + 1) + " (" + in_quotes(a + " " + b) + "): " + what +
                        " is not in the vocabulary");
    };
    if (ia == t.vocab_.ids.end()) return fail(in_quotes(a));
    if (ib == t.vocab_.ids.end()) return fail(in_quotes(b));
    if (ir == t.vocab_.ids.end()) return fail("the result " + in_quotes(joined));
    t.merges_.add(ia->second, ib->second, int(rank), ir->second);
  }

  t.bytes_.resize(t.vocab_.pieces.size());
  for (size_t id = 0; id < t.vocab_.pieces.size(); ++id) t.bytes_[id] = bpe_piece_bytes(t.vocab_.pieces[id]);
  for (const Special& sp : parts.specials) {
    if (sp.content.empty()) return make_error("an added token is empty");
    if (sp.id < 0 || size_t(sp.id) >= t.vocab_.pieces.size() || t.vocab_.pieces[size_t(sp.id)] != sp.content)
      return make_error("the added token " + in_quotes(sp.content) + " is not the vocabulary's id " +
                        std::to_string(sp.id));
    t.bytes_[size_t(sp.id)] = sp.content;  // added tokens decode to their own text
    t.special_first_[uint8_t(sp.content[0])] = true;
    t.specials_.push_back(sp);
  }
  std::stable_sort(t.specials_.begin(), t.specials_.end(),
                   [](const Special& x, const Special& y) { return x.content.size() > y.content.size(); });
  for (size_t id = 0; id < t.vocab_.pieces.size(); ++id)
    if (!t.is_special(int(id))) t.longest_piece_bytes_ = std::max(t.longest_piece_bytes_, t.bytes_[id].size());
  return t;
}

// ---- loaders ----------------------------------------------------------------------------------

namespace {

using Json = nlohmann::json;

constexpr int kMaxJsonDepth = 16;

Result<Json> json_parse_object(std::string_view text, std::string_view what) {
  JsonError e;
  auto j = json_parse_strict(text, what, kMaxJsonDepth, &e);
  if (!j && e.fault == JsonFault::too_deep) return make_error(std::string(what) + " is nested too deeply");
  if (j && !j->is_object()) return make_error(std::string(what) + " is not a JSON object");
  return j;
}

struct Entry {
  std::string piece;
  int64_t id = 0;
};

// vocab {"piece": id} -> entries, in no particular order.
Result<std::vector<Entry>> vocab_entries(const Json& vocab, std::string_view what) {
  if (!vocab.is_object()) return make_error(std::string(what) + " must be an object of piece: id");
  std::vector<Entry> out;
  out.reserve(vocab.size());
  for (const auto& [piece, id] : vocab.items()) {
    if (!id.is_number_integer())
      return make_error(std::string(what) + ": the id of " + in_quotes(piece) + " is not an integer");
    out.push_back({piece, id.get<int64_t>()});
  }
  return out;
}

// Entries -> pieces by id. The ids must be exactly 0 .. count - 1, each once.
Result<std::vector<std::string>> pieces_by_id(const std::vector<Entry>& entries) {
  const size_t n = entries.size();
  std::vector<std::string> pieces(n);
  std::vector<bool> taken(n, false);
  for (const Entry& e : entries) {
    if (e.id < 0 || uint64_t(e.id) >= n)
      return make_error("the id " + std::to_string(e.id) + " of " + in_quotes(e.piece) + " is out of range: " +
                        std::to_string(n) + " entries need ids 0.." + std::to_string(int64_t(n) - 1));
    if (taken[size_t(e.id)])
      return make_error("the id " + std::to_string(e.id) + " is given to both " + in_quotes(pieces[size_t(e.id)]) +
                        " and " + in_quotes(e.piece));
    taken[size_t(e.id)] = true;
    pieces[size_t(e.id)] = e.piece;
  }
  return pieces;
}

// Collects a flat object's members when every value is an integer, in file order; stops (returns
// false) at anything else: a nested value, a string, a float, a bare number, a syntax error.
// nlohmann's own lexer reads the text, so keys come out exactly as its document parser makes them.
class FlatIntObject final : public Json::json_sax_t {
 public:
  std::vector<Entry> entries;

  bool null() override { return false; }
  bool boolean(bool) override { return false; }
  bool number_integer(number_integer_t v) override { return add(v); }
  // Converted as json::get<int64_t> converts it on the strict route.
  bool number_unsigned(number_unsigned_t v) override { return add(static_cast<int64_t>(v)); }
  bool number_float(number_float_t, const string_t&) override { return false; }
  bool string(string_t&) override { return false; }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    if (opened_) return false;  // a nested object
    opened_ = true;
    return true;
  }
  bool start_array(std::size_t) override { return false; }
  bool end_object() override { return true; }
  bool end_array() override { return false; }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const Json::exception&) override { return false; }

 private:
  bool add(int64_t id) {
    if (!opened_) return false;  // the whole text is a number
    entries.push_back({std::move(key_), id});
    return true;
  }
  bool opened_ = false;
  std::string key_;
};

// vocab.json's entries when it is what vocab.json almost always is, a flat object of unique piece:
// integer id members in valid UTF-8; otherwise nullopt. Reading them without building a JSON
// document (a std::map of 50,257 members for GPT-2) takes a sixth of the time.
std::optional<std::vector<Entry>> flat_vocab_entries(std::string_view text) {
  if (utf8_invalid_at(text) != std::string_view::npos) return std::nullopt;
  FlatIntObject flat;
  bool parsed = false;
  try {
    parsed = Json::sax_parse(text.begin(), text.end(), &flat, Json::input_format_t::json, /*strict=*/true,
                             /*ignore_comments=*/false);
  } catch (const Json::exception&) {  // the strict route reports it
  }
  if (!parsed) return std::nullopt;
  std::unordered_set<std::string_view> seen;
  seen.reserve(flat.entries.size());
  for (const Entry& e : flat.entries)
    if (!seen.insert(e.piece).second) return std::nullopt;
  return std::move(flat.entries);
}

// vocab.json -> pieces by id. The flat reading is taken when it succeeds (the order of entries then
// does not matter); anything else goes the strict route, whose messages are the ones reported.
Result<std::vector<std::string>> vocab_json_pieces(std::string_view text) {
  if (auto entries = flat_vocab_entries(text))
    if (auto pieces = pieces_by_id(*entries)) return pieces;
  auto vocab = json_parse_object(text, "vocab.json");
  if (!vocab) return make_error(vocab.error());
  auto entries = vocab_entries(*vocab, "vocab.json");
  if (!entries) return make_error(entries.error());
  return pieces_by_id(*entries);
}

// "left right" -> the two parts; exactly one space.
std::optional<std::pair<std::string, std::string>> merge_split(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
      line.find(' ', space + 1) != std::string_view::npos)
    return std::nullopt;
  return std::pair{std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

bool json_is_null_or_empty(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty());
}

bool json_flag(const Json& j, const char* key, bool fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::string json_type(const Json& j) {
  const auto it = j.find("type");
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string("(no type)");
}

// Everything in tokenizer.json besides the vocabulary that could change the ids: refused unless
// it is what GPT-2 uses, so a file we would tokenize differently from Hugging Face fails to load.
Status tokenizer_json_check_pipeline(const Json& j, const Json& model) {
  if (const auto it = j.find("normalizer"); it != j.end() && !it->is_null())
    return make_error("unsupported normalizer " + in_quotes(it->is_object() ? json_type(*it) : it->dump()) +
                      "; GPT-2 has none");
  const auto pre = j.find("pre_tokenizer");
  if (pre == j.end() || !pre->is_object() || json_type(*pre) != "ByteLevel")
    return make_error("unsupported pre-tokenizer " +
                      in_quotes(pre != j.end() && pre->is_object() ? json_type(*pre) : std::string("(none)")) +
                      "; only \"ByteLevel\" is supported");
  if (json_flag(*pre, "add_prefix_space", false))
    return make_error("the ByteLevel pre-tokenizer's add_prefix_space is not supported");
  if (!json_flag(*pre, "use_regex", true))
    return make_error("the ByteLevel pre-tokenizer without use_regex is not supported");
  if (const auto it = j.find("post_processor");
      it != j.end() && !it->is_null() && !(it->is_object() && json_type(*it) == "ByteLevel"))
    return make_error("unsupported post-processor " + in_quotes(it->is_object() ? json_type(*it) : it->dump()));
  if (const auto it = model.find("dropout"); it != model.end() && !it->is_null())
    return make_error("BPE dropout is not supported");
  if (!json_is_null_or_empty(model, "continuing_subword_prefix") || !json_is_null_or_empty(model, "end_of_word_suffix"))
    return make_error("BPE with a continuing_subword_prefix or end_of_word_suffix is not supported");
  if (json_flag(model, "ignore_merges", false)) return make_error("BPE with ignore_merges is not supported");
  return Ok{};
}

}  // namespace

Result<BpeTokenizer> bpe_from_vocab_merges(std::string_view vocab_json, std::string_view merges_txt) {
  auto pieces = vocab_json_pieces(vocab_json);
  if (!pieces) return make_error(pieces.error());

  BpeTokenizer::Parts parts;
  size_t line_no = 0;
  for (const std::string_view line : text_lines(merges_txt)) {
    ++line_no;
    if (line.empty() || (line_no == 1 && line.starts_with("#version"))) continue;
    auto merge = merge_split(line);
    if (!merge)
      return make_error("merges.txt line " + std::to_string(line_no) + " is not \"left right\": " + in_quotes(line));
    parts.merges.push_back(std::move(*merge));
  }
  if (const auto eot = std::find(pieces->begin(), pieces->end(), "<|endoftext|>"); eot != pieces->end())
    parts.specials.push_back({*eot, int(eot - pieces->begin())});
  parts.pieces = std::move(*pieces);
  return BpeTokenizer::build(std::move(parts));
}

Result<BpeTokenizer> bpe_from_tokenizer_json(std::string_view tokenizer_json) {
  auto parsed = json_parse_object(tokenizer_json, "tokenizer.json");
  if (!parsed) return make_error(parsed.error());
  const Json& j = *parsed;
  const auto model = j.find("model");
  if (model == j.end() || !model->is_object()) return make_error("tokenizer.json has no \"model\" object");
  if (json_type(*model) != "BPE")
    return make_error("unsupported tokenizer model type " + in_quotes(json_type(*model)) + "; only \"BPE\" is supported");
  if (Status st = tokenizer_json_check_pipeline(j, *model); !st) return make_error(st.error());

  const auto vocab = model->find("vocab");
  if (vocab == model->end()) return make_error("tokenizer.json: the model has no \"vocab\"");
  auto entries = vocab_entries(*vocab, "tokenizer.json's vocab");
  if (!entries) return make_error(entries.error());

  BpeTokenizer::Parts parts;
  // Added tokens already in the vocabulary (GPT-2's <|endoftext|>) must keep their id; new ones
  // extend the id range.
  if (const auto added = j.find("added_tokens"); added != j.end() && !added->is_null()) {
    if (!added->is_array()) return make_error("tokenizer.json: \"added_tokens\" is not an array");
    for (const Json& a : *added) {
      const auto content = a.is_object() ? a.find("content") : a.end();
      const auto id = a.is_object() ? a.find("id") : a.end();
      if (!a.is_object() || content == a.end() || !content->is_string() || id == a.end() || !id->is_number_integer())
        return make_error("tokenizer.json: an added token lacks a string \"content\" or an integer \"id\"");
      const std::string text = content->get<std::string>();
      for (const char* flag : {"lstrip", "rstrip", "single_word"})
        if (json_flag(a, flag, false)) return make_error("added token " + in_quotes(text) + ": " + flag + " is not supported");
      const int64_t want = id->get<int64_t>();
      const auto in_vocab = vocab->find(text);
      if (in_vocab == vocab->end())
        entries->push_back({text, want});
      else if (in_vocab->get<int64_t>() != want)
        return make_error("added token " + in_quotes(text) + " has id " + std::to_string(want) +
                          " but the vocabulary gives it " + std::to_string(in_vocab->get<int64_t>()));
      if (want >= 0 && want <= INT32_MAX) parts.specials.push_back({text, int(want)});
    }
  }
  auto pieces = pieces_by_id(*entries);
  if (!pieces) return make_error(pieces.error());
  parts.pieces = std::move(*pieces);

  const auto merges = model->find("merges");
  if (merges == model->end() || !merges->is_array()) return make_error("tokenizer.json: the model has no \"merges\" array");
  parts.merges.reserve(merges->size());
  for (size_t k = 0; k < merges->size(); ++k) {
    const Json& m = (*merges)[k];
    std::optional<std::pair<std::string, std::string>> merge;
    if (m.is_string())
      merge = merge_split(m.get_ref<const std::string&>());
    else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
      merge = std::pair{m[0].get<std::string>(), m[1].get<std::string>()};
    if (!merge)
      return make_error("tokenizer.json: merge " + std::to_string(k + 1) +
                        " is neither \"left right\" nor [\"left\", \"right\"]");
    parts.merges.push_back(std::move(*merge));
  }
  return BpeTokenizer::build(std::move(parts));
}

}  // namespace attnviz
