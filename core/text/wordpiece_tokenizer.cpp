// WordPiece encoding and decoding. The character classes are those of Hugging Face's Rust
// `tokenizers` (normalizers/bert.rs, pre_tokenizers/bert.rs), defined in core/text/unicode.h with
// the ways Python BERT differs. The loaders (vocab.txt, tokenizer_config.json, tokenizer.json) and
// their validation follow the encoder.
#include "text/wordpiece_tokenizer.h"

#include "text/lines.h"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "base/json.h"
#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

// One character of normalised text and the bytes of the sanitised original it came from. Every
// character a normalisation step produces keeps its source's range, so a token maps back to whole
// original characters (a jamo of a decomposed Hangul syllable maps to the syllable's 3 bytes).
struct NChar {
  char32_t c;
  size_t begin, end;
};

// Appends c's canonical decomposition, without the nonspacing marks when `drop_mn`. The marks
// left are put in canonical order once the whole text is in (unicode_canonical_order): dropping Mn
// before ordering the rest gives the same order as ordering first, since the sort is stable.
void append_nfd(char32_t c, size_t begin, size_t end, bool drop_mn, std::vector<NChar>& out) {
  if (c < 0xC0) {  // nothing below U+00C0 decomposes or is a mark
    out.push_back({c, begin, end});
    return;
  }
  for (char32_t d : unicode_nfd(std::u32string(1, c)))
    if (!drop_mn || unicode_general_category(d) != UnicodeGeneralCategory::mn) out.push_back({d, begin, end});
}

// BertNormalizer's steps in its order: clean, CJK spaces, strip accents (NFD, drop Mn), lowercase.
std::vector<NChar> normalize_text(std::string_view text, size_t base, const WordPieceOptions& o) {
    const bool strip = o.strip_accents.value_or(o.lowercase);
    std::vector<NChar> chars;
    chars.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
      const size_t begin = pos;
      char32_t c = utf8_next(text, pos);
      const size_t b = base + begin, e = base + pos;
      if (o.clean_text) {
        if (c == 0 || c == kReplacementChar || unicode_is_bert_control(c)) continue;
        if (unicode_is_white_space(c)) c = U' ';
      }
      const bool cjk = o.handle_cjk && unicode_is_bert_chinese(c);
      if (cjk) chars.push_back({U' ', b, e});
      if (strip)
        append_nfd(c, b, e, true, chars);
      else
        chars.push_back({c, b, e});
      if (cjk) chars.push_back({U' ', b, e});
    }
    // One pass over the text, not a bubble per mark: a long run of marks out of order stays O(k log k).
    if (strip) unicode_canonical_order(chars, [](const NChar& n) { return n.c; });
    if (!o.lowercase) return chars;
    std::vector<NChar> lower;
    lower.reserve(chars.size());
    for (const NChar& n : chars) {
      if (n.c < 0x80) {
        lower.push_back({n.c >= U'A' && n.c <= U'Z' ? n.c + 32 : n.c, n.begin, n.end});
        continue;
      }
      const UnicodeLower l = unicode_lower(n.c);
      for (int i = 0; i < l.count; ++i) lower.push_back({l.cp[i], n.begin, n.end});
    }
    return lower;
}

}  // namespace

bool WordPieceTokenizer::push_token(SubwordToken token, size_t reserve, const SubwordLimits& limits,
                                    std::vector<SubwordToken>& out) const {
  if (out.size() + reserve >= static_cast<size_t>(std::max(limits.max_tokens, 0))) return false;
  out.push_back(std::move(token));
  return true;
}

