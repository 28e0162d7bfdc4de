// tokenizer.json for the model families people study (tests/fixtures/tokenizer_json, written by
// make_tokenizer_json.py): ids, pieces, type ids, special flags and decode against transformers.js for
// every tokenizer and case; the bytes each token covers; added-token options; the loader's errors.
#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "io/hf_tokenizer_files.h"
#include "support/fixture_util.h"
#include "text/bpe_tokenizer.h"
#include "text/pipeline_tokenizer.h"
#include "text/pretokenize_split.h"
#include "text/tokenizer_json.h"
#include "text/unicode.h"
#include "base/utf8.h"
#include "support/token_util.h"

using namespace attnviz;
using attnviz::test::ids_of;
using nlohmann::json;

namespace {

const std::vector<std::string> kNames = {"llama3_bpe",  "qwen2_bpe",   "llama2_spm", "mistral_spm_metaspace",
                                         "roberta_bpe", "distilbert_wordpiece"};

std::string fixture_text(const std::string& rel) {
  auto bytes = file_read_bytes(test::fixture_path("tokenizer_json/" + rel));
  REQUIRE_MESSAGE(bytes.ok(), bytes.error());
  return std::string(bytes->begin(), bytes->end());
}

const json& expected() {
  static const json j = json::parse(fixture_text("expected.json"));
  return j;
}

std::unique_ptr<SubwordTokenizer> load_text(const std::string& text, const std::string& config = {}) {
  auto t = tokenizer_from_json(text, config);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

std::unique_ptr<SubwordTokenizer> load(const std::string& name) { return load_text(fixture_text(name + "/tokenizer.json")); }

json fixture_json(const std::string& name) { return json::parse(fixture_text(name + "/tokenizer.json")); }

// The error tokenizer_from_json gives for an edited fixture.
std::string error_of(const json& j) {
  auto t = tokenizer_from_json(j.dump());
  REQUIRE_FALSE(t.ok());
  return t.error();
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

std::string replace_all(std::string s, const std::string& from, const std::string& with) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + with.size())) s.replace(at, from.size(), with);
  return s;
}

bool is_nfc(const std::string& s) {
  std::u32string cps;
  for (size_t p = 0; p < s.size();) cps.push_back(utf8_next(s, p));
  return unicode_nfc(cps) == cps;
}

// What every encoding of a fixture keeps, whatever the family: framing tokens are special and
// cover nothing; every other token covers a non-empty range of its own sentence, in order; for the
// byte-level families each sentence is tiled and each token covers exactly its piece's bytes
// (after NFC for Qwen2); for the SentencePiece ones the covered text, spaces as ▁, is the piece (the
// ▁ SentencePiece prepends covers the character it stands before) and a <0xNN> piece covers its byte.
void check_offsets(const std::string& name, const SubwordTokenizer& tok, const SubwordEncoding& enc,
                   const std::vector<std::string>& specials) {
  const bool byte_level = name == "llama3_bpe" || name == "qwen2_bpe" || name == "roberta_bpe";
  const bool spm = name == "llama2_spm" || name == "mistral_spm_metaspace";
  size_t at[2] = {0, 0}, last_begin[2] = {0, 0};
  for (const SubwordToken& t : enc.tokens) {
    const bool listed_special = std::find(specials.begin(), specials.end(), t.piece) != specials.end();
    // The unknown token the model gives for a word it cannot spell is not a special token there.
    CHECK_MESSAGE(t.special == (listed_special && !t.unknown), t.piece);
    if (t.special && t.begin == t.end) continue;  // framing
    REQUIRE((t.segment == 0 || t.segment == 1));
    const std::string& text = t.segment == 0 ? enc.text : enc.text_b;
    INFO(name << " token " << t.piece << " [" << t.begin << ", " << t.end << ")");
    REQUIRE(t.begin < t.end);
    REQUIRE(t.end <= text.size());
    CHECK(t.begin >= last_begin[t.segment]);
    last_begin[t.segment] = t.begin;
    const std::string covered = text.substr(t.begin, t.end - t.begin);
    const auto* pipeline = dynamic_cast<const PipelineTokenizer*>(&tok);
    const bool added = pipeline != nullptr && pipeline->is_added(t.id);
    if (byte_level) {
      CHECK(t.begin == at[t.segment]);  // tiled
      at[t.segment] = t.end;
      if (added)
        CHECK((contains(covered, t.piece) || t.piece == "café"));  // lstrip takes spaces; NFD "café"
      else if (is_nfc(text))
        CHECK(covered == bpe_piece_bytes(t.piece));
    } else if (spm && !added) {
      if (t.piece.size() == 6 && t.piece.starts_with("<0x")) {
        CHECK(t.end - t.begin == 1);
        CHECK(uint8_t(covered[0]) == uint8_t(std::stoi(t.piece.substr(3, 2), nullptr, 16)));
      } else {
        const std::string shown = replace_all(covered, " ", "\xE2\x96\x81");
        CHECK((t.piece == shown || t.piece == "\xE2\x96\x81" + shown ||
               (t.piece == "\xE2\x96\x81" && utf8_count(covered) == 1)));
      }
    }
  }
  if (byte_level) {
    CHECK(at[0] == enc.text.size());
    CHECK(at[1] == enc.text_b.size());
  }
}

}  // namespace

