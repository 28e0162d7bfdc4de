// GPT-2 byte-level BPE: ids against transformers.js on a small vocabulary trained by
// tests/fixtures/tokenizers/bpe/make_bpe_fixtures.mjs, offsets, round trips, limits, the speed of
// a 1 MB word, and the loaders' error messages.
#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "support/fixture_util.h"
#include "text/bpe_merge.h"
#include "text/bpe_tokenizer.h"
#include "base/utf8.h"
#include "support/token_util.h"

using namespace attnviz;
using attnviz::test::ids_of;
using nlohmann::json;

namespace {

std::string bpe_fixture(const std::string& name) {
  auto bytes = file_read_bytes(test::fixture_path("tokenizers/bpe/" + name));
  REQUIRE_MESSAGE(bytes.ok(), bytes.error());
  return std::string(bytes->begin(), bytes->end());
}

BpeTokenizer load_vocab_merges() {
  auto t = bpe_from_vocab_merges(bpe_fixture("vocab.json"), bpe_fixture("merges.txt"));
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

BpeTokenizer load_tokenizer_json(const std::string& name = "tokenizer.json") {
  auto t = bpe_from_tokenizer_json(bpe_fixture(name));
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::vector<std::string> pieces_of(const SubwordEncoding& e) {
  std::vector<std::string> out;
  for (const SubwordToken& t : e.tokens) out.push_back(t.piece);
  return out;
}

// The invariants every encoding keeps: each segment's tokens tile its text with no gap or overlap,
// each token's bytes are exactly its piece's bytes, and decode gives the sanitized text back.
void check_invariants(const BpeTokenizer& tok, const SubwordEncoding& e) {
  size_t next[2] = {0, 0};
  for (const SubwordToken& t : e.tokens) {
    REQUIRE((t.segment == 0 || t.segment == 1));
    const std::string& text = t.segment == 0 ? e.text : e.text_b;
    CHECK(t.begin == next[t.segment]);
    REQUIRE(t.end > t.begin);
    REQUIRE(t.end <= text.size());
    next[t.segment] = t.end;
    CHECK(tok.piece(t.id) == t.piece);
    CHECK(tok.decode(std::vector<int>{t.id}) == text.substr(t.begin, t.end - t.begin));
    CHECK_FALSE(t.unknown);
  }
  CHECK(next[0] == e.text.size());
  CHECK(next[1] == e.text_b.size());
  CHECK(tok.decode(ids_of(e)) == e.text + e.text_b);
}

// Runs every case of expected_ids.json's `list` through tok and compares ids and pieces.
void check_cases(const BpeTokenizer& tok, const json& list) {
  REQUIRE(list.is_array());
  REQUIRE(list.size() >= 2);
  for (const json& c : list) {
    const std::string name = c["name"];
    CAPTURE(name);
    const std::string text = c["text"];
    const std::string input = c.contains("raw_hex") ? from_hex(c["raw_hex"]) : text;
    auto e = tok.encode(input);
    REQUIRE_MESSAGE(e.ok(), e.error());
    CHECK(e->text == text);
    CHECK(ids_of(*e) == c["ids"].get<std::vector<int>>());
    CHECK(pieces_of(*e) == c["pieces"].get<std::vector<std::string>>());
    check_invariants(tok, *e);
  }
}

json expected_ids() {
  json j = json::parse(bpe_fixture("expected_ids.json"), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("bpe: GPT-2's byte table and piece bytes") {
  CHECK(bpe_byte_char('A') == U'A');
  CHECK(bpe_byte_char('!') == U'!');
  CHECK(bpe_byte_char(0x00) == U'\u0100');
  CHECK(bpe_byte_char(' ') == U'\u0120');   // Ġ
  CHECK(bpe_byte_char('\n') == U'\u010A');  // Ċ
  CHECK(bpe_byte_char(0x7F) == U'\u0121');
  CHECK(bpe_byte_char(0xA0) == U'\u0142');
  CHECK(bpe_byte_char(0xA1) == U'\u00A1');
  CHECK(bpe_byte_char(0xAD) == U'\u0143');  // the last of the 68 remapped bytes
  CHECK(bpe_byte_char(0xFF) == U'\u00FF');
  CHECK(bpe_piece_bytes("\xC4\xA0" "cat") == " cat");
  CHECK(bpe_piece_bytes("\xC3\x83\xC2\xA9") == "\xC3\xA9");  // "Ã©" -> é
  CHECK(bpe_piece_bytes("\xC4\x8A\xC4\x80") == std::string("\n\0", 2));
  CHECK(bpe_piece_bytes("<|endoftext|>") == "<|endoftext|>");
  CHECK(bpe_piece_bytes("\xE4\xBD\xA0") == "\xE4\xBD\xA0");  // 你 is outside the alphabet: itself
  for (int b = 0; b < 256; ++b) {
    std::string symbol;
    utf8_append(symbol, bpe_byte_char(uint8_t(b)));
    CHECK(bpe_piece_bytes(symbol) == std::string(1, char(b)));
  }
}

TEST_CASE("bpe: both file formats load the same vocabulary") {
  const BpeTokenizer a = load_vocab_merges();
  const BpeTokenizer b = load_tokenizer_json();
  const json expected = expected_ids();
  CHECK(a.vocab_size() == 584);
  CHECK(a.vocab_size() == expected["vocab_size"].get<int>());
  CHECK(b.vocab_size() == a.vocab_size());
  CHECK(a.merge_count() == 327);
  CHECK(b.merge_count() == 327);
  for (int id = 0; id < a.vocab_size(); ++id) CHECK(a.piece(id) == b.piece(id));
  CHECK(a.id_of("<|endoftext|>") == 583);
  CHECK(b.id_of("<|endoftext|>") == 583);
  CHECK(a.is_special(583));
  CHECK(b.is_special(583));
  CHECK_FALSE(a.is_special(0));
  CHECK(a.id_of("!") == 0);              // GPT-2's order: printable bytes first
  CHECK(a.id_of("\xC4\x80") == 188);      // then byte 0x00 as U+0100
  CHECK(a.id_of("\xC4\xA0" "cat") == a.id_of(std::string("\xC4\xA0") + "cat"));
  CHECK_FALSE(a.id_of("no such piece").has_value());
  CHECK_FALSE(a.pad_id().has_value());
  CHECK(a.kind_name() == "gpt2-bpe");
}

TEST_CASE("bpe: ids match transformers.js (vocab.json + merges.txt)") {
  check_cases(load_vocab_merges(), expected_ids()["cases"]);
}

TEST_CASE("bpe: ids match transformers.js (tokenizer.json)") {
  check_cases(load_tokenizer_json(), expected_ids()["cases"]);
}

TEST_CASE("bpe: tokenizer.json merges as [left, right] pairs give the same ids") {
  json j = json::parse(bpe_fixture("tokenizer.json"));
  for (json& m : j["model"]["merges"]) {
    const std::string s = m;
    const size_t space = s.find(' ');
    m = json::array({s.substr(0, space), s.substr(space + 1)});
  }
  auto tok = bpe_from_tokenizer_json(j.dump());
  REQUIRE_MESSAGE(tok.ok(), tok.error());
  CHECK(tok->merge_count() == 327);
  check_cases(*tok, expected_ids()["cases"]);
}

TEST_CASE("bpe: added tokens beyond the vocabulary, longest match first") {
  const BpeTokenizer tok = load_tokenizer_json("tokenizer_added.json");
  CHECK(tok.vocab_size() == 586);
  CHECK(tok.id_of("<|im") == 584);
  CHECK(tok.id_of("<|im_start|>") == 585);
  check_cases(tok, expected_ids()["added_cases"]);
  auto e = tok.encode("a<|im_start|>b");
  REQUIRE(e.ok());
  REQUIRE(e->tokens.size() == 3);
  CHECK(e->tokens[1].special);
  CHECK(e->tokens[1].begin == 1);
  CHECK(e->tokens[1].end == 13);
  CHECK(tok.decode(std::vector<int>{585, 584, 583}) == "<|im_start|><|im<|endoftext|>");
}

TEST_CASE("bpe: contractions are lowercase only") {
  const BpeTokenizer tok = load_vocab_merges();
  auto lower = tok.encode("it's");
  auto upper = tok.encode("IT'S");
  REQUIRE(lower.ok());
  REQUIRE(upper.ok());
  CHECK(pieces_of(*lower) == std::vector<std::string>{"it", "'s"});
  CHECK(pieces_of(*upper) == std::vector<std::string>{"I", "T", "'", "S"});
  CHECK(upper->tokens[2].continues == false);  // "'" is its own pre-token
  CHECK(upper->tokens[1].continues == true);   // "T" continues "IT"
}

TEST_CASE("bpe: continues marks pieces after the first of a pre-tokenized word") {
  const BpeTokenizer tok = load_vocab_merges();
  auto e = tok.encode("hello<|endoftext|>world the");
  REQUIRE(e.ok());
  CHECK(pieces_of(*e) == std::vector<std::string>{"hello", "<|endoftext|>", "w", "or", "ld", "\xC4\xA0the"});
  const std::vector<bool> continues = {false, false, false, true, true, false};
  const std::vector<bool> special = {false, true, false, false, false, false};
  for (size_t i = 0; i < e->tokens.size(); ++i) {
    CAPTURE(i);
    CHECK(e->tokens[i].continues == continues[i]);
    CHECK(e->tokens[i].special == special[i]);
    CHECK(e->tokens[i].segment == 0);
  }
  CHECK(e->tokens[1].begin == 5);
  CHECK(e->tokens[1].end == 18);
}

TEST_CASE("bpe: offsets may end inside a character (a flag split into byte pieces)") {
  const BpeTokenizer tok = load_vocab_merges();
  // " 🇰🇷" is one piece; 🇯 (F0 9F 87 AF) splits into "ðŁĩ" (3 bytes) and "¯" (1 byte).
  auto e = tok.encode(" \xF0\x9F\x87\xB0\xF0\x9F\x87\xB7\xF0\x9F\x87\xAF\xF0\x9F\x87\xB5");
  REQUIRE(e.ok());
  REQUIRE(e->tokens.size() == 5);
  const size_t bounds[5][2] = {{0, 9}, {9, 12}, {12, 13}, {13, 16}, {16, 17}};
  for (size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(e->tokens[i].begin == bounds[i][0]);
    CHECK(e->tokens[i].end == bounds[i][1]);
    CHECK(e->tokens[i].continues == (i > 0));
  }
  CHECK(tok.decode(std::vector<int>{e->tokens[1].id}) == "\xF0\x9F\x87");  // raw bytes, not valid UTF-8
  check_invariants(tok, *e);
}

TEST_CASE("bpe: NFC and NFD spellings give different ids") {
  const BpeTokenizer tok = load_vocab_merges();
  const json cases = expected_ids()["cases"];
  const auto ids_named = [&](const std::string& name) {
    for (const json& c : cases)
      if (c["name"] == name) return c["ids"].get<std::vector<int>>();
    FAIL("no case " << name);
    return std::vector<int>{};
  };
  CHECK(ids_named("hangul_nfc") != ids_named("hangul_nfd"));
  CHECK(ids_named("accents_nfc") != ids_named("accents_nfd"));
  auto nfc = tok.encode("caf\xC3\xA9");    // é
  auto nfd = tok.encode("cafe\xCC\x81");   // e + U+0301: the mark is not \p{L}, so it is its own word
  REQUIRE(nfc.ok());
  REQUIRE(nfd.ok());
  CHECK(pieces_of(*nfc) == std::vector<std::string>{"caf\xC3\x83\xC2\xA9"});
  CHECK(pieces_of(*nfd) == std::vector<std::string>{"cafe", "\xC3\x8C\xC4\xA3"});
  CHECK(nfd->tokens[1].continues == false);
}

TEST_CASE("bpe: a pair is A's tokens then B's, segment 1, offsets into text_b") {
  const BpeTokenizer tok = load_vocab_merges();
  auto e = tok.encode("the cat", std::string_view("sat\xFF"));
  REQUIRE(e.ok());
  CHECK(e->text == "the cat");
  CHECK(e->text_b == "sat\xEF\xBF\xBD");
  CHECK(pieces_of(*e) == std::vector<std::string>{"the", "\xC4\xA0" "cat", "s", "at", "\xC3\xAF", "\xC2\xBF", "\xC2\xBD"});
  CHECK(e->tokens[1].segment == 0);
  CHECK(e->tokens[2].segment == 1);
  CHECK(e->tokens[2].begin == 0);
  CHECK(e->tokens[2].continues == false);
  CHECK(e->tokens[3].begin == 1);
  CHECK(e->tokens.back().end == 6);
  check_invariants(tok, *e);
  auto empty_b = tok.encode("the", std::string_view(""));
  REQUIRE(empty_b.ok());
  CHECK(empty_b->tokens.size() == 1);
}

TEST_CASE("bpe: random bytes always round-trip and tile the text") {
  const BpeTokenizer tok = load_tokenizer_json("tokenizer_added.json");
  std::mt19937 rng(1234);
  const std::string alphabet_parts[] = {"a", "e", " ", "  ", "\n", "\t", "'", "s", "re", "1", "\xC3\xA9", "\xCC\x81",
                                        "\xEA\xB0\x80", "\xF0\x9F\x99\x82", "<|endoftext|>", "<|im", "\xFF", "\xE2\x82",
                                        "!", std::string(1, '\0'), "\xC2\xA0", "the"};
  for (int n = 0; n < 300; ++n) {
    std::string text;
    const int len = int(rng() % 40);
    for (int i = 0; i < len; ++i) {
      if (rng() % 4 == 0)
        text.push_back(char(rng() % 256));
      else
        text += alphabet_parts[rng() % std::size(alphabet_parts)];
    }
    CAPTURE(text);
    auto e = tok.encode(text);
    REQUIRE_MESSAGE(e.ok(), e.error());
    CHECK(e->text == utf8_sanitize(text));
    check_invariants(tok, *e);
  }
}

TEST_CASE("bpe: decode skips ids outside the vocabulary") {
  const BpeTokenizer tok = load_vocab_merges();
  CHECK(tok.decode(std::vector<int>{}) == "");
  CHECK(tok.decode(std::vector<int>{-1, 583, 100000, 583}) == "<|endoftext|><|endoftext|>");
  CHECK(tok.decode(std::vector<int>{*tok.id_of("\xC4\xA0" "cat"), *tok.id_of("\xC4\x8A")}) == " cat\n");
}

TEST_CASE("bpe: limits on bytes and tokens") {
  const BpeTokenizer tok = load_vocab_merges();
  SubwordLimits limits;
  limits.max_bytes = 10;
  auto long_text = tok.encode("the cat sat", std::nullopt, limits);
  REQUIRE_FALSE(long_text.ok());
  CHECK(long_text.error() == "the text is 11 bytes; the limit is 10");
  auto long_pair = tok.encode("the", std::string_view("the cat sat"), limits);
  REQUIRE_FALSE(long_pair.ok());
  CHECK(long_pair.error() == "the second text is 11 bytes; the limit is 10");

  limits = SubwordLimits{};
  limits.max_tokens = 3;  // "the cat sat" is the, Ġcat, Ġs, at
  auto many = tok.encode("the cat sat", std::nullopt, limits);
  REQUIRE_FALSE(many.ok());
  CHECK(many.error() == "the text has more than 3 tokens");
  auto pair = tok.encode("the cat", std::string_view("sat"), limits);
  REQUIRE_FALSE(pair.ok());
  CHECK(pair.error() == "the text has more than 3 tokens");
  auto special = tok.encode("a b c<|endoftext|>", std::nullopt, limits);
  REQUIRE_FALSE(special.ok());
  limits.max_tokens = 4;
  auto fits = tok.encode("the cat sat", std::nullopt, limits);
  REQUIRE(fits.ok());
  CHECK(fits->tokens.size() == 4);
  limits.max_tokens = 0;
  auto empty = tok.encode("", std::nullopt, limits);
  REQUIRE(empty.ok());
  CHECK(empty->tokens.empty());
  CHECK_FALSE(tok.encode("a", std::nullopt, limits).ok());
}

// Wall time on a shared machine is noise, so the merge loop's O(n log n) is checked as a ratio
// measured in one run: 16x the bytes may cost about 20x (n log n), far from the 256x of a quadratic
// loop. The absolute times only guard against a hang.
TEST_CASE("bpe: a 1 MB word merges in O(n log n), and an over-long one stops before merging") {
  const BpeTokenizer tok = load_vocab_merges();
  SubwordLimits limits;
  limits.max_tokens = 1 << 20;
  auto timed = [&](const std::string& text, const SubwordLimits& l) {
    const auto start = std::chrono::steady_clock::now();
    auto e = tok.encode(text, std::nullopt, l);
    return std::make_pair(std::move(e), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  const std::string small(size_t{1} << 16, 'a'), word(size_t{1} << 20, 'a');
  double small_s = 1e9;
  for (int i = 0; i < 3; ++i) small_s = std::min(small_s, timed(small, limits).second);
  // The best of two runs each way: a busy machine slows single runs, never the fastest of several.
  auto run = timed(word, limits);
  const auto& e = run.first;
  double seconds = run.second;
  REQUIRE_MESSAGE(e.ok(), e.error());
  seconds = std::min(seconds, timed(word, limits).second);
  MESSAGE("64 KB: " << small_s << " s, 1 MB: " << seconds << " s, ratio " << seconds / small_s);
  CHECK(seconds / small_s < 80.0);
  CHECK(seconds < 30.0);
  REQUIRE(e->tokens.size() == 16384);  // 2^20 / 64: the doubling merges end at 64 a's
  CHECK(e->tokens.front().piece == std::string(64, 'a'));
  CHECK(e->tokens.back().end == word.size());
  CHECK(e->tokens[1].continues);

  // Default limit of 8192 tokens: refused before merging, since 2^20 bytes cannot fit.
  auto [refused, refused_seconds] = timed(word, SubwordLimits{});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() == "the text has more than 8192 tokens");
  CHECK(refused_seconds < seconds / 4);  // no merging happened
}

TEST_CASE("bpe: vocab.json + merges.txt loader errors") {
  const std::string vocab = bpe_fixture("vocab.json");
  const std::string merges = bpe_fixture("merges.txt");
  const auto error_of = [](const Result<BpeTokenizer>& r) { return r.ok() ? std::string("(loaded)") : r.error(); };
  CHECK(error_of(bpe_from_vocab_merges("{", "")) == "vocab.json is not valid JSON");
  CHECK(error_of(bpe_from_vocab_merges("[1, 2]", "")) == "vocab.json is not a JSON object");
  CHECK(error_of(bpe_from_vocab_merges(std::string(100, '[') + std::string(100, ']'), "")) ==
        "vocab.json is nested too deeply");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": "0"})", "")) == "vocab.json: the id of \"a\" is not an integer");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "a": 1})", "")) == "vocab.json has duplicate key 'a'");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "b": 5})", "")) ==
        "the id 5 of \"b\" is out of range: 2 entries need ids 0..1");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "b": -1})", "")) ==
        "the id -1 of \"b\" is out of range: 2 entries need ids 0..1");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "b": 0})", "")) == "the id 0 is given to both \"a\" and \"b\"");
  CHECK(error_of(bpe_from_vocab_merges(R"({"a": 0, "b": 1})", "")) ==
        "the vocabulary has no symbol for byte 0x00 (\"\xC4\x80\")");

  json v = json::parse(vocab);
  const int newline_id = v["\xC4\x8A"];
  v.erase("\xC4\x8A");
  v["newline"] = newline_id;
  CHECK(error_of(bpe_from_vocab_merges(v.dump(), merges)) == "the vocabulary has no symbol for byte 0x0A (\"\xC4\x8A\")");

  const BpeTokenizer tok = load_vocab_merges();
  REQUIRE_FALSE(tok.id_of("qq").has_value());
  REQUIRE_FALSE(tok.id_of("zz").has_value());
  CHECK(error_of(bpe_from_vocab_merges(vocab, "#version: 0.2\nzz a\n")) ==
        "merge 1 (\"zz a\"): \"zz\" is not in the vocabulary");
  CHECK(error_of(bpe_from_vocab_merges(vocab, "h e\na zz\n")) == "merge 2 (\"a zz\"): \"zz\" is not in the vocabulary");
  CHECK(error_of(bpe_from_vocab_merges(vocab, "q q\n")) ==
        "merge 1 (\"q q\"): the result \"qq\" is not in the vocabulary");
  CHECK(error_of(bpe_from_vocab_merges(vocab, "#version: 0.2\na b c\n")) ==
        "merges.txt line 2 is not \"left right\": \"a b c\"");
  CHECK(error_of(bpe_from_vocab_merges(vocab, "h e\nth\n")) == "merges.txt line 2 is not \"left right\": \"th\"");
  // CRLF line ends, blank lines and no merges at all are fine.
  CHECK(error_of(bpe_from_vocab_merges(vocab, "#version: 0.2\r\nh e\r\n\r\n")) == "(loaded)");
  auto no_merges = bpe_from_vocab_merges(vocab, "");
  REQUIRE(no_merges.ok());
  auto bytes_only = no_merges->encode("the");
  REQUIRE(bytes_only.ok());
  CHECK(pieces_of(*bytes_only) == std::vector<std::string>{"t", "h", "e"});
}

