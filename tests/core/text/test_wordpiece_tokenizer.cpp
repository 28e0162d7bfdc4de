// WordPiece tokenizer: every case in tests/fixtures/tokenizers/wordpiece/expected.json (ids from
// Hugging Face's JS tokenizer, or hand-derived where it differs from the Rust library), loaded both
// from vocab.txt + tokenizer_config.json and from tokenizer.json; then hand-derived offsets, flags,
// decoding, limits and every loader error.
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "text/wordpiece_tokenizer.h"
#include "support/token_util.h"

using namespace attnviz;
using attnviz::test::ids_of;

namespace {

std::string read_fixture(const std::string& rel) {
  const std::string path = std::string(ATTNVIZ_FIXTURES) + "/tokenizers/wordpiece/" + rel;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The directory holding each fixture tokenizer's vocab.txt (lower_keep_accents shares uncased's).
std::string vocab_dir(const std::string& name) { return name == "lower_keep_accents" ? "uncased" : name; }

WordPieceTokenizer load_txt(const std::string& name) {
  auto options = wordpiece_options_from_config(read_fixture(name + "/tokenizer_config.json"));
  REQUIRE_MESSAGE(options.ok(), options.error());
  auto tok = wordpiece_from_vocab_txt(read_fixture(vocab_dir(name) + "/vocab.txt"), *options);
  REQUIRE_MESSAGE(tok.ok(), tok.error());
  return std::move(tok).value();
}

WordPieceTokenizer load_json(const std::string& name) {
  auto tok = wordpiece_from_tokenizer_json(read_fixture(name + "/tokenizer.json"));
  REQUIRE_MESSAGE(tok.ok(), tok.error());
  return std::move(tok).value();
}

SubwordEncoding encode_ok(const WordPieceTokenizer& tok, std::string_view text,
                          std::optional<std::string_view> pair = std::nullopt) {
  auto enc = tok.encode(text, pair);
  REQUIRE_MESSAGE(enc.ok(), enc.error());
  return std::move(enc).value();
}

std::vector<std::string> pieces_of(const SubwordEncoding& e) {
  std::vector<std::string> out;
  for (const SubwordToken& t : e.tokens) out.push_back(t.piece);
  return out;
}

// The text each token covers, from its byte range in the segment's sanitised text.
std::vector<std::string> spans_of(const SubwordEncoding& e) {
  std::vector<std::string> out;
  for (const SubwordToken& t : e.tokens) {
    const std::string& text = t.segment == 0 ? e.text : e.text_b;
    REQUIRE(t.begin <= t.end);
    REQUIRE(t.end <= text.size());
    out.push_back(text.substr(t.begin, t.end - t.begin));
  }
  return out;
}

std::string errors_of(std::string_view tokenizer_json) {
  auto tok = wordpiece_from_tokenizer_json(tokenizer_json);
  return tok.ok() ? std::string("(loaded)") : tok.error();
}

std::string errors_of_txt(std::string_view vocab, const WordPieceOptions& o = {}) {
  auto tok = wordpiece_from_vocab_txt(vocab, o);
  return tok.ok() ? std::string("(loaded)") : tok.error();
}

using V = std::vector<std::string>;
using Sp = std::vector<std::pair<size_t, size_t>>;

Sp ranges_of(const SubwordEncoding& e) {
  Sp out;
  for (const SubwordToken& t : e.tokens) out.emplace_back(t.begin, t.end);
  return out;
}

}  // namespace

TEST_CASE("wordpiece: every reference case, from vocab.txt and from tokenizer.json") {
  const auto cases = nlohmann::json::parse(read_fixture("expected.json"));
  REQUIRE(cases.size() == 39);
  int overridden = 0;
  for (const auto& c : cases) {
    const std::string name = c["name"], tokenizer = c["tokenizer"];
    CAPTURE(name);
    const std::string text = c["text"];
    std::optional<std::string> pair;
    if (c.contains("pair")) pair = c["pair"].get<std::string>();
    const auto want_ids = c["ids"].get<std::vector<int>>();
    const auto want_pieces = c["tokens"].get<std::vector<std::string>>();
    const auto want_segments = c["segments"].get<std::vector<int>>();
    overridden += c.contains("why") ? 1 : 0;
    for (const bool from_json : {false, true}) {
      CAPTURE(from_json);
      const WordPieceTokenizer tok = from_json ? load_json(tokenizer) : load_txt(tokenizer);
      const SubwordEncoding enc =
          encode_ok(tok, text, pair ? std::optional<std::string_view>(*pair) : std::nullopt);
      CHECK(ids_of(enc) == want_ids);
      CHECK(pieces_of(enc) == want_pieces);
      std::vector<int> segments;
      for (const SubwordToken& t : enc.tokens) segments.push_back(t.segment);
      CHECK(segments == want_segments);
    }
  }
  CHECK(overridden == 4);  // final sigma, unassigned, supplementary CJK, empty B (see the script)
}