TEST_CASE("tokenizer.json: every family's ids, pieces and type ids equal transformers.js on every case") {
  const json& exp = expected();
  size_t cases = 0;
  for (const std::string& name : kNames) {
    const auto tok = load(name);
    const json tj = fixture_json(name);
    std::vector<std::string> specials;
    for (const json& a : tj["added_tokens"])
      if (a["special"].get<bool>()) specials.push_back(a["content"].get<std::string>());
    for (const json& c : exp[name]["cases"]) {
      INFO(name << " / " << c["name"].get<std::string>());
      const std::string text = c["text"].get<std::string>();
      auto enc = c.contains("text_b") ? tok->encode(text, c["text_b"].get<std::string>()) : tok->encode(text);
      REQUIRE_MESSAGE(enc.ok(), enc.error());
      CHECK(ids_of(*enc) == c["ids"].get<std::vector<int>>());
      std::vector<std::string> pieces;
      std::vector<int> segments, types;
      for (const SubwordToken& t : enc->tokens) {
        pieces.push_back(t.piece);
        segments.push_back(t.segment);
        types.push_back(t.type_id);
        CHECK(t.piece == tok->piece(t.id));
      }
      CHECK(pieces == c["pieces"].get<std::vector<std::string>>());
      // RoBERTa: transformers.js gives B's part type 1, which is our segment; Rust (and the model, with
      // one token type) 0 for all.
      const auto js_types = c["token_type_ids"].get<std::vector<int>>();
      CHECK(segments == js_types);
      CHECK(types == (name == "roberta_bpe" ? std::vector<int>(js_types.size(), 0) : js_types));
      check_offsets(name, *tok, *enc, specials);
      // transformers.js's WordPiece decoder cleans up spaces before punctuation; ours keeps them.
      if (name != "distilbert_wordpiece") CHECK(tok->decode(ids_of(*enc)) == c["decoded"].get<std::string>());
      ++cases;
    }
  }
  CHECK(cases == 6 * 28);
}

TEST_CASE("tokenizer.json: the file picks the tokenizer, and the pipeline's properties follow it") {
  CHECK(load("llama3_bpe")->kind_name() == "byte-level-bpe");
  CHECK(load("llama2_spm")->kind_name() == "sentencepiece-bpe");
  CHECK(load("distilbert_wordpiece")->kind_name() == "wordpiece");
  auto gpt2 = file_read_bytes(test::fixture_path("hf/gpt2_tiny/tokenizer.json"));
  REQUIRE(gpt2.ok());
  CHECK(load_text(std::string(gpt2->begin(), gpt2->end()))->kind_name() == "gpt2-bpe");
  // Models trained on framed pairs offer sentence B; Llama's BOS A BOS B template does not.
  for (const auto& folder : {std::pair{"roberta_bpe", true}, std::pair{"distilbert_wordpiece", true},
                             std::pair{"llama3_bpe", false}, std::pair{"llama2_spm", false},
                             std::pair{"qwen2_bpe", false}}) {
    const char* name = folder.first;
    const bool pairs = folder.second;
    INFO(name);
    CHECK(load(name)->frames_pairs() == pairs);
  }
  // Llama folders name their padding token in tokenizer_config.json, if at all.
  const std::string llama2 = fixture_text("llama2_spm/tokenizer.json");
  CHECK_FALSE(load_text(llama2)->pad_id());
  CHECK(load_text(llama2, R"({"pad_token": "</s>", "model_max_length": 4096})")->pad_id() == 2);
  CHECK(load_text(llama2, R"({"pad_token": {"content": "<unk>", "lstrip": false}})")->pad_id() == 0);
  auto bad_pad = tokenizer_from_json(llama2, R"({"pad_token": "<pad>"})");
  REQUIRE_FALSE(bad_pad.ok());
  CHECK(bad_pad.error() == "tokenizer.json: the padding token \"<pad>\" is not in the vocabulary");
  // Every fixture folder loads through the checkpoint loader, whatever family it is asked for.
  for (const std::string& name : kNames) {
    auto t = hf_tokenizer_load(test::fixture_path("tokenizer_json/" + name), CheckpointFamily::gpt2);
    REQUIRE_MESSAGE(t.ok(), t.error());
    CHECK((*t)->vocab_size() > 200);
  }
}