// Pre-tokenizes normalised text (split on White_Space, each punctuation character its own word)
// and runs greedy longest-match WordPiece on every word.
void WordPieceTokenizer::encode_plain(std::string_view text, size_t base, int segment, size_t reserve,
                                      const SubwordLimits& limits, std::vector<SubwordToken>& out,
                                      bool& too_many) const {
  const std::vector<NChar> chars = normalize_text(text, base, options_);
  std::string word, key;
  std::vector<size_t> at;  // byte offset in `word` of each character, plus the end
  auto span_of = [&](size_t from, size_t to, SubwordToken& t) {
    t.begin = chars[from].begin;
    t.end = chars[from].end;
    for (size_t k = from; k < to; ++k) {
      t.begin = std::min(t.begin, chars[k].begin);
      t.end = std::max(t.end, chars[k].end);
    }
  };
  size_t i = 0;
  while (i < chars.size() && !too_many) {
    if (unicode_is_white_space(chars[i].c)) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (!unicode_is_punctuation(chars[i].c))
      while (j < chars.size() && !unicode_is_white_space(chars[j].c) && !unicode_is_punctuation(chars[j].c)) ++j;
    const size_t n = j - i;
    // As Hugging Face: a word longer than max_chars_per_word is one [UNK] before any look-up, so a
    // megabyte without a space costs one pass.
    bool bad = n > static_cast<size_t>(options_.max_chars_per_word);
    word.clear();
    at.clear();
    for (size_t k = i; k < j && !bad; ++k) {
      at.push_back(word.size());
      utf8_append(word, chars[k].c);
    }
    at.push_back(word.size());
    // Greedy from the left: the longest vocabulary piece at `start`, "##"-prefixed after the first.
    // No piece is longer than longest_piece_chars_, so longer candidates are not looked up.
    std::vector<SubwordToken> pieces;
    for (size_t start = 0; start < n && !bad;) {
      size_t end = std::min(n, start + longest_piece_chars_);
      int id = -1;
      for (; end > start; --end) {
        key.assign(start > 0 ? options_.prefix : std::string());
        key.append(word, at[start], at[end] - at[start]);
        const auto it = vocab_.ids.find(key);
        if (it != vocab_.ids.end()) {
          id = it->second;
          break;
        }
      }
      if (id < 0) {
        bad = true;
        break;
      }
      SubwordToken t;
      t.id = id;
      t.piece = vocab_.pieces[static_cast<size_t>(id)];
      t.segment = segment;
      t.continues = start > 0;
      span_of(i + start, i + end, t);
      pieces.push_back(std::move(t));
      start = end;
    }
    if (bad) {
      // A word the vocabulary cannot spell, or longer than max_chars_per_word, is one [UNK].
      pieces.clear();
      SubwordToken t;
      t.id = unk_id_;
      t.piece = vocab_.pieces[static_cast<size_t>(unk_id_)];
      t.segment = segment;
      t.unknown = true;
      span_of(i, j, t);
      pieces.push_back(std::move(t));
    }
    for (SubwordToken& t : pieces)
      if (!push_token(std::move(t), reserve, limits, out)) {
        too_many = true;
        break;
      }
    i = j;
  }
}

// Special tokens typed literally are found in the raw text first (leftmost, longest), as Hugging
// Face's added vocabulary does; the text between them is normalised and tokenized.
void WordPieceTokenizer::encode_sentence(std::string_view text, int segment, size_t reserve,
                                         const SubwordLimits& limits, std::vector<SubwordToken>& out,
                                         bool& too_many) const {
  size_t plain_from = 0;
  for (size_t pos = 0; pos < text.size() && !too_many;) {
    const Special* hit = nullptr;
    for (const Special& s : specials_)  // longest first; the first byte rules most out cheaply
      if (s.text[0] == text[pos] && text.compare(pos, s.text.size(), s.text) == 0) {
        hit = &s;
        break;
      }
    if (hit == nullptr) {
      ++pos;
      continue;
    }
    encode_plain(text.substr(plain_from, pos - plain_from), plain_from, segment, reserve, limits, out, too_many);
    if (too_many) return;
    SubwordToken t;
    t.id = hit->id;
    t.piece = vocab_.pieces[static_cast<size_t>(hit->id)];
    t.begin = pos;
    t.end = pos + hit->text.size();
    t.segment = segment;
    t.special = true;
    if (!push_token(std::move(t), reserve, limits, out)) {
      too_many = true;
      return;
    }
    pos += hit->text.size();
    plain_from = pos;
  }
  if (!too_many) encode_plain(text.substr(plain_from), plain_from, segment, reserve, limits, out, too_many);
}