TEST_CASE("wordpiece: the two loaders build the same tokenizer") {
  for (const char* name : {"uncased", "cased", "lower_keep_accents"}) {
    CAPTURE(name);
    const WordPieceTokenizer a = load_txt(name), b = load_json(name);
    REQUIRE(a.vocab_size() == b.vocab_size());
    for (int id = 0; id < a.vocab_size(); ++id) CHECK(a.piece(id) == b.piece(id));
    CHECK(a.pad_id() == b.pad_id());
    CHECK(a.options().lowercase == b.options().lowercase);
    CHECK(a.options().strip_accents == b.options().strip_accents);
    CHECK(a.special_tokens().size() == 5);
    CHECK(b.special_tokens().size() == 5);
  }
}

TEST_CASE("wordpiece: vocabulary lookups and options from tokenizer_config.json") {
  const WordPieceTokenizer tok = load_txt("uncased");
  CHECK(tok.vocab_size() == 65);
  CHECK(tok.kind_name() == "wordpiece");
  CHECK(tok.piece(0) == "[PAD]");
  CHECK(tok.piece(30) == "##ing");
  CHECK(tok.id_of("##ing") == 30);
  CHECK(tok.id_of("ing") == std::nullopt);
  CHECK(tok.pad_id() == 0);
  CHECK(tok.options().lowercase);
  CHECK(!tok.options().strip_accents.has_value());  // null: follows lowercase

  auto keep = wordpiece_options_from_config(read_fixture("lower_keep_accents/tokenizer_config.json"));
  REQUIRE(keep.ok());
  CHECK(keep->lowercase);
  CHECK(keep->strip_accents == false);
  auto cased = wordpiece_options_from_config(read_fixture("cased/tokenizer_config.json"));
  REQUIRE(cased.ok());
  CHECK(!cased->lowercase);
  CHECK(cased->mask == "[MASK]");  // given as an AddedToken object
  auto none = wordpiece_options_from_config(R"({"pad_token": null, "tokenize_chinese_chars": false})");
  REQUIRE(none.ok());
  CHECK(none->pad.empty());
  CHECK(!none->handle_cjk);
  CHECK(none->lowercase);  // defaults kept
}