TEST_CASE("tokenizer.json: tokens cover the input bytes they came from") {
  SUBCASE("byte fallback: each <0xNN> piece covers its own byte of the character") {
    auto enc = load("llama2_spm")->encode("a 👩");
    REQUIRE(enc.ok());
    std::vector<std::string> pieces;
    for (const SubwordToken& t : enc->tokens) pieces.push_back(t.piece);
    REQUIRE(pieces == std::vector<std::string>{"<s>", "\xE2\x96\x81" "a", "\xE2\x96\x81", "<0xF0>", "<0x9F>", "<0x91>", "<0xA9>"});
    CHECK(enc->tokens[0].begin == enc->tokens[0].end);  // BOS: framing
    CHECK(enc->tokens[1].begin == 0);  // "▁a": the prepended ▁ stands before "a"
    CHECK(enc->tokens[1].end == 1);
    CHECK(enc->tokens[2].begin == 1);  // "▁": the space
    CHECK(enc->tokens[2].end == 2);
    for (size_t k = 0; k < 4; ++k) {
      CHECK(enc->tokens[3 + k].begin == 2 + k);
      CHECK(enc->tokens[3 + k].end == 3 + k);
      CHECK(enc->tokens[3 + k].continues);
    }
    CHECK_FALSE(enc->tokens[2].continues);
  }
  SUBCASE("NFC: a composed piece covers the decomposed input it came from") {
    const std::string nfd = "\xE1\x84\x80\xE1\x85\xB5\xE1\x86\xAF";  // 길 as three jamo (9 bytes)
    auto enc = load("qwen2_bpe")->encode(nfd);
    REQUIRE(enc.ok());
    REQUIRE_FALSE(enc->tokens.empty());
    CHECK(enc->tokens.front().begin == 0);
    CHECK(enc->tokens.back().end == 9);
    CHECK(load("qwen2_bpe")->decode(ids_of(*enc)) == "\xEA\xB8\xB8");  // 길, composed
  }
  SUBCASE("NFC unit by unit is NFC of the whole text, however long the run of marks") {
    const auto qwen2 = load("qwen2_bpe");
    std::string marks;  // classes 230 220 226 216, over and over: canonical ordering must sort them
    for (int k = 0; k < 2000; ++k) marks += "\xCC\x81\xCC\x96\xF0\x9D\x85\xAD\xF0\x9D\x85\xA5";
    const std::vector<std::string> texts = {
        "e" + marks + "\xE1\x84\x80\xE1\x85\xB5 x",    // a long unit, then jamo that compose
        marks + "e\xCC\x81",                          // marks with no starter, then é
        "a\xE0\xBD\xB3\xCC\x81",                      // a U+0F73 U+0301: U+0F73 is U+0F71 U+0F72, so á
        "\xE0\xBD\x80\xE0\xBD\xB3\xE0\xBD\xB3\xE0\xBD\xB3 b",  // ཀ and U+0F73 three times
        "\xEA\xB0\x80\xE1\x86\xA8\xE1\x86\xA8",          // 가 + ᆨ + ᆨ: LV + T composes once
        "\xE1\x84\x80\xCC\x81\xE1\x85\xB5",              // ᄀ U+0301 ᅵ: the mark blocks L + V
        "\xE0\xB3\x86\xE0\xB3\x82\xE0\xB3\x95",          // Kannada U+0CC6 U+0CC2 U+0CD5: two starters join
    };
    for (const std::string& text : texts) {
      INFO(text.substr(0, 40));
      auto enc = qwen2->encode(text, std::nullopt, SubwordLimits{.max_bytes = 1 << 20, .max_tokens = 1 << 20});
      REQUIRE(enc.ok());
      std::u32string cps;
      for (size_t p = 0; p < text.size();) cps.push_back(utf8_next(text, p));
      std::string nfc;
      for (char32_t c : unicode_nfc(cps)) utf8_append(nfc, c);
      CHECK(qwen2->decode(ids_of(*enc)) == nfc);
      CHECK(enc->tokens.front().begin == 0);
      CHECK(enc->tokens.back().end == text.size());
    }
  }
  SUBCASE("a typed special token covers its text; framing covers nothing") {
    auto enc = load("llama3_bpe")->encode("Hi<|eot_id|>");
    REQUIRE(enc.ok());
    const SubwordToken& eot = enc->tokens.back();
    CHECK(eot.piece == "<|eot_id|>");
    CHECK(eot.special);
    CHECK(eot.begin == 2);
    CHECK(eot.end == 12);
    CHECK(enc->tokens.front().special);
    CHECK(enc->tokens.front().begin == enc->tokens.front().end);
  }
  SUBCASE("RoBERTa's <mask> takes the spaces before it (lstrip)") {
    auto enc = load("roberta_bpe")->encode("a   <mask>");
    REQUIRE(enc.ok());
    REQUIRE(enc->tokens.size() == 4);
    CHECK(enc->tokens[2].piece == "<mask>");
    CHECK(enc->tokens[2].begin == 1);
    CHECK(enc->tokens[2].end == 10);
  }
}