Result<SubwordEncoding> WordPieceTokenizer::encode(std::string_view text, std::optional<std::string_view> pair,
                                                   const SubwordLimits& limits) const {
  for (std::string_view s : {text, pair.value_or(std::string_view())})
    if (s.size() > limits.max_bytes)
      return make_error("text is too long: " + std::to_string(s.size()) + " bytes, the limit is " +
                        std::to_string(limits.max_bytes));
  SubwordEncoding enc;
  enc.text = utf8_sanitize(text);
  if (pair) enc.text_b = utf8_sanitize(*pair);
  const std::vector<WordPieceFramePart>& frame = pair ? frame_pair_ : frame_single_;
  size_t reserve = 0;
  for (const WordPieceFramePart& p : frame) reserve += p.kind == WordPieceFramePart::Kind::special ? 1 : 0;
  // Every token covers at least a character: room for all of them up front, not a vector grown and
  // copied over and over (what a million tokens cost most).
  const size_t max_tokens = static_cast<size_t>(std::max(limits.max_tokens, 0));
  std::vector<SubwordToken> a, b;
  a.reserve(std::min(max_tokens, enc.text.size()));
  b.reserve(std::min(max_tokens, enc.text_b.size()));
  bool too_many = false;
  encode_sentence(enc.text, 0, reserve, limits, a, too_many);
  if (pair && !too_many) encode_sentence(enc.text_b, 1, reserve + a.size(), limits, b, too_many);
  if (too_many || a.size() + b.size() + reserve > max_tokens)
    return make_error("text is too long: more than " + std::to_string(limits.max_tokens) + " tokens");
  enc.tokens.reserve(a.size() + b.size() + reserve);
  for (const WordPieceFramePart& p : frame) {
    if (p.kind == WordPieceFramePart::Kind::special) {
      SubwordToken t;
      t.id = p.id;
      t.piece = vocab_.pieces[static_cast<size_t>(p.id)];
      t.segment = p.segment;
      t.type_id = p.segment;
      t.special = true;
      enc.tokens.push_back(std::move(t));
      continue;
    }
    for (SubwordToken t : p.kind == WordPieceFramePart::Kind::sentence_a ? a : b) {
      t.segment = p.segment;
      t.type_id = p.segment;
      enc.tokens.push_back(std::move(t));
    }
  }
  return enc;
}

std::string WordPieceTokenizer::decode(std::span<const int> ids) const {
  std::string out;
  bool first = true;
  for (int id : ids) {
    if (id < 0 || id >= vocab_size()) continue;
    const std::string& p = vocab_.pieces[static_cast<size_t>(id)];
    // As Hugging Face's WordPiece decoder: only a piece after the first loses its "##".
    if (!first && !options_.prefix.empty() && p.compare(0, options_.prefix.size(), options_.prefix) == 0) {
      out.append(p, options_.prefix.size());
    } else {
      if (!first) out.push_back(' ');
      out += p;
    }
    first = false;
  }
  return out;
}

std::vector<std::string> WordPieceTokenizer::special_tokens() const {
  std::vector<std::string> out;
  for (const Special& s : specials_) out.push_back(s.text);
  return out;
}

// ---- loaders ----

namespace {

using Json = nlohmann::json;

// The strict reader's verdict in this file's "what: problem" voice.
Result<Json> json_parse_object(std::string_view text, const std::string& what) {
  JsonError e;
  auto j = json_parse_strict(text, what, kJsonMaxDepth, &e);
  if (!j && e.fault == JsonFault::too_deep)
    return make_error(what + ": nested deeper than " + std::to_string(kJsonMaxDepth) + " levels");
  if (!j && e.fault == JsonFault::syntax) return make_error(what + ": not valid JSON");
  if (j && !j->is_object()) return make_error(what + ": expected a JSON object");
  return j;
}

// A bool member: absent keeps `value`; anything but true/false is an error.
Status json_bool(const Json& j, const char* key, bool& value, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (!it->is_boolean()) return make_error(what + ": '" + key + "' must be true or false");
  value = it->get<bool>();
  return Ok{};
}

// strip_accents: true, false, or null (follow lowercase).
Status json_optional_bool(const Json& j, const char* key, std::optional<bool>& value, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (it->is_null()) {
    value.reset();
    return Ok{};
  }
  if (!it->is_boolean()) return make_error(what + ": '" + key + "' must be true, false or null");
  value = it->get<bool>();
  return Ok{};
}

Status json_int(const Json& j, const char* key, int& value, int lo, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Ok{};
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > (int64_t{1} << 30))
    return make_error(what + ": '" + key + "' must be an integer >= " + std::to_string(lo));
  value = static_cast<int>(it->get<int64_t>());
  return Ok{};
}

