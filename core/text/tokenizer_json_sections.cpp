// The four pipeline sections of tokenizer.json (normalizer, pre_tokenizer, post_processor, decoder)
// read into a PipelineSpec, strictly: known types and keys only, values of the right kind. The model,
// the added tokens and the choice of tokenizer are tokenizer_json.cpp's.
#include <algorithm>

#include "base/json.h"
#include "text/tokenizer_json_detail.h"
#include "base/utf8.h"

namespace attnviz::tokenizer_json_detail {

Error fail(const std::string& where, const std::string& what) {
  return make_error("tokenizer.json: " + where + ": " + what);
}

std::string at_index(const std::string& where, const char* key, size_t i) {
  return where + "." + key + "[" + std::to_string(i) + "]";
}

// Every key of `obj` must be one of `known`: a key we do not read could change the ids.
Status keys_known(const Json& obj, const std::string& where, Keys known) {
  if (Status s = json_keys_known(obj, known); !s) return fail(where, s.error());
  return Ok{};
}

Result<std::string> type_of(const Json& obj, const std::string& where) {
  if (!obj.is_object()) return fail(where, "expected an object");
  const auto it = obj.find("type");
  if (it == obj.end() || !it->is_string()) return fail(where, "has no \"type\" string");
  return it->get<std::string>();
}

Error unsupported_type(const std::string& where, const std::string& type, const char* supported) {
  return fail(where, "unsupported type " + json_quote(type) + " (supported: " + supported + ")");
}

// A member that must be a bool when present (and not null).
Result<bool> bool_at(const Json& obj, const char* key, bool fallback, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return fail(where, std::string("\"") + key + "\" must be true or false");
  return it->get<bool>();
}

Result<std::string> string_at(const Json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return fail(where, std::string("\"") + key + "\" must be a string");
  return it->get<std::string>();
}

Result<int> int_at(const Json& obj, const char* key, int fallback, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > INT32_MAX)
    return fail(where, std::string("\"") + key + "\" must be a non-negative integer");
  return int(it->get<int64_t>());
}

const Json& array_at(const Json& obj, const char* key, bool& ok) {
  static const Json empty = Json::array();
  const auto it = obj.find(key);
  ok = it != obj.end() && it->is_array();
  return ok ? *it : empty;
}

namespace {

// A pattern object {"String": s}; `Regex` ones are refused, naming the regex.
Result<std::string> string_pattern(const Json& obj, const std::string& where) {
  const auto it = obj.find("pattern");
  if (it == obj.end() || !it->is_object() || it->size() != 1) return fail(where, "\"pattern\" must be {\"String\": ...}");
  if (const auto s = it->find("String"); s != it->end() && s->is_string()) {
    if (s->get_ref<const std::string&>().empty()) return fail(where, "the pattern is empty");
    return s->get<std::string>();
  }
  if (const auto r = it->find("Regex"); r != it->end() && r->is_string())
    return fail(where, "unsupported Regex pattern " + json_quote(r->get<std::string>()));
  return fail(where, "\"pattern\" must be {\"String\": ...}");
}


// ---- normalizer ------------------------------------------------------------------------------

}  // namespace