TEST_CASE("tokenizer.json: added tokens' single_word, lstrip and rstrip work as in Hugging Face's Rust library") {
  json j = fixture_json("llama3_bpe");
  const int id = int(j["added_tokens"].back()["id"].get<int>()) + 1;
  j["added_tokens"].push_back({{"id", id}, {"content", "<mask>"}, {"single_word", true}, {"lstrip", false},
                               {"rstrip", false}, {"normalized", false}, {"special", true}});
  auto tok = load_text(j.dump());
  const auto masks = [&](const std::string& text) {
    auto enc = tok->encode(text);
    REQUIRE(enc.ok());
    std::vector<std::pair<size_t, size_t>> out;
    for (const SubwordToken& t : enc->tokens)
      if (t.id == id) out.emplace_back(t.begin, t.end);
    return out;
  };
  // Kept at the start, between spaces and at the end; dropped beside a letter ("A<mask>", "<mask>ony").
  using V = std::vector<std::pair<size_t, size_t>>;
  CHECK(masks("<mask> My name <mask> A<mask> <mask>ony <mask>") == V{{0, 6}, {15, 21}, {40, 46}});
  // Punctuation is not a word character.
  CHECK(masks("<mask>, <mask>- x") == V{{0, 6}, {8, 14}});
  j["added_tokens"].back()["single_word"] = false;
  j["added_tokens"].back()["lstrip"] = true;
  j["added_tokens"].back()["rstrip"] = true;
  tok = load_text(j.dump());
  CHECK(masks("Hi <mask> there\t<mask>\t<mask>\xE2\x80\x80") == V{{2, 10}, {15, 23}, {23, 32}});
}

TEST_CASE("tokenizer.json: SentencePiece BPE without byte fallback fuses unknown characters into one <unk>") {
  json j = fixture_json("llama2_spm");
  j["model"]["byte_fallback"] = false;
  auto tok = load_text(j.dump());
  auto enc = tok->encode("a \xE6\xBC\xA2\xE5\xAD\x97 b");  // 漢字: not in the vocabulary
  REQUIRE(enc.ok());
  std::vector<std::string> pieces;
  for (const SubwordToken& t : enc->tokens) pieces.push_back(t.piece);
  CHECK(pieces == std::vector<std::string>{"<s>", "\xE2\x96\x81" "a", "\xE2\x96\x81", "<unk>", "\xE2\x96\x81" "b"});
  CHECK(enc->tokens[3].unknown);
  CHECK(enc->tokens[3].begin == 2);
  CHECK(enc->tokens[3].end == 8);
  j["model"]["fuse_unk"] = false;
  enc = load_text(j.dump())->encode("a \xE6\xBC\xA2\xE5\xAD\x97 b");
  REQUIRE(enc.ok());
  CHECK(enc->tokens.size() == 6);
}