TEST_CASE("bpe: tokenizer.json loader errors") {
  const json base = json::parse(bpe_fixture("tokenizer.json"));
  const auto error_after = [&](auto edit) {
    json j = base;
    edit(j);
    auto r = bpe_from_tokenizer_json(j.dump());
    return r.ok() ? std::string("(loaded)") : r.error();
  };
  CHECK(error_after([](json&) {}) == "(loaded)");
  CHECK(bpe_from_tokenizer_json("{\"model\": ").error() == "tokenizer.json is not valid JSON");
  CHECK(bpe_from_tokenizer_json("{}").error() == "tokenizer.json has no \"model\" object");
  CHECK(error_after([](json& j) { j["model"]["type"] = "WordPiece"; }) ==
        "unsupported tokenizer model type \"WordPiece\"; only \"BPE\" is supported");
  CHECK(error_after([](json& j) { j["pre_tokenizer"] = {{"type", "Whitespace"}}; }) ==
        "unsupported pre-tokenizer \"Whitespace\"; only \"ByteLevel\" is supported");
  CHECK(error_after([](json& j) { j["pre_tokenizer"] = nullptr; }) ==
        "unsupported pre-tokenizer \"(none)\"; only \"ByteLevel\" is supported");
  CHECK(error_after([](json& j) { j["pre_tokenizer"]["add_prefix_space"] = true; }) ==
        "the ByteLevel pre-tokenizer's add_prefix_space is not supported");
  CHECK(error_after([](json& j) { j["pre_tokenizer"]["use_regex"] = false; }) ==
        "the ByteLevel pre-tokenizer without use_regex is not supported");
  CHECK(error_after([](json& j) { j["normalizer"] = {{"type", "NFC"}}; }) ==
        "unsupported normalizer \"NFC\"; GPT-2 has none");
  CHECK(error_after([](json& j) { j["post_processor"] = {{"type", "TemplateProcessing"}}; }) ==
        "unsupported post-processor \"TemplateProcessing\"");
  CHECK(error_after([](json& j) { j["post_processor"] = nullptr; }) == "(loaded)");
  CHECK(error_after([](json& j) { j["model"]["dropout"] = 0.1; }) == "BPE dropout is not supported");
  CHECK(error_after([](json& j) { j["model"]["ignore_merges"] = true; }) == "BPE with ignore_merges is not supported");
  CHECK(error_after([](json& j) { j["model"]["continuing_subword_prefix"] = "##"; }) ==
        "BPE with a continuing_subword_prefix or end_of_word_suffix is not supported");
  CHECK(error_after([](json& j) { j["model"]["merges"][2] = json::array({1, 2}); }) ==
        "tokenizer.json: merge 3 is neither \"left right\" nor [\"left\", \"right\"]");
  CHECK(error_after([](json& j) { j["model"]["merges"][0] = "zz a"; }) ==
        "merge 1 (\"zz a\"): \"zz\" is not in the vocabulary");
  CHECK(error_after([](json& j) { j["model"].erase("merges"); }) == "tokenizer.json: the model has no \"merges\" array");
  CHECK(error_after([](json& j) { j["model"].erase("vocab"); }) == "tokenizer.json: the model has no \"vocab\"");
  CHECK(error_after([](json& j) { j["added_tokens"][0]["id"] = 7; }) ==
        "added token \"<|endoftext|>\" has id 7 but the vocabulary gives it 583");
  CHECK(error_after([](json& j) { j["added_tokens"][0]["lstrip"] = true; }) ==
        "added token \"<|endoftext|>\": lstrip is not supported");
  CHECK(error_after([](json& j) { j["added_tokens"][0].erase("content"); }) ==
        "tokenizer.json: an added token lacks a string \"content\" or an integer \"id\"");
  CHECK(error_after([](json& j) {
          j["added_tokens"].push_back({{"id", 590}, {"content", "<new>"}, {"special", true}});
        }) == "the id 590 of \"<new>\" is out of range: 585 entries need ids 0..584");
  CHECK(error_after([](json& j) {
          j["added_tokens"].push_back({{"id", 5}, {"content", "<new>"}, {"special", true}});
        }).starts_with("the id 5 is given to both "));
  CHECK(error_after([](json& j) {
          j["added_tokens"].push_back({{"id", 584}, {"content", ""}, {"special", true}});
        }) == "an added token is empty");
}