Status read_normalizer(const Json& j, const std::string& where, std::vector<PipelineNormalize>& out) {
  if (j.is_null()) return Ok{};
  auto type = type_of(j, where);
  if (!type) return make_error(type.error());
  if (*type == "NFC") {
    if (Status s = keys_known(j, where, {"type"}); !s) return s;
    out.push_back({PipelineNormalize::Kind::nfc, {}, {}});
    return Ok{};
  }
  if (*type == "Prepend") {
    if (Status s = keys_known(j, where, {"type", "prepend"}); !s) return s;
    auto text = string_at(j, "prepend", where);
    if (!text) return make_error(text.error());
    out.push_back({PipelineNormalize::Kind::prepend, *text, {}});
    return Ok{};
  }
  if (*type == "Replace") {
    if (Status s = keys_known(j, where, {"type", "pattern", "content"}); !s) return s;
    auto from = string_pattern(j, where);
    if (!from) return make_error(from.error());
    auto with = string_at(j, "content", where);
    if (!with) return make_error(with.error());
    out.push_back({PipelineNormalize::Kind::replace, *from, *with});
    return Ok{};
  }
  if (*type == "Sequence") {
    if (Status s = keys_known(j, where, {"type", "normalizers"}); !s) return s;
    bool ok = false;
    const Json& list = array_at(j, "normalizers", ok);
    if (!ok) return fail(where, "\"normalizers\" must be a list");
    for (size_t i = 0; i < list.size(); ++i)
      if (Status s = read_normalizer(list[i], at_index(where, "normalizers", i), out); !s) return s;
    return Ok{};
  }
  return unsupported_type(where, *type, "NFC, Prepend, Replace, Sequence; BertNormalizer with WordPiece");
}

// ---- pre-tokenizer ---------------------------------------------------------------------------