TEST_CASE("tokenizer.json: Llama 3's and Qwen2's split patterns, by hand") {
  const auto split = [](SplitPattern p, const std::string& s) {
    std::vector<std::string> out;
    for (size_t pos = 0; pos < s.size();) {
      const size_t end = split_pattern_end(p, s, pos);
      REQUIRE(end > pos);
      out.push_back(s.substr(pos, end - pos));
      pos = end;
    }
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(split(SplitPattern::llama3, "I'M ok'd 12345 (x)\n\n  y") ==
        V{"I", "'M", " ok", "'d", " ", "123", "45", " (", "x", ")\n\n", " ", " y"});
  CHECK(split(SplitPattern::qwen2, "ab 123") == V{"ab", " ", "1", "2", "3"});
  CHECK(split(SplitPattern::llama3, "a \t\n b") == V{"a", " \t\n", " b"});
  CHECK(split(SplitPattern::llama3, "x   ") == V{"x", "   "});
  CHECK(split_pattern_from_regex(split_pattern_regex(SplitPattern::qwen2)) == SplitPattern::qwen2);
  CHECK_FALSE(split_pattern_from_regex("\\s+"));
}

TEST_CASE("tokenizer.json: limits stop long input") {
  auto tok = load("llama3_bpe");
  SubwordLimits limits;
  limits.max_tokens = 5;
  auto enc = tok->encode("one two three four five six", std::nullopt, limits);
  REQUIRE_FALSE(enc.ok());
  CHECK(enc.error() == "the text has more than 5 tokens");
  limits.max_bytes = 4;
  enc = tok->encode("hello", std::nullopt, limits);
  REQUIRE_FALSE(enc.ok());
  CHECK(enc.error() == "the text is 5 bytes; the limit is 4");
  // A long input in reasonable time: 200 KB of mixed text.
  std::string big;
  while (big.size() < 200000) big += "The animal didn't cross 길을 12345 \xF0\x9F\xA4\x96 ";
  auto many = tok->encode(big, std::nullopt, SubwordLimits{.max_bytes = 1 << 20, .max_tokens = 1 << 20});
  REQUIRE(many.ok());
  CHECK(many->tokens.size() > 30000);
}

TEST_CASE("tokenizer.json: errors name what is unknown and where it is") {
  const json llama3 = fixture_json("llama3_bpe"), llama2 = fixture_json("llama2_spm");
  CHECK(tokenizer_from_json("{\"model\": ").error() == "tokenizer.json is not valid JSON");
  {
    json j = llama2;
    j["normalizer"]["normalizers"][0] = {{"type", "Lowercase"}};
    CHECK(error_of(j) == "tokenizer.json: normalizer.normalizers[0]: unsupported type 'Lowercase' (supported: NFC, "
                         "Prepend, Replace, Sequence; BertNormalizer with WordPiece)");
  }
  {
    json j = llama3;
    j["pre_tokenizer"]["pretokenizers"][1] = {{"type", "Digits"}, {"individual_digits", true}};
    CHECK(contains(error_of(j), "tokenizer.json: pre_tokenizer.pretokenizers[1]: unsupported type 'Digits'"));
  }
  {
    json j = llama3;
    j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\p{L}+|\\s+";
    CHECK(error_of(j) == "tokenizer.json: pre_tokenizer.pretokenizers[0]: unsupported Split pattern '\\p{L}+|\\s+' "
                         "(known: GPT-2's, Llama 3's and Qwen2's, exactly)");
    j = llama3;
    j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed";
    CHECK(error_of(j) == "tokenizer.json: pre_tokenizer.pretokenizers[0]: unsupported Split behavior 'Removed' (Isolated only)");
  }
  {
    json j = llama3;
    j["model"]["type"] = "Unigram";
    CHECK(error_of(j) == "tokenizer.json: model: unsupported type 'Unigram' (supported: BPE, WordPiece)");
    j = llama3;
    j["post_processor"]["processors"][1]["type"] = "Whatever";
    CHECK(contains(error_of(j), "tokenizer.json: post_processor.processors[1]: unsupported type 'Whatever'"));
    j = llama2;
    j["decoder"]["decoders"][2] = {{"type", "CTC"}};
    CHECK(contains(error_of(j), "tokenizer.json: decoder.decoders[2]: unsupported type 'CTC'"));
    j = llama3;
    j.erase("normalizer");
    j["normalizer"] = {{"typo", "NFC"}};
    CHECK(error_of(j) == "tokenizer.json: normalizer: has no \"type\" string");
  }
  {
    json j = llama3;
    j["model"]["cache_capacity"] = 10;
    CHECK(error_of(j) ==
          "tokenizer.json: model: unknown key 'cache_capacity' (known: type, dropout, unk_token, "
          "continuing_subword_prefix, end_of_word_suffix, fuse_unk, byte_fallback, ignore_merges, vocab, merges)");
    j = llama3;
    j["extra"] = 1;
    CHECK(error_of(j) ==
          "tokenizer.json: the top level: unknown key 'extra' (known: version, truncation, padding, "
          "added_tokens, normalizer, pre_tokenizer, post_processor, decoder, model)");
    j = llama3;
    j["added_tokens"][0]["weight"] = 1;
    CHECK(error_of(j) ==
          "tokenizer.json: added_tokens[0]: unknown key 'weight' (known: id, content, single_word, lstrip, "
          "rstrip, normalized, special)");
    j = llama3;
    j["model"]["dropout"] = 0.1;
    CHECK(error_of(j) == "tokenizer.json: model: BPE dropout is not supported (it makes the ids random)");
  }
  {
    json j = llama3;
    j["model"]["merges"][0] = "Ġ zzz";
    CHECK(error_of(j) == "tokenizer.json: merge 1 (\"Ġ zzz\"): \"zzz\" is not in the vocabulary");
    j = llama3;
    j["model"]["merges"][0] = "Ġ Ā";
    CHECK(contains(error_of(j), "the result \"ĠĀ\" is not in the vocabulary"));
    j = llama3;
    j["model"]["merges"][3] = "a b c";
    CHECK(error_of(j) == "tokenizer.json: model.merges[3]: is neither \"left right\" nor [\"left\", \"right\"]");
  }
  {
    json j = llama3;
    j["added_tokens"][0]["id"] = 5;
    CHECK(contains(error_of(j), "the added token \"<|begin_of_text|>\" has id 5, which the vocabulary gives to"));
    j = llama3;
    j["added_tokens"].back()["id"] = 100000;
    CHECK(contains(error_of(j), "the added token \"<|eot_id|>\" has id 100000, leaving ids"));
    j = llama3;
    j["post_processor"]["processors"][1]["special_tokens"]["<|begin_of_text|>"]["ids"][0] = 999999;
    CHECK(error_of(j) == "tokenizer.json: the post-processor's special token id 999999 is outside the vocabulary");
    j = llama3;
    j["post_processor"]["processors"][1]["single"][0]["SpecialToken"]["id"] = "<bos>";
    CHECK(error_of(j) == "tokenizer.json: post_processor.processors[1].single[0]: the special token '<bos>' is not in "
                         "special_tokens");
    j = llama3;
    j["model"]["vocab"].erase("Ā");
    CHECK(contains(error_of(j), "tokenizer.json: model.vocab: the id of"));
    j = llama2;
    j["model"]["unk_token"] = "<unknown>";
    CHECK(error_of(j) == "tokenizer.json: the unknown token \"<unknown>\" is not in the vocabulary");
  }
}

TEST_CASE("tokenizer.json: a byte-level vocabulary must have every byte") {
  json j = fixture_json("roberta_bpe");
  // Replace the byte symbol "Ā" (byte 0x00) with a new piece of the same id.
  const int id = j["model"]["vocab"]["Ā"].get<int>();
  j["model"]["vocab"].erase("Ā");
  j["model"]["vocab"]["zzz"] = id;
  CHECK(error_of(j) == "tokenizer.json: the vocabulary has no symbol for byte 0x00 (\"Ā\")");
}

TEST_CASE("tokenizer.json: decode follows the file's decoder") {
  auto llama2 = load("llama2_spm");
  auto enc = llama2->encode("Hello 👩 world");
  REQUIRE(enc.ok());
  CHECK(llama2->decode(ids_of(*enc)) == "<s> Hello 👩 world");
  // Without the BOS the Strip decoder drops the prepended space.
  const std::vector<int> ids = ids_of(*enc);
  CHECK(llama2->decode(std::span(ids).subspan(1)) == "Hello 👩 world");
  // A slice that ends inside a character gives its bytes raw.
  auto emoji = llama2->encode("👩");
  REQUIRE(emoji.ok());
  const std::vector<int> e = ids_of(*emoji);
  CHECK(llama2->decode(std::span(e).subspan(2, 2)) == "\xF0\x9F");
  auto llama3 = load("llama3_bpe");
  enc = llama3->encode("Hi<|eot_id|> 길을");
  REQUIRE(enc.ok());
  CHECK(llama3->decode(ids_of(*enc)) == "<|begin_of_text|>Hi<|eot_id|> 길을");
  // Ids outside the vocabulary are skipped.
  CHECK(llama3->decode(std::vector<int>{-1, 1 << 30}) == "");
}