TEST_CASE("bpe merges: long words merge by rank lists exactly as by one heap") {
  // Random merges over a 4-letter alphabet (every result a new id, some pairs of results merging
  // again), random words of 256 to 5,000 symbols with gaps between some extents (a character the
  // vocabulary lacks, dropped), both ways of merging: the same symbols with the same extents.
  std::mt19937 gen(7);
  for (int trial = 0; trial < 40; ++trial) {
    BpeMerges merges;
    std::vector<int> ids = {0, 1, 2, 3};
    int next_id = 4;
    const int n_merges = 5 + int(gen() % 40);
    for (int r = 0; r < n_merges; ++r) {
      // The first three over the letters every word has, so that every word merges.
      const size_t from = r < 3 ? 2 : ids.size();
      const int left = ids[gen() % from], right = ids[gen() % from];
      if (r < 3 || gen() % 3 != 0) merges.add(left, right, r, next_id);
      ids.push_back(next_id++);
    }
    std::vector<BpeSymbol> word;
    const size_t n = 256 + gen() % 4745;
    uint32_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      at += gen() % 16 == 0 ? 3 : 0;  // a gap
      word.push_back({int(gen() % (trial % 2 == 0 ? 2 : 4)), at, at + 1});
      ++at;
    }
    std::vector<BpeSymbol> by_lists = word, by_heap = word;
    merges.apply(by_lists);
    merges.apply_naive(by_heap);
    CAPTURE(trial);
    REQUIRE(by_lists.size() == by_heap.size());
    CHECK(by_lists.size() < word.size());
    for (size_t i = 0; i < by_lists.size(); ++i) {
      CHECK(by_lists[i].id == by_heap[i].id);
      CHECK(by_lists[i].begin == by_heap[i].begin);
      CHECK(by_lists[i].end == by_heap[i].end);
    }
  }
}