namespace {

// Metaspace's options, shared by the pre-tokenizer and the decoder. Before prepend_scheme existed,
// add_prefix_space (default true) said always or never.
Status read_metaspace(const Json& j, const std::string& where, PipelinePreTokenize& m) {
  if (Status s = keys_known(j, where, {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"}); !s)
    return s;
  if (j.contains("replacement")) {
    auto r = string_at(j, "replacement", where);
    if (!r) return make_error(r.error());
    if (!utf8_is_valid(*r) || utf8_count(*r) != 1) return fail(where, "\"replacement\" must be one character");
    m.replacement = *r;
  }
  if (j.contains("str_rep")) {
    auto r = string_at(j, "str_rep", where);
    if (!r) return make_error(r.error());
    if (*r != m.replacement) return fail(where, "\"str_rep\" differs from \"replacement\"");
  }
  auto split = bool_at(j, "split", true, where);
  if (!split) return make_error(split.error());
  m.split = *split;
  auto prefix = bool_at(j, "add_prefix_space", true, where);
  if (!prefix) return make_error(prefix.error());
  m.prepend = *prefix ? PipelinePreTokenize::Prepend::always : PipelinePreTokenize::Prepend::never;
  if (const auto it = j.find("prepend_scheme"); it != j.end() && !it->is_null()) {
    const std::string scheme = it->is_string() ? it->get<std::string>() : it->dump();
    if (scheme == "always") m.prepend = PipelinePreTokenize::Prepend::always;
    else if (scheme == "first") m.prepend = PipelinePreTokenize::Prepend::first;
    else if (scheme == "never") m.prepend = PipelinePreTokenize::Prepend::never;
    else return fail(where, "unsupported prepend_scheme " + json_quote(scheme) + " (always, first, never)");
  }
  return Ok{};
}

Status read_byte_level(const Json& j, const std::string& where, PipelinePreTokenize* out) {
  // trim_offsets changes offsets only, which are computed here from the text itself.
  if (Status s = keys_known(j, where, {"type", "add_prefix_space", "trim_offsets", "use_regex"}); !s) return s;
  auto prefix = bool_at(j, "add_prefix_space", true, where);
  if (!prefix) return make_error(prefix.error());
  auto regex = bool_at(j, "use_regex", true, where);
  if (!regex) return make_error(regex.error());
  if (auto trim = bool_at(j, "trim_offsets", true, where); !trim) return make_error(trim.error());
  if (out) {
    out->kind = PipelinePreTokenize::Kind::byte_level;
    out->add_prefix_space = *prefix;
    out->use_regex = *regex;
    out->pattern = SplitPattern::gpt2;
  }
  return Ok{};
}

}  // namespace

Status read_pre_tokenizer(const Json& j, const std::string& where, std::vector<PipelinePreTokenize>& out) {
  if (j.is_null()) return Ok{};
  auto type = type_of(j, where);
  if (!type) return make_error(type.error());
  PipelinePreTokenize step;
  if (*type == "ByteLevel") {
    if (Status s = read_byte_level(j, where, &step); !s) return s;
  } else if (*type == "Split") {
    if (Status s = keys_known(j, where, {"type", "pattern", "behavior", "invert"}); !s) return s;
    const auto pattern = j.find("pattern");
    if (pattern == j.end() || !pattern->is_object() || pattern->size() != 1)
      return fail(where, "\"pattern\" must be {\"Regex\": ...}");
    const auto regex = pattern->find("Regex");
    if (regex == pattern->end() || !regex->is_string())
      return fail(where, "unsupported Split pattern " + json_quote(pattern->dump()) + " (a known Regex only)");
    const auto known = split_pattern_from_regex(regex->get_ref<const std::string&>());
    if (!known)
      return fail(where, "unsupported Split pattern " + json_quote(regex->get<std::string>()) +
                             " (known: GPT-2's, Llama 3's and Qwen2's, exactly)");
    auto behavior = string_at(j, "behavior", where);
    if (!behavior) return make_error(behavior.error());
    if (*behavior != "Isolated")
      return fail(where, "unsupported Split behavior " + json_quote(*behavior) + " (Isolated only)");
    auto invert = bool_at(j, "invert", false, where);
    if (!invert) return make_error(invert.error());
    if (*invert) return fail(where, "a Split with \"invert\": true is not supported");
    step.kind = PipelinePreTokenize::Kind::split;
    step.pattern = *known;
  } else if (*type == "Metaspace") {
    step.kind = PipelinePreTokenize::Kind::metaspace;
    if (Status s = read_metaspace(j, where, step); !s) return s;
  } else if (*type == "Sequence") {
    if (Status s = keys_known(j, where, {"type", "pretokenizers"}); !s) return s;
    bool ok = false;
    const Json& list = array_at(j, "pretokenizers", ok);
    if (!ok) return fail(where, "\"pretokenizers\" must be a list");
    for (size_t i = 0; i < list.size(); ++i)
      if (Status s = read_pre_tokenizer(list[i], at_index(where, "pretokenizers", i), out); !s) return s;
    return Ok{};
  } else {
    return unsupported_type(where, *type, "ByteLevel, Split, Metaspace, Sequence; BertPreTokenizer with WordPiece");
  }
  out.push_back(std::move(step));
  return Ok{};
}

// ---- post-processor --------------------------------------------------------------------------

namespace {

// [text, id] as RobertaProcessing and BertProcessing give cls and sep.
Result<int> token_pair(const Json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_string() || !(*it)[1].is_number_integer() ||
      (*it)[1].get<int64_t>() < 0 || (*it)[1].get<int64_t>() > INT32_MAX)
    return fail(where, std::string("\"") + key + "\" must be [token, id]");
  return int((*it)[1].get<int64_t>());
}

Result<std::vector<PipelineFramePart>> read_template(const Json& pp, const char* which, const std::string& where) {
  bool ok = false;
  const Json& items = array_at(pp, which, ok);
  if (!ok) return fail(where, std::string("\"") + which + "\" must be a list");
  const auto specials = pp.find("special_tokens");
  std::vector<PipelineFramePart> parts;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string at = at_index(where, which, i);
    const Json& item = items[i];
    const bool seq = item.is_object() && item.size() == 1 && item.contains("Sequence");
    const bool spe = item.is_object() && item.size() == 1 && item.contains("SpecialToken");
    if (!seq && !spe) return fail(at, "must be {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    const Json& body = seq ? item["Sequence"] : item["SpecialToken"];
    if (!body.is_object()) return fail(at, "expected an object");
    if (Status s = keys_known(body, at, {"id", "type_id"}); !s) return make_error(s.error());
    auto id = string_at(body, "id", at);
    if (!id) return make_error(id.error());
    auto type_id = int_at(body, "type_id", 0, at);
    if (!type_id) return make_error(type_id.error());
    PipelineFramePart part;
    part.type_id = *type_id;
    if (seq) {
      if (*id != "A" && *id != "B") return fail(at, "a Sequence must be \"A\" or \"B\", not " + json_quote(*id));
      part.sequence = *id == "A" ? 0 : 1;
    } else {
      const Json* sp = nullptr;
      if (specials != pp.end() && specials->is_object())
        if (const auto it = specials->find(*id); it != specials->end()) sp = &*it;
      if (sp == nullptr || !sp->is_object())
        return fail(at, "the special token " + json_quote(*id) + " is not in special_tokens");
      if (Status s = keys_known(*sp, where + ".special_tokens." + *id, {"id", "ids", "tokens"}); !s) return make_error(s.error());
      const auto ids = sp->find("ids");
      if (ids == sp->end() || !ids->is_array() || ids->empty())
        return fail(where + ".special_tokens." + *id, "\"ids\" must be a non-empty list");
      for (const Json& v : *ids) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
          return fail(where + ".special_tokens." + *id, "\"ids\" must hold non-negative integers");
        part.ids.push_back(int(v.get<int64_t>()));
      }
    }
    parts.push_back(std::move(part));
  }
  // A special token goes with the sentence after it when it shares that sentence's type id (Llama 3's
  // BOS before B), else with the one before it (BERT's [SEP] after A).
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].sequence >= 0) continue;
    const auto next = std::find_if(parts.begin() + std::ptrdiff_t(i), parts.end(), [](const auto& p) { return p.sequence >= 0; });
    const auto prev = std::find_if(parts.rbegin() + std::ptrdiff_t(parts.size() - i), parts.rend(),
                                   [](const auto& p) { return p.sequence >= 0; });
    if (next != parts.end() && next->type_id == parts[i].type_id) parts[i].segment = next->sequence;
    else if (prev != parts.rend()) parts[i].segment = prev->sequence;
    else if (next != parts.end()) parts[i].segment = next->sequence;
  }
  return parts;
}

}  // namespace

