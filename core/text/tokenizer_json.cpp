// tokenizer.json -> the tokenizer it describes: the model, the added tokens, the padding token, and
// the choice among WordPiece, GPT-2's BPE and the pipeline; the normalizer, pre-tokenizer,
// post-processor and decoder are read by tokenizer_json_sections.cpp. Messages read
// "tokenizer.json: <where>: <what>", <where> being the path to the value, e.g. "added_tokens[3]".
#include "text/tokenizer_json.h"

#include <algorithm>

#include "base/json.h"
#include "text/bpe_tokenizer.h"
#include "text/tokenizer_json_detail.h"
#include "text/wordpiece_tokenizer.h"

namespace attnviz {
namespace {

using namespace tokenizer_json_detail;

// ---- model and added tokens ------------------------------------------------------------------

Status read_bpe_model(const Json& m, PipelineSpec& spec) {
  const std::string where = "model";
  if (Status s = keys_known(m, where, {"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix",
                                       "fuse_unk", "byte_fallback", "ignore_merges", "vocab", "merges"});
      !s)
    return s;
  if (const auto d = m.find("dropout"); d != m.end() && !d->is_null() && !(d->is_number() && d->get<double>() == 0.0))
    return fail(where, "BPE dropout is not supported (it makes the ids random)");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const auto it = m.find(key);
        it != m.end() && !it->is_null() && !(it->is_string() && it->get_ref<const std::string&>().empty()))
      return fail(where, std::string("a BPE \"") + key + "\" is not supported");
  if (const auto u = m.find("unk_token"); u != m.end() && !u->is_null()) {
    if (!u->is_string()) return fail(where, "\"unk_token\" must be a string or null");
    spec.unk = u->get<std::string>();
  }
  for (auto [key, flag] : {std::pair{"fuse_unk", &spec.fuse_unk}, std::pair{"byte_fallback", &spec.byte_fallback},
                           std::pair{"ignore_merges", &spec.ignore_merges}}) {
    auto b = bool_at(m, key, false, where);
    if (!b) return make_error(b.error());
    *flag = *b;
  }
  const auto vocab = m.find("vocab");
  if (vocab == m.end() || !vocab->is_object()) return fail(where, "\"vocab\" must be an object of piece: id");
  spec.pieces.assign(vocab->size(), std::string());
  std::vector<bool> taken(vocab->size(), false);
  for (const auto& [piece, id] : vocab->items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || uint64_t(id.get<int64_t>()) >= vocab->size())
      return fail(where + ".vocab", "the id of " + json_quote(piece) + " is not an integer in 0.." +
                                        std::to_string(vocab->size() - 1));
    const auto k = size_t(id.get<int64_t>());
    if (taken[k])
      return fail(where + ".vocab", json_quote(piece) + " and " + json_quote(spec.pieces[k]) + " share id " + std::to_string(k));
    taken[k] = true;
    spec.pieces[k] = piece;
  }
  bool ok = false;
  const Json& merges = array_at(m, "merges", ok);
  if (!ok) return fail(where, "\"merges\" must be a list");
  spec.merges.reserve(merges.size());
  for (size_t k = 0; k < merges.size(); ++k) {
    const Json& e = merges[k];
    if (e.is_string()) {
      const std::string& line = e.get_ref<const std::string&>();
      const size_t space = line.find(' ');
      if (space != std::string::npos && space > 0 && space + 1 < line.size() && line.find(' ', space + 1) == std::string::npos) {
        spec.merges.emplace_back(line.substr(0, space), line.substr(space + 1));
        continue;
      }
    } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
      spec.merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
      continue;
    }
    return fail(at_index(where, "merges", k), "is neither \"left right\" nor [\"left\", \"right\"]");
  }
  return Ok{};
}