TEST_CASE("wordpiece: offsets point into the original text") {
  const WordPieceTokenizer unc = load_txt("uncased");
  SUBCASE("contraction and punctuation") {
    const auto e = encode_ok(unc, "Didn't you?");
    CHECK(spans_of(e) == V{"", "Didn", "'", "t", "you", "?", ""});
    CHECK(ranges_of(e) == Sp{{0, 0}, {0, 4}, {4, 5}, {5, 6}, {7, 10}, {10, 11}, {0, 0}});
  }
  SUBCASE("accents stripped and lowercased still cover the accented bytes") {
    // Café (NFC): the e comes from é and covers both its bytes. CAFÉ (NFD): the removed U+0301 was
    // a character of its own, and like every removed character it is covered by no token (as in
    // Rust's NormalizedString, where a removed character's alignment is dropped).
    const auto e = encode_ok(unc, "Caf\xC3\xA9 CAFE\xCC\x81!");
    CHECK(pieces_of(e) == V{"[CLS]", "cafe", "cafe", "!", "[SEP]"});
    CHECK(ranges_of(e) == Sp{{0, 0}, {0, 5}, {6, 10}, {12, 13}, {0, 0}});
  }
  SUBCASE("Hangul syllables decomposed into jamo map back to whole syllables") {
    const auto e = encode_ok(unc, "\xEA\xB3\xA0\xEC\x96\x91\xEC\x9D\xB4");  // 고양이
    CHECK(pieces_of(e) == V{"[CLS]", "\xE1\x84\x80\xE1\x85\xA9", "##\xE1\x84\x8B", "##\xE1\x85\xA3",
                            "##\xE1\x86\xBC", "##\xE1\x84\x8B\xE1\x85\xB5", "[SEP]"});
    CHECK(ranges_of(e) == Sp{{0, 0}, {0, 3}, {3, 6}, {3, 6}, {3, 6}, {6, 9}, {0, 0}});
    CHECK(spans_of(e)[3] == "\xEC\x96\x91");  // 양
  }
  SUBCASE("Hangul typed as jamo maps each piece to its own jamo") {
    const auto e = encode_ok(unc, "\xE1\x84\x80\xE1\x85\xA9\xE1\x84\x8B\xE1\x85\xA3\xE1\x86\xBC\xE1\x84\x8B\xE1\x85\xB5");
    CHECK(ranges_of(e) == Sp{{0, 0}, {0, 6}, {6, 9}, {9, 12}, {12, 15}, {15, 21}, {0, 0}});
  }
  SUBCASE("dotted capital I, CJK and emoji") {
    const auto e = encode_ok(unc, "\xC4\xB0stanbul \xE4\xB8\xAD\xE5\x9B\xBD\xF0\x9F\x98\x80");  // İstanbul 中国😀
    CHECK(pieces_of(e) == V{"[CLS]", "is", "##tan", "##bul", "\xE4\xB8\xAD", "\xE5\x9B\xBD", "\xF0\x9F\x98\x80", "[SEP]"});
    CHECK(ranges_of(e) == Sp{{0, 0}, {0, 3}, {3, 6}, {6, 9}, {10, 13}, {13, 16}, {16, 20}, {0, 0}});
  }
  SUBCASE("lowercase without stripping: both code points of i + U+0307 come from the one İ") {
    const auto e = encode_ok(load_txt("lower_keep_accents"), "\xC4\xB0s");
    CHECK(pieces_of(e) == V{"[CLS]", "i", "##\xCC\x87", "##s", "[SEP]"});
    CHECK(ranges_of(e) == Sp{{0, 0}, {0, 2}, {0, 2}, {2, 3}, {0, 0}});
  }
  SUBCASE("an unknown word covers the whole word, removed controls are covered by nothing") {
    const auto e = encode_ok(unc, "\x01the  xy\x7F" "z cat");
    CHECK(pieces_of(e) == V{"[CLS]", "the", "[UNK]", "cat", "[SEP]"});
    CHECK(ranges_of(e) == Sp{{0, 0}, {1, 4}, {6, 10}, {11, 14}, {0, 0}});
  }
}

TEST_CASE("wordpiece: token flags") {
  const WordPieceTokenizer unc = load_txt("uncased");
  const auto e = encode_ok(unc, "playing xyz [MASK]");
  REQUIRE(pieces_of(e) == V{"[CLS]", "play", "##ing", "[UNK]", "[MASK]", "[SEP]"});
  const std::vector<bool> special = {true, false, false, false, true, true};
  const std::vector<bool> unknown = {false, false, false, true, false, false};
  const std::vector<bool> continues = {false, false, true, false, false, false};
  for (size_t i = 0; i < e.tokens.size(); ++i) {
    CAPTURE(i);
    CHECK(e.tokens[i].special == special[i]);
    CHECK(e.tokens[i].unknown == unknown[i]);
    CHECK(e.tokens[i].continues == continues[i]);
  }
  CHECK(spans_of(e)[4] == "[MASK]");  // a typed special token keeps its bytes
}