// A special token in tokenizer_config.json: a string, an AddedToken object {"content": ...}, or
// null (no such token).
Status json_token(const Json& j, const char* key, std::string& value, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (it->is_null()) {
    value.clear();
    return Ok{};
  }
  if (it->is_string()) {
    value = it->get<std::string>();
    return Ok{};
  }
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
    value = (*it)["content"].get<std::string>();
    return Ok{};
  }
  return make_error(what + ": '" + key + "' must be a string or an object with a \"content\" string");
}

std::optional<int> find_id(const std::unordered_map<std::string, int>& ids, const std::string& piece) {
  const auto it = ids.find(piece);
  if (piece.empty() || it == ids.end()) return std::nullopt;
  return it->second;
}

// Checks the vocabulary and [UNK]; sets unk_id and pad_id.
template <class T>
Status finish_common(T& tok, const std::string& what) {
  if (tok.pieces.empty()) return make_error(what + ": the vocabulary is empty");
  const auto unk = find_id(tok.ids, tok.options.unk);
  if (!unk) return make_error(what + ": the unknown token '" + tok.options.unk + "' is not in the vocabulary");
  tok.unk_id = *unk;
  tok.pad_id = find_id(tok.ids, tok.options.pad);
  if (tok.options.max_chars_per_word < 1) return make_error(what + ": max_chars_per_word must be at least 1");
  return Ok{};
}

// BERT's framing: [CLS] A [SEP], and [CLS] A [SEP] B [SEP] with B and its [SEP] in segment 1.
void frame_bert(int cls, int sep, std::vector<WordPieceFramePart>& single, std::vector<WordPieceFramePart>& pair) {
  using K = WordPieceFramePart::Kind;
  single = {{K::special, cls, 0}, {K::sentence_a, 0, 0}, {K::special, sep, 0}};
  pair = {{K::special, cls, 0}, {K::sentence_a, 0, 0}, {K::special, sep, 0},
          {K::sentence_b, 0, 1}, {K::special, sep, 1}};
}

}  // namespace

// The loaders fill this plain mirror of the tokenizer's state, then move it in: one validation
// path for both file formats.
struct WordPieceParts {
  WordPieceOptions options;
  std::vector<std::string> pieces;
  std::unordered_map<std::string, int> ids;
  std::vector<std::pair<std::string, int>> specials;
  std::vector<WordPieceFramePart> single, pair;
  int unk_id = 0;
  std::optional<int> pad_id;
};

namespace {

Result<WordPieceParts> bert_frame_from_options(WordPieceParts parts, const std::string& what) {
  const auto cls = find_id(parts.ids, parts.options.cls), sep = find_id(parts.ids, parts.options.sep);
  if (!cls) return make_error(what + ": the framing token '" + parts.options.cls + "' is not in the vocabulary");
  if (!sep) return make_error(what + ": the framing token '" + parts.options.sep + "' is not in the vocabulary");
  frame_bert(*cls, *sep, parts.single, parts.pair);
  return parts;
}

}  // namespace

Result<WordPieceOptions> wordpiece_options_from_config(std::string_view tokenizer_config_json) {
  const std::string what = "tokenizer_config.json";
  auto j = json_parse_object(tokenizer_config_json, what);
  if (!j) return make_error(j.error());
  WordPieceOptions o;
  for (Status s : {json_bool(*j, "do_lower_case", o.lowercase, what),
                   json_optional_bool(*j, "strip_accents", o.strip_accents, what),
                   json_bool(*j, "tokenize_chinese_chars", o.handle_cjk, what),
                   json_token(*j, "unk_token", o.unk, what), json_token(*j, "cls_token", o.cls, what),
                   json_token(*j, "sep_token", o.sep, what), json_token(*j, "pad_token", o.pad, what),
                   json_token(*j, "mask_token", o.mask, what)})
    if (!s) return make_error(s.error());
  return o;
}