Status read_added_tokens(const Json& j, PipelineSpec& spec) {
  if (j.is_null()) return Ok{};
  if (!j.is_array()) return fail("added_tokens", "expected a list");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = at_index("", "added_tokens", i).substr(1);
    const Json& a = j[i];
    if (!a.is_object()) return fail(where, "expected an object");
    if (Status s = keys_known(a, where, {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}); !s)
      return s;
    PipelineAddedToken t;
    auto content = string_at(a, "content", where);
    if (!content) return make_error(content.error());
    t.content = *content;
    auto id = int_at(a, "id", -1, where);
    if (!id) return make_error(id.error());
    if (*id < 0) return fail(where, "\"id\" must be a non-negative integer");
    t.id = *id;
    for (auto [key, flag] : {std::pair{"single_word", &t.single_word}, std::pair{"lstrip", &t.lstrip},
                             std::pair{"rstrip", &t.rstrip}, std::pair{"special", &t.special}}) {
      auto b = bool_at(a, key, false, where);
      if (!b) return make_error(b.error());
      *flag = *b;
    }
    auto normalized = bool_at(a, "normalized", !t.special, where);  // Rust's default: special ones are not
    if (!normalized) return make_error(normalized.error());
    t.normalized = *normalized;
    spec.added.push_back(std::move(t));
  }
  return Ok{};
}

// "pad_token" as a string or an AddedToken object; absent or null: none.
Result<std::optional<std::string>> config_pad_token(std::string_view config) {
  if (config.empty()) return std::optional<std::string>();
  JsonError e;
  auto j = json_parse_strict(config, "tokenizer_config.json", kJsonMaxDepth, &e);
  if (!j) return make_error(j.error());
  if (!j->is_object()) return make_error("tokenizer_config.json is not a JSON object");
  const auto it = j->find("pad_token");
  if (it == j->end() || it->is_null()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get<std::string>());
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
    return std::optional<std::string>((*it)["content"].get<std::string>());
  return make_error("tokenizer_config.json: \"pad_token\" must be a string or an object with a \"content\" string");
}

bool has_type(const Json& obj, const char* type) {
  if (!obj.is_object()) return false;
  const auto it = obj.find("type");
  return it != obj.end() && it->is_string() && it->get_ref<const std::string&>() == type;
}