TEST_CASE("wordpiece: sentence pairs: segments and offsets into text_b") {
  const WordPieceTokenizer unc = load_json("uncased");
  const auto e = encode_ok(unc, "The cat.", "ON the mat!");
  CHECK(pieces_of(e) == V{"[CLS]", "the", "cat", ".", "[SEP]", "on", "the", "mat", "!", "[SEP]"});
  CHECK(e.text == "The cat.");
  CHECK(e.text_b == "ON the mat!");
  CHECK(spans_of(e) == V{"", "The", "cat", ".", "", "ON", "the", "mat", "!", ""});
  std::vector<int> segments;
  for (const SubwordToken& t : e.tokens) segments.push_back(t.segment);
  CHECK(segments == std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
}

TEST_CASE("wordpiece: invalid UTF-8 becomes U+FFFD, which cleaning then drops") {
  const WordPieceTokenizer unc = load_txt("uncased");
  const auto e = encode_ok(unc, std::string("the\xFF cat\xC3", 9));
  CHECK(e.text == "the\xEF\xBF\xBD cat\xEF\xBF\xBD");
  CHECK(pieces_of(e) == V{"[CLS]", "the", "cat", "[SEP]"});
  CHECK(ranges_of(e) == Sp{{0, 0}, {0, 3}, {7, 10}, {0, 0}});
  // NUL inside the text is removed, not treated as an end.
  const auto n = encode_ok(unc, std::string("ca\0t", 4));
  CHECK(pieces_of(n) == V{"[CLS]", "cat", "[SEP]"});
  CHECK(ranges_of(n) == Sp{{0, 0}, {0, 4}, {0, 0}});
}

TEST_CASE("wordpiece: options change normalisation") {
  auto vocab = read_fixture("uncased/vocab.txt");
  SUBCASE("no CJK handling keeps ideographs inside words") {
    WordPieceOptions o;
    o.handle_cjk = false;
    auto tok = wordpiece_from_vocab_txt(vocab, o);
    REQUIRE(tok.ok());
    CHECK(pieces_of(encode_ok(*tok, "\xE4\xB8\xAD\xE5\x9B\xBD")) == V{"[CLS]", "[UNK]", "[SEP]"});
  }
  SUBCASE("max_chars_per_word counts characters, not bytes") {
    WordPieceOptions o;
    o.max_chars_per_word = 4;
    auto tok = wordpiece_from_vocab_txt(vocab, o);
    REQUIRE(tok.ok());
    CHECK(pieces_of(encode_ok(*tok, "cafe Caf\xC3\xA9 hello")) == V{"[CLS]", "cafe", "cafe", "[UNK]", "[SEP]"});
  }
  SUBCASE("no cleaning: controls stay in their word") {
    WordPieceOptions o;
    o.clean_text = false;
    auto tok = wordpiece_from_vocab_txt(vocab, o);
    REQUIRE(tok.ok());
    CHECK(pieces_of(encode_ok(*tok, "the\x01 cat\tsat")) == V{"[CLS]", "[UNK]", "cat", "sat", "[SEP]"});
  }
}

TEST_CASE("wordpiece: decode glues ## pieces and separates words by one space") {
  const WordPieceTokenizer unc = load_txt("uncased");
  const auto e = encode_ok(unc, "  Playing   played, UNAFFABLE cafe\xCC\x81!");
  const std::vector<int> ids = ids_of(e);
  CHECK(unc.decode(ids) == "[CLS] playing played , unaffable cafe ! [SEP]");
  std::vector<int> words;
  for (const SubwordToken& t : e.tokens)
    if (!t.special) words.push_back(t.id);
  CHECK(unc.decode(words) == "playing played , unaffable cafe !");
  // Round trip: the decoded normalised text encodes to the same ids.
  CHECK(ids_of(encode_ok(unc, unc.decode(words))) == ids);
  const int ing = *unc.id_of("##ing");
  CHECK(unc.decode(std::vector<int>{ing, ing}) == "##inging");  // a leading ## piece keeps its prefix
  CHECK(unc.decode(std::vector<int>{-1, 9999, *unc.id_of("cat")}) == "cat");
  CHECK(unc.decode(std::vector<int>{}).empty());
  const WordPieceTokenizer cased = load_json("cased");
  CHECK(cased.decode(ids_of(encode_ok(cased, "Hello World, didn't"))) == "[CLS] Hello World , didn ' t [SEP]");
}

TEST_CASE("wordpiece: limits") {
  const WordPieceTokenizer unc = load_txt("uncased");
  std::string big;
  while (big.size() + 12 <= (size_t{1} << 20)) big += "the cat sat ";
  SUBCASE("1 MB of words stops at the token limit") {
    const auto t0 = std::chrono::steady_clock::now();
    auto e = unc.encode(big);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(!e.ok());
    CHECK(e.error() == "text is too long: more than 8192 tokens");
    CHECK(s < 5.0);
  }
  SUBCASE("1 MB of words without a token limit finishes") {
    SubwordLimits limits;
    limits.max_tokens = 1 << 30;
    const auto t0 = std::chrono::steady_clock::now();
    auto e = unc.encode(big, std::nullopt, limits);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(e.ok());
    CHECK(e->tokens.size() == big.size() / 12 * 3 + 2);
    CHECK(e->tokens.back().piece == "[SEP]");
    CHECK(e->tokens[e->tokens.size() - 2].end == big.size() - 1);
    CHECK(s < 20.0);
  }
  SUBCASE("1 MB single word is one [UNK]") {
    const std::string word(size_t{1} << 20, 'a');
    auto e = unc.encode(word);
    REQUIRE(e.ok());
    CHECK(pieces_of(*e) == V{"[CLS]", "[UNK]", "[SEP]"});
    CHECK(e->tokens[1].end == word.size());
  }
  SUBCASE("byte limit and exact token limit") {
    auto over = unc.encode(big + "the cat sat ");
    REQUIRE(!over.ok());
    CHECK(over.error().find("bytes, the limit is 1048576") != std::string::npos);
    auto pair_over = unc.encode("cat", big + "the cat sat ");
    CHECK(!pair_over.ok());
    SubwordLimits limits;
    limits.max_tokens = 5;  // [CLS] the cat sat [SEP]
    CHECK(unc.encode("the cat sat", std::nullopt, limits).ok());
    CHECK(!unc.encode("the cat sat on", std::nullopt, limits).ok());
    limits.max_tokens = 6;  // [CLS] the [SEP] cat sat [SEP]
    CHECK(unc.encode("the", std::string_view("cat sat"), limits).ok());
    CHECK(!unc.encode("the", std::string_view("cat sat on"), limits).ok());
  }
}

TEST_CASE("wordpiece: vocab.txt errors") {
  CHECK(errors_of_txt("") == "vocab.txt: the vocabulary is empty");
  CHECK(errors_of_txt("[UNK]\n[CLS]\n[SEP]\ncat\ncat\n") == "vocab.txt: 'cat' on line 5 duplicates line 4");
  CHECK(errors_of_txt("[CLS]\n[SEP]\ncat\n") == "vocab.txt: the unknown token '[UNK]' is not in the vocabulary");
  CHECK(errors_of_txt("[UNK]\n[SEP]\ncat\n") == "vocab.txt: the framing token '[CLS]' is not in the vocabulary");
  CHECK(errors_of_txt("[UNK]\n[CLS]\ncat\n") == "vocab.txt: the framing token '[SEP]' is not in the vocabulary");
  CHECK(errors_of_txt("[UNK]\n\n[CLS]\n") == "vocab.txt: line 2 is empty");
  CHECK(errors_of_txt("[UNK]\n[CLS]\n[SEP]\nc\xFFt\n") == "vocab.txt: line 4 is not valid UTF-8");
  WordPieceOptions zero;
  zero.max_chars_per_word = 0;
  CHECK(errors_of_txt("[UNK]\n[CLS]\n[SEP]\n", zero) == "vocab.txt: max_chars_per_word must be at least 1");
  // CRLF line ends and a missing final newline are fine.
  auto tok = wordpiece_from_vocab_txt("[UNK]\r\n[CLS]\r\n[SEP]\r\ncat", {});
  REQUIRE(tok.ok());
  CHECK(tok->vocab_size() == 4);
  CHECK(tok->id_of("cat") == 3);
  CHECK(tok->pad_id() == std::nullopt);
  CHECK(ids_of(encode_ok(*tok, "CAT dog")) == std::vector<int>{1, 3, 0, 2});
}

TEST_CASE("wordpiece: tokenizer_config.json errors") {
  auto err = [](std::string_view json) {
    auto o = wordpiece_options_from_config(json);
    return o.ok() ? std::string("(loaded)") : o.error();
  };
  CHECK(err("{") == "tokenizer_config.json: not valid JSON");
  CHECK(err("[]") == "tokenizer_config.json: expected a JSON object");
  CHECK(err(R"({"do_lower_case": "yes"})") == "tokenizer_config.json: 'do_lower_case' must be true or false");
  CHECK(err(R"({"strip_accents": 1})") == "tokenizer_config.json: 'strip_accents' must be true, false or null");
  CHECK(err(R"({"unk_token": 5})") ==
        "tokenizer_config.json: 'unk_token' must be a string or an object with a \"content\" string");
  CHECK(err(std::string(200, '[') + std::string(200, ']')) == "tokenizer_config.json: nested deeper than 64 levels");
}

TEST_CASE("wordpiece: tokenizer.json variants and errors") {
  const auto base = nlohmann::json::parse(read_fixture("uncased/tokenizer.json"));
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = base;
    edit(j);
    return j.dump();
  };
  CHECK(errors_of("not json") == "tokenizer.json: not valid JSON");
  CHECK(errors_of(R"({"model": {"vocab": {"a": 0, "a": 1}}})") == "tokenizer.json has duplicate key 'a' in 'model.vocab'");
  CHECK(errors_of("{}") == "tokenizer.json: no 'model' object");
  CHECK(errors_of(with([](auto& j) { j["model"]["type"] = "BPE"; })) ==
        "tokenizer.json: unsupported model type 'BPE' (only WordPiece)");
  CHECK(errors_of(with([](auto& j) { j["model"]["vocab"] = nlohmann::json::object(); })) ==
        "tokenizer.json: the vocabulary is empty");
  CHECK(errors_of(with([](auto& j) { j["model"]["vocab"]["cat"] = 18; })) ==
        "tokenizer.json: 'the' and 'cat' share id 18");
  CHECK(errors_of(with([](auto& j) { j["model"]["vocab"]["cat"] = 65; })) ==
        "tokenizer.json: 'cat' has an id outside 0..64");
  CHECK(errors_of(with([](auto& j) { j["model"]["unk_token"] = "<unk>"; })) ==
        "tokenizer.json: the unknown token '<unk>' is not in the vocabulary");
  CHECK(errors_of(with([](auto& j) { j["normalizer"] = {{"type", "NFC"}}; })) ==
        "tokenizer.json: unsupported normalizer type 'NFC' (BertNormalizer or null)");
  CHECK(errors_of(with([](auto& j) { j["pre_tokenizer"] = nullptr; })) ==
        "tokenizer.json: unsupported pre_tokenizer type '(none)' (only BertPreTokenizer)");
  CHECK(errors_of(with([](auto& j) { j["post_processor"] = {{"type", "RobertaProcessing"}}; })) ==
        "tokenizer.json: unsupported post_processor type 'RobertaProcessing' (TemplateProcessing or BertProcessing)");
  CHECK(errors_of(with([](auto& j) { j["post_processor"]["special_tokens"].erase("[SEP]"); })) ==
        "tokenizer.json: the template's special token '[SEP]' has no ids in special_tokens");
  CHECK(errors_of(with([](auto& j) { j["added_tokens"][4]["lstrip"] = true; })) ==
        "tokenizer.json: added token '[MASK]' sets 'lstrip', which is not supported");
  CHECK(errors_of(with([](auto& j) { j["added_tokens"][4]["id"] = 18; })) ==
        "tokenizer.json: added token '[MASK]' has id 18, which the vocabulary gives to 'the'");
  CHECK(errors_of(with([](auto& j) { j["added_tokens"][4]["id"] = 70; })) ==
        "tokenizer.json: added token '[MASK]' has id 70, leaving a gap after the vocabulary's 65 ids");
  CHECK(errors_of(with([](auto& j) {
          j["post_processor"] = nullptr;
          j["model"]["vocab"].erase("[SEP]");
          j["model"]["vocab"]["[sep]"] = 3;
          j["added_tokens"].erase(3);
        })) == "tokenizer.json: the framing token '[SEP]' is not in the vocabulary");

  SUBCASE("an added token past the vocabulary extends it and is matched literally") {
    auto tok = wordpiece_from_tokenizer_json(with([](auto& j) {
      j["added_tokens"].push_back({{"id", 65}, {"content", "<eot>"}, {"special", true}, {"normalized", false}});
    }));
    REQUIRE_MESSAGE(tok.ok(), tok.error());
    CHECK(tok->vocab_size() == 66);
    CHECK(tok->piece(65) == "<eot>");
    CHECK(pieces_of(encode_ok(*tok, "cat<eot>sat")) == V{"[CLS]", "cat", "<eot>", "sat", "[SEP]"});
  }
  SUBCASE("no post_processor: BERT's framing; no normalizer: text used as typed") {
    auto tok = wordpiece_from_tokenizer_json(with([](auto& j) {
      j["post_processor"] = nullptr;
      j["normalizer"] = nullptr;
    }));
    REQUIRE_MESSAGE(tok.ok(), tok.error());
    CHECK(pieces_of(encode_ok(*tok, "cat Cat", "sat")) == V{"[CLS]", "cat", "[UNK]", "[SEP]", "sat", "[SEP]"});
  }
  SUBCASE("a template without framing gives bare tokens") {
    auto tok = wordpiece_from_tokenizer_json(with([](auto& j) {
      j["post_processor"]["single"] = nlohmann::json::array({{{"Sequence", {{"id", "A"}, {"type_id", 0}}}}});
    }));
    REQUIRE_MESSAGE(tok.ok(), tok.error());
    CHECK(pieces_of(encode_ok(*tok, "the cat")) == V{"the", "cat"});
  }
}