WordPieceTokenizer wordpiece_build(WordPieceParts parts);

Result<WordPieceTokenizer> wordpiece_from_vocab_txt(std::string_view vocab_txt, const WordPieceOptions& options) {
  const std::string what = "vocab.txt";
  WordPieceParts parts;
  parts.options = options;
  if (options.prefix.empty()) return make_error(what + ": the continuation prefix must not be empty");
  size_t line_no = 0;
  for (const std::string_view line : text_lines(vocab_txt)) {
    ++line_no;
    if (line.empty()) return make_error(what + ": line " + std::to_string(line_no) + " is empty");
    if (!utf8_is_valid(line)) return make_error(what + ": line " + std::to_string(line_no) + " is not valid UTF-8");
    const auto [it, fresh] = parts.ids.emplace(std::string(line), static_cast<int>(parts.pieces.size()));
    if (!fresh)
      return make_error(what + ": '" + std::string(line) + "' on line " + std::to_string(line_no) +
                        " duplicates line " + std::to_string(it->second + 1));
    parts.pieces.emplace_back(line);
  }
  if (Status s = finish_common(parts, what); !s) return make_error(s.error());
  auto framed = bert_frame_from_options(std::move(parts), what);
  if (!framed) return make_error(framed.error());
  // AutoTokenizer registers the five special tokens as added tokens: typed literally, each is one token.
  for (const std::string* s : {&options.unk, &options.cls, &options.sep, &options.pad, &options.mask})
    if (const auto id = find_id(framed->ids, *s)) framed->specials.emplace_back(*s, *id);
  return wordpiece_build(std::move(*framed));
}

namespace {

// post_processor: TemplateProcessing (its "single" and "pair" lists, special tokens resolved
// through its "special_tokens" map) or BertProcessing ({"cls": [text, id], "sep": [text, id]}).
Status frame_from_post_processor(const Json& pp, WordPieceParts& parts, const std::string& what) {
  const std::string type = pp.contains("type") && pp["type"].is_string() ? pp["type"].get<std::string>() : "";
  const int n = static_cast<int>(parts.pieces.size());
  if (type == "BertProcessing") {
    int ids[2] = {-1, -1};
    const char* keys[2] = {"cls", "sep"};
    for (int k = 0; k < 2; ++k) {
      const auto it = pp.find(keys[k]);
      if (it == pp.end() || !it->is_array() || it->size() != 2 || !(*it)[1].is_number_integer() ||
          (*it)[1].get<int64_t>() < 0 || (*it)[1].get<int64_t>() >= n)
        return make_error(what + ": BertProcessing '" + keys[k] + "' must be [token, id] with an id in the vocabulary");
      ids[k] = static_cast<int>((*it)[1].get<int64_t>());
    }
    frame_bert(ids[0], ids[1], parts.single, parts.pair);
    return Ok{};
  }
  if (type != "TemplateProcessing")
    return make_error(what + ": unsupported post_processor type '" + type +
                      "' (TemplateProcessing or BertProcessing)");
  const auto specials = pp.find("special_tokens");
  for (const char* which : {"single", "pair"}) {
    std::vector<WordPieceFramePart>& out = std::string(which) == "single" ? parts.single : parts.pair;
    const auto list = pp.find(which);
    if (list == pp.end() || !list->is_array())
      return make_error(what + ": TemplateProcessing needs a '" + which + "' list");
    for (const Json& item : *list) {
      const bool seq = item.is_object() && item.contains("Sequence");
      const bool spe = item.is_object() && item.contains("SpecialToken");
      if (!seq && !spe) return make_error(what + ": a template item must be a Sequence or a SpecialToken");
      const Json& body = seq ? item["Sequence"] : item["SpecialToken"];
      if (!body.is_object() || !body.contains("id") || !body["id"].is_string())
        return make_error(what + ": a template item needs an \"id\" string");
      int segment = 0;
      if (Status s = json_int(body, "type_id", segment, 0, what); !s) return s;
      const std::string id = body["id"].get<std::string>();
      if (seq) {
        if (id != "A" && id != "B") return make_error(what + ": a template Sequence must be A or B, not '" + id + "'");
        out.push_back({id == "A" ? WordPieceFramePart::Kind::sentence_a : WordPieceFramePart::Kind::sentence_b, 0,
                       segment});
        continue;
      }
      if (specials == pp.end() || !specials->is_object() || !specials->contains(id) ||
          !(*specials)[id].is_object() || !(*specials)[id].contains("ids") || !(*specials)[id]["ids"].is_array())
        return make_error(what + ": the template's special token '" + id + "' has no ids in special_tokens");
      for (const Json& v : (*specials)[id]["ids"]) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= n)
          return make_error(what + ": the template's special token '" + id + "' has an id outside the vocabulary");
        out.push_back({WordPieceFramePart::Kind::special, static_cast<int>(v.get<int64_t>()), segment});
      }
    }
  }
  return Ok{};
}