// One post-processor; `framed` says whether one before it already framed the sentences.
Status read_post_processor(const Json& j, const std::string& where, PipelineSpec& spec, bool& framed) {
  if (j.is_null()) return Ok{};
  auto type = type_of(j, where);
  if (!type) return make_error(type.error());
  using Part = PipelineFramePart;
  if (*type == "ByteLevel") return read_byte_level(j, where, nullptr);
  if (*type == "Sequence") {
    if (Status s = keys_known(j, where, {"type", "processors"}); !s) return s;
    bool ok = false;
    const Json& list = array_at(j, "processors", ok);
    if (!ok) return fail(where, "\"processors\" must be a list");
    for (size_t i = 0; i < list.size(); ++i)
      if (Status s = read_post_processor(list[i], at_index(where, "processors", i), spec, framed); !s) return s;
    return Ok{};
  }
  if (*type != "TemplateProcessing" && *type != "RobertaProcessing" && *type != "BertProcessing")
    return unsupported_type(where, *type, "TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel, Sequence");
  if (framed) return fail(where, "a second post-processor that adds special tokens is not supported");
  framed = true;
  if (*type == "TemplateProcessing") {
    if (Status s = keys_known(j, where, {"type", "single", "pair", "special_tokens"}); !s) return s;
    auto single = read_template(j, "single", where);
    if (!single) return make_error(single.error());
    auto pair = read_template(j, "pair", where);
    if (!pair) return make_error(pair.error());
    // A pair closed by a special token after B is a model trained on framed pairs (BERT's [SEP]);
    // Llama's BOS A BOS B is not.
    spec.frames_pairs = !pair->empty() && pair->back().sequence < 0 &&
                        std::any_of(pair->begin(), pair->end(), [](const Part& p) { return p.sequence == 1; });
    spec.single = std::move(*single);
    spec.pair = std::move(*pair);
    return Ok{};
  }
  const bool roberta = *type == "RobertaProcessing";
  // trim_offsets and add_prefix_space change offsets only.
  if (Status s = roberta ? keys_known(j, where, {"type", "sep", "cls", "trim_offsets", "add_prefix_space"})
                         : keys_known(j, where, {"type", "sep", "cls"});
      !s)
    return s;
  if (roberta)
    for (const char* key : {"trim_offsets", "add_prefix_space"})
      if (auto b = bool_at(j, key, true, where); !b) return make_error(b.error());
  auto cls = token_pair(j, "cls", where);
  if (!cls) return make_error(cls.error());
  auto sep = token_pair(j, "sep", where);
  if (!sep) return make_error(sep.error());
  // RoBERTa: <s> A </s> </s> B </s>, every type id 0 (Rust; transformers.js gives B's part 1).
  // BERT: [CLS] A [SEP] B [SEP], B's part type 1.
  const int b_type = roberta ? 0 : 1;
  spec.single = std::vector<Part>{{-1, {*cls}, 0, 0}, {0, {}, 0, 0}, {-1, {*sep}, 0, 0}};
  std::vector<Part> pair{{-1, {*cls}, 0, 0}, {0, {}, 0, 0}, {-1, {*sep}, 0, 0}};
  if (roberta) pair.push_back({-1, {*sep}, 0, 1});
  pair.push_back({1, {}, b_type, 1});
  pair.push_back({-1, {*sep}, b_type, 1});
  spec.pair = std::move(pair);
  spec.frames_pairs = true;
  return Ok{};
}