// The WordPiece loader reads the sections itself; here only what it does not check: the decoder and
// unknown keys at the top of each section.
Status check_wordpiece(const Json& j) {
  if (const auto d = j.find("decoder"); d != j.end() && !d->is_null()) {
    auto type = type_of(*d, "decoder");
    if (!type) return make_error(type.error());
    if (*type != "WordPiece") return unsupported_type("decoder", *type, "WordPiece with a WordPiece model");
    if (Status s = keys_known(*d, "decoder", {"type", "prefix", "cleanup"}); !s) return s;
  }
  if (const auto n = j.find("normalizer"); n != j.end() && has_type(*n, "BertNormalizer"))
    if (Status s = keys_known(*n, "normalizer", {"type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase"}); !s)
      return s;
  if (const auto p = j.find("pre_tokenizer"); p != j.end() && has_type(*p, "BertPreTokenizer"))
    if (Status s = keys_known(*p, "pre_tokenizer", {"type"}); !s) return s;
  return keys_known(j.at("model"), "model", {"type", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"});
}

// GPT-2's pipeline exactly, which bpe_tokenizer.h runs (faster, and "gpt2-bpe" by name).
bool is_gpt2_exact(const PipelineSpec& spec, const Json& j) {
  const auto null_or_byte_level = [&](const char* key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() || has_type(*it, "ByteLevel");
  };
  const auto none_flagged = std::none_of(spec.added.begin(), spec.added.end(), [](const PipelineAddedToken& t) {
    return t.lstrip || t.rstrip || t.single_word || !t.special;
  });
  return spec.normalizer.empty() && spec.pre_tokenizer.size() == 1 &&
         spec.pre_tokenizer[0].kind == PipelinePreTokenize::Kind::byte_level && spec.pre_tokenizer[0].use_regex &&
         !spec.pre_tokenizer[0].add_prefix_space && null_or_byte_level("post_processor") &&
         null_or_byte_level("decoder") && !spec.byte_fallback && !spec.ignore_merges && none_flagged && !spec.pad;
}

Result<std::unique_ptr<SubwordTokenizer>> read_tokenizer_json(std::string_view tokenizer_json,
                                                               std::string_view tokenizer_config_json) {
  JsonError e;
  auto parsed = json_parse_strict(tokenizer_json, "tokenizer.json", kJsonMaxDepth, &e);
  if (!parsed) return make_error(parsed.error());
  const Json& j = *parsed;
  if (!j.is_object()) return make_error("tokenizer.json is not a JSON object");
  if (Status s = keys_known(j, "the top level", {"version", "truncation", "padding", "added_tokens", "normalizer",
                                                 "pre_tokenizer", "post_processor", "decoder", "model"});
      !s)
    return make_error(s.error());
  const auto model = j.find("model");
  if (model == j.end()) return make_error("tokenizer.json has no \"model\"");
  auto model_type = type_of(*model, "model");
  if (!model_type) return make_error(model_type.error());
  if (*model_type == "WordPiece") {
    if (Status s = check_wordpiece(j); !s) return make_error(s.error());
    auto wp = wordpiece_from_tokenizer_json(tokenizer_json);
    if (!wp) return make_error(wp.error());
    return std::unique_ptr<SubwordTokenizer>(std::make_unique<WordPieceTokenizer>(std::move(*wp)));
  }
  if (*model_type != "BPE") return unsupported_type("model", *model_type, "BPE, WordPiece");

  PipelineSpec spec;
  if (Status s = read_bpe_model(*model, spec); !s) return make_error(s.error());
  if (Status s = read_added_tokens(j.value("added_tokens", Json()), spec); !s) return make_error(s.error());
  if (Status s = read_normalizer(j.value("normalizer", Json()), "normalizer", spec.normalizer); !s)
    return make_error(s.error());
  if (Status s = read_pre_tokenizer(j.value("pre_tokenizer", Json()), "pre_tokenizer", spec.pre_tokenizer); !s)
    return make_error(s.error());
  bool framed = false;
  if (Status s = read_post_processor(j.value("post_processor", Json()), "post_processor", spec, framed); !s)
    return make_error(s.error());
  if (const auto d = j.find("decoder"); d != j.end() && !d->is_null()) {
    spec.decoder.emplace();
    if (Status s = read_decoder(*d, "decoder", *spec.decoder); !s) return make_error(s.error());
  }
  if (const auto p = j.find("padding"); p != j.end() && !p->is_null()) {
    if (!p->is_object()) return make_error("tokenizer.json: padding: expected an object or null");
    if (const auto t = p->find("pad_token"); t != p->end() && t->is_string()) spec.pad = t->get<std::string>();
  }
  if (!spec.pad) {
    auto pad = config_pad_token(tokenizer_config_json);
    if (!pad) return make_error(pad.error());
    spec.pad = *pad;
  }
  const bool byte_level = std::any_of(spec.pre_tokenizer.begin(), spec.pre_tokenizer.end(), [](const auto& p) {
    return p.kind == PipelinePreTokenize::Kind::byte_level;
  });
  if (is_gpt2_exact(spec, j)) {
    auto gpt2 = bpe_from_tokenizer_json(tokenizer_json);
    if (!gpt2) return make_error(gpt2.error());
    return std::unique_ptr<SubwordTokenizer>(std::make_unique<BpeTokenizer>(std::move(*gpt2)));
  }
  spec.kind_name = byte_level ? "byte-level-bpe" : "sentencepiece-bpe";
  auto built = PipelineTokenizer::build(std::move(spec));
  if (!built) return make_error("tokenizer.json: " + built.error());
  return std::unique_ptr<SubwordTokenizer>(std::make_unique<PipelineTokenizer>(std::move(*built)));
}

}  // namespace

Result<std::unique_ptr<SubwordTokenizer>> tokenizer_from_json(std::string_view tokenizer_json,
                                                               std::string_view tokenizer_config_json) {
  // Every access above checks the value's kind first; this only keeps a slip from escaping as an
  // exception, as core never throws across its API.
  try {
    return read_tokenizer_json(tokenizer_json, tokenizer_config_json);
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("tokenizer.json: unexpected value (") + e.what() + ")");
  }
}

}  // namespace attnviz