// added_tokens: matched literally in the raw text. Their ids either name a vocabulary piece with the
// same text or extend the vocabulary past its end.
Status added_tokens_read(const Json& list, WordPieceParts& parts, const std::string& what) {
  if (!list.is_array()) return make_error(what + ": 'added_tokens' must be a list");
  std::vector<std::pair<int, std::string>> extra;
  const int n = static_cast<int>(parts.pieces.size());
  for (const Json& t : list) {
    if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
        !t["content"].is_string() || t["content"].get<std::string>().empty())
      return make_error(what + ": an added token needs an integer \"id\" and a non-empty \"content\" string");
    const std::string content = t["content"].get<std::string>();
    for (const char* flag : {"lstrip", "rstrip", "single_word", "normalized"})
      if (t.contains(flag) && t[flag].is_boolean() && t[flag].get<bool>())
        return make_error(what + ": added token '" + content + "' sets '" + flag + "', which is not supported");
    const int64_t id = t["id"].get<int64_t>();
    if (id < 0 || id > (int64_t{1} << 24)) return make_error(what + ": added token '" + content + "' has a bad id");
    if (id < n && parts.pieces[static_cast<size_t>(id)] != content)
      return make_error(what + ": added token '" + content + "' has id " + std::to_string(id) +
                        ", which the vocabulary gives to '" + parts.pieces[static_cast<size_t>(id)] + "'");
    if (id >= n) extra.emplace_back(static_cast<int>(id), content);
    parts.specials.emplace_back(content, static_cast<int>(id));
  }
  std::sort(extra.begin(), extra.end());
  for (const auto& [id, content] : extra) {
    if (id != static_cast<int>(parts.pieces.size()))
      return make_error(what + ": added token '" + content + "' has id " + std::to_string(id) +
                        ", leaving a gap after the vocabulary's " + std::to_string(parts.pieces.size()) + " ids");
    if (!parts.ids.emplace(content, id).second)
      return make_error(what + ": added token '" + content + "' duplicates a vocabulary piece");
    parts.pieces.push_back(content);
  }
  return Ok{};
}

}  // namespace