// ---- decoder ---------------------------------------------------------------------------------

Status read_decoder(const Json& j, const std::string& where, std::vector<PipelineDecode>& out) {
  auto type = type_of(j, where);
  if (!type) return make_error(type.error());
  PipelineDecode step;
  if (*type == "ByteLevel") {
    if (Status s = read_byte_level(j, where, nullptr); !s) return s;
    step.kind = PipelineDecode::Kind::byte_level;
  } else if (*type == "Replace") {
    if (Status s = keys_known(j, where, {"type", "pattern", "content"}); !s) return s;
    auto from = string_pattern(j, where);
    if (!from) return make_error(from.error());
    auto with = string_at(j, "content", where);
    if (!with) return make_error(with.error());
    step = {PipelineDecode::Kind::replace, *from, *with};
  } else if (*type == "ByteFallback" || *type == "Fuse") {
    if (Status s = keys_known(j, where, {"type"}); !s) return s;
    step.kind = *type == "Fuse" ? PipelineDecode::Kind::fuse : PipelineDecode::Kind::byte_fallback;
  } else if (*type == "Strip") {
    if (Status s = keys_known(j, where, {"type", "content", "start", "stop"}); !s) return s;
    auto content = string_at(j, "content", where);
    if (!content) return make_error(content.error());
    if (!utf8_is_valid(*content) || utf8_count(*content) != 1) return fail(where, "\"content\" must be one character");
    auto start = int_at(j, "start", 0, where);
    if (!start) return make_error(start.error());
    auto stop = int_at(j, "stop", 0, where);
    if (!stop) return make_error(stop.error());
    step = {PipelineDecode::Kind::strip, *content, {}, *start, *stop};
  } else if (*type == "Metaspace") {
    PipelinePreTokenize m;
    if (Status s = read_metaspace(j, where, m); !s) return s;
    step.kind = PipelineDecode::Kind::metaspace;
    step.text = m.replacement;
    step.strip_first = m.prepend != PipelinePreTokenize::Prepend::never;
  } else if (*type == "Sequence") {
    if (Status s = keys_known(j, where, {"type", "decoders"}); !s) return s;
    bool ok = false;
    const Json& list = array_at(j, "decoders", ok);
    if (!ok) return fail(where, "\"decoders\" must be a list");
    for (size_t i = 0; i < list.size(); ++i)
      if (Status s = read_decoder(list[i], at_index(where, "decoders", i), out); !s) return s;
    return Ok{};
  } else {
    return unsupported_type(where, *type, "ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, Sequence");
  }
  out.push_back(std::move(step));
  return Ok{};
}

}  // namespace attnviz::tokenizer_json_detail