Result<WordPieceTokenizer> wordpiece_from_tokenizer_json(std::string_view tokenizer_json) {
  const std::string what = "tokenizer.json";
  auto j = json_parse_object(tokenizer_json, what);
  if (!j) return make_error(j.error());
  const auto model = j->find("model");
  if (model == j->end() || !model->is_object()) return make_error(what + ": no 'model' object");
  const std::string type = model->contains("type") && (*model)["type"].is_string()
                               ? (*model)["type"].get<std::string>() : "(none)";
  if (type != "WordPiece") return make_error(what + ": unsupported model type '" + type + "' (only WordPiece)");
  WordPieceParts parts;
  WordPieceOptions& o = parts.options;
  if (Status s = json_token(*model, "unk_token", o.unk, what); !s) return make_error(s.error());
  if (Status s = json_token(*model, "continuing_subword_prefix", o.prefix, what); !s) return make_error(s.error());
  if (o.prefix.empty()) return make_error(what + ": the continuation prefix must not be empty");
  if (Status s = json_int(*model, "max_input_chars_per_word", o.max_chars_per_word, 1, what); !s)
    return make_error(s.error());

  const auto vocab = model->find("vocab");
  if (vocab == model->end() || !vocab->is_object()) return make_error(what + ": the model has no 'vocab' object");
  parts.pieces.assign(vocab->size(), std::string());
  std::vector<bool> seen(vocab->size(), false);
  for (const auto& [piece, id] : vocab->items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= static_cast<int64_t>(vocab->size()))
      return make_error(what + ": '" + piece + "' has an id outside 0.." + std::to_string(vocab->size() - 1));
    const auto k = static_cast<size_t>(id.get<int64_t>());
    if (seen[k]) return make_error(what + ": '" + piece + "' and '" + parts.pieces[k] + "' share id " + std::to_string(k));
    if (piece.empty()) return make_error(what + ": the vocabulary has an empty piece");
    seen[k] = true;
    parts.pieces[k] = piece;
    parts.ids.emplace(piece, static_cast<int>(k));
  }

  // normalizer: BertNormalizer, or null for none at all.
  const auto norm = j->find("normalizer");
  if (norm == j->end() || norm->is_null()) {
    o.lowercase = o.clean_text = o.handle_cjk = false;
    o.strip_accents = false;
  } else {
    const std::string ntype = norm->is_object() && norm->contains("type") && (*norm)["type"].is_string()
                                  ? (*norm)["type"].get<std::string>() : "(none)";
    if (ntype != "BertNormalizer")
      return make_error(what + ": unsupported normalizer type '" + ntype + "' (BertNormalizer or null)");
    for (Status s : {json_bool(*norm, "clean_text", o.clean_text, what),
                     json_bool(*norm, "handle_chinese_chars", o.handle_cjk, what),
                     json_optional_bool(*norm, "strip_accents", o.strip_accents, what),
                     json_bool(*norm, "lowercase", o.lowercase, what)})
      if (!s) return make_error(s.error());
  }
  const auto pre = j->find("pre_tokenizer");
  const std::string ptype = pre != j->end() && pre->is_object() && pre->contains("type") && (*pre)["type"].is_string()
                                ? (*pre)["type"].get<std::string>() : "(none)";
  if (ptype != "BertPreTokenizer")
    return make_error(what + ": unsupported pre_tokenizer type '" + ptype + "' (only BertPreTokenizer)");

  if (Status s = finish_common(parts, what); !s) return make_error(s.error());
  if (const auto added = j->find("added_tokens"); added != j->end() && !added->is_null())
    if (Status s = added_tokens_read(*added, parts, what); !s) return make_error(s.error());
  const auto pp = j->find("post_processor");
  if (pp == j->end() || pp->is_null()) {
    auto framed = bert_frame_from_options(std::move(parts), what);
    if (!framed) return make_error(framed.error());
    parts = std::move(*framed);
  } else if (Status s = frame_from_post_processor(*pp, parts, what); !s) {
    return make_error(s.error());
  }
  return wordpiece_build(std::move(parts));
}

WordPieceTokenizer wordpiece_build(WordPieceParts parts) {
  WordPieceTokenizer tok;
  tok.options_ = std::move(parts.options);
  tok.vocab_.pieces = std::move(parts.pieces);
  tok.vocab_.ids = std::move(parts.ids);
  tok.frame_single_ = std::move(parts.single);
  tok.frame_pair_ = std::move(parts.pair);
  tok.unk_id_ = parts.unk_id;
  tok.pad_id_ = parts.pad_id;
  for (const std::string& piece : tok.vocab_.pieces)
    tok.longest_piece_chars_ = std::max(tok.longest_piece_chars_, utf8_count(piece));
  // Longest first, so "[MASK]x" cannot lose to a shorter token sharing its start.
  std::stable_sort(parts.specials.begin(), parts.specials.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  // A named pair, not a structured binding: clang before 16 cannot capture bindings in a lambda.
  for (auto& special : parts.specials) {
    const std::string& text = special.first;
    if (std::none_of(tok.specials_.begin(), tok.specials_.end(), [&](const auto& s) { return s.text == text; }))
      tok.specials_.push_back({std::move(special.first), special.second});
  }
  return tok;
}

}  // namespace attnviz
