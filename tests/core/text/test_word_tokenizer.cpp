// The word tokenizer: exact token lists for English, Korean, numbers, contractions, punctuation,
// emoji clusters, special tokens and invalid UTF-8; offsets; limits; megabyte inputs.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "base/utf8.h"
#include "text/word_tokenizer.h"
#include "support/token_util.h"

using namespace attnviz;
using attnviz::test::kFffd;

namespace {

using Strings = std::vector<std::string>;

Strings texts_of(std::string_view text, const TokenizeLimits& limits = {}) {
  auto r = tokenize_words(text, limits);
  REQUIRE_MESSAGE(r.ok(), r.error());
  Strings out;
  for (const Token& t : *r) out.push_back(t.text);
  return out;
}

std::vector<TokenKind> kinds_of(std::string_view text) {
  auto r = tokenize_words(text);
  REQUIRE(r.ok());
  std::vector<TokenKind> out;
  for (const Token& t : *r) out.push_back(t.kind);
  return out;
}


}  // namespace

TEST_CASE("tokenizer: the classic sentence") {
  CHECK(texts_of("The animal didn't cross the street because it was too tired.") ==
        Strings{"The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired", "."});
  auto kinds = kinds_of("The animal didn't cross the street because it was too tired.");
  REQUIRE(kinds.size() == 12);
  for (size_t i = 0; i < 11; ++i) CHECK(kinds[i] == TokenKind::word);
  CHECK(kinds[11] == TokenKind::punct);
}

TEST_CASE("tokenizer: Korean words stay whole") {
  CHECK(texts_of("그 동물은 너무 피곤해서 길을 건너지 않았다.") ==
        Strings{"그", "동물은", "너무", "피곤해서", "길을", "건너지", "않았다", "."});
  CHECK(texts_of("고양이는 길을 건넜다") == Strings{"고양이는", "길을", "건넜다"});
  // Korean punctuation is punctuation.
  CHECK(texts_of("안녕。잘 가·또 봐") == Strings{"안녕", "。", "잘", "가", "·", "또", "봐"});
  CHECK(kinds_of("안녕。")[1] == TokenKind::punct);
}

TEST_CASE("tokenizer: NFD Hangul (conjoining jamo) is one word") {
  // 한국 as jamo: ᄒ ᅡ ᆫ ᄀ ᅮ ᆨ (U+1112 U+1161 U+11AB U+1100 U+116E U+11A8).
  const std::string nfd = "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB\xE1\x84\x80\xE1\x85\xAE\xE1\x86\xA8";
  CHECK(texts_of(nfd + " " + nfd + ".") == Strings{nfd, nfd, "."});
  // Latin NFD: e + U+0301 stays inside the word, even before an apostrophe.
  CHECK(texts_of("cafe\xCC\x81's menu") == Strings{"cafe\xCC\x81's", "menu"});
}

TEST_CASE("tokenizer: Han and kana runs are one word each") {
  CHECK(texts_of("我爱猫。 日本語です") == Strings{"我爱猫", "。", "日本語です"});
}

TEST_CASE("tokenizer: numbers") {
  CHECK(texts_of("3.14 1,000 2026 0.5") == Strings{"3.14", "1,000", "2026", "0.5"});
  for (TokenKind k : kinds_of("3.14 1,000 2026")) CHECK(k == TokenKind::number);
  // A separator not between digits is punctuation.
  CHECK(texts_of("It costs 3. Or 4,") == Strings{"It", "costs", "3", ".", "Or", "4", ","});
  CHECK(texts_of("1..2 ,5") == Strings{"1", ".", ".", "2", ",", "5"});
  // Digits inside words, and a number directly followed by letters is one word.
  CHECK(texts_of("GPT2 x86 3rd 5km") == Strings{"GPT2", "x86", "3rd", "5km"});
  CHECK(kinds_of("3rd") == std::vector<TokenKind>{TokenKind::word});
  CHECK(kinds_of("x86") == std::vector<TokenKind>{TokenKind::word});
  CHECK(texts_of("$5 -3 50%") == Strings{"$", "5", "-", "3", "50", "%"});
  CHECK(texts_of("٣٫١٤") == Strings{"٣٫١٤"});  // Arabic-Indic digits with the Arabic decimal separator
}

TEST_CASE("tokenizer: contractions, hyphens and edge apostrophes") {
  CHECK(texts_of("it's o'clock, a well-known rock'n'roll") ==
        Strings{"it's", "o'clock", ",", "a", "well-known", "rock'n'roll"});
  CHECK(texts_of("didn\xE2\x80\x99t") == Strings{"didn\xE2\x80\x99t"});  // U+2019
  CHECK(texts_of("'tis the dogs' bone") == Strings{"'", "tis", "the", "dogs", "'", "bone"});
  CHECK(texts_of("'quoted'") == Strings{"'", "quoted", "'"});
  CHECK(texts_of("a--b - c x-") == Strings{"a", "-", "-", "b", "-", "c", "x", "-"});
  CHECK(texts_of("x86-64") == Strings{"x86", "-", "64"});  // a hyphen between digits is not inside a word
  CHECK(token_is_punct(tokenize_words("'a")->front()));
}

TEST_CASE("tokenizer: one punctuation token per character") {
  CHECK(texts_of("Wait...what?!") == Strings{"Wait", ".", ".", ".", "what", "?", "!"});
  CHECK(texts_of("(\"hi\")") == Strings{"(", "\"", "hi", "\"", ")"});
  CHECK(texts_of("a\xE2\x80\xA6" "b") == Strings{"a", "\xE2\x80\xA6", "b"});  // U+2026 is one character
  for (TokenKind k : kinds_of("...!?(),;:")) CHECK(k == TokenKind::punct);
  CHECK(kinds_of("+=<$") == std::vector<TokenKind>(4, TokenKind::symbol));
}

TEST_CASE("tokenizer: emoji clusters are one symbol token each") {
  const std::string family = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7";  // 👨‍👩‍👧
  const std::string heart = "\xE2\x9D\xA4\xEF\xB8\x8F";                                                 // ❤️ (VS16)
  const std::string wave = "\xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD";                                          // 👋🏽
  const std::string flag = "\xF0\x9F\x87\xB0\xF0\x9F\x87\xB7";                                          // 🇰🇷
  const std::string keycap = "1\xEF\xB8\x8F\xE2\x83\xA3";                                               // 1️⃣
  const std::string smile = "\xF0\x9F\x98\x80";                                                         // 😀
  CHECK(texts_of("hi" + family + heart + wave + " " + flag + flag + keycap + smile + smile + "!") ==
        Strings{"hi", family, heart, wave, flag, flag, keycap, smile, smile, "!"});
  auto kinds = kinds_of(family + heart + wave + flag + keycap);
  CHECK(kinds == std::vector<TokenKind>(5, TokenKind::symbol));
  // A ZWJ that joins nothing is dropped; a lone skin tone is a symbol of its own.
  CHECK(texts_of(smile + "\xE2\x80\x8D") == Strings{smile});
  CHECK(texts_of("\xF0\x9F\x8F\xBD") == Strings{"\xF0\x9F\x8F\xBD"});
  // A combining mark with nothing to ride on is a symbol.
  CHECK(kinds_of(" \xCC\x81") == std::vector<TokenKind>{TokenKind::symbol});
}

TEST_CASE("tokenizer: special tokens typed literally") {
  CHECK(texts_of("[CLS] the cat [MASK] sat [SEP][PAD][UNK]") ==
        Strings{"[CLS]", "the", "cat", "[MASK]", "sat", "[SEP]", "[PAD]", "[UNK]"});
  auto kinds = kinds_of("[CLS] the [MASK]");
  CHECK(kinds == std::vector<TokenKind>{TokenKind::special, TokenKind::word, TokenKind::special});
  // Not special: other case, other names, broken brackets.
  CHECK(texts_of("[cls] [FOO] [MASK") == Strings{"[", "cls", "]", "[", "FOO", "]", "[", "MASK"});
}

TEST_CASE("tokenizer: invalid UTF-8 becomes one U+FFFD symbol per maximal subpart") {
  struct Case {
    std::string bytes;
    size_t fffd;
  };
  for (const Case& c : {Case{"\x80", 1}, Case{"\xE2\x82", 1}, Case{"\xC0\xAF", 2}, Case{"\xED\xA0\x80", 3},
                        Case{"\xF4\x90\x80\x80", 4}}) {
    CAPTURE(c.fffd);
    auto r = tokenize_words("ab" + c.bytes + "cd");
    REQUIRE(r.ok());
    REQUIRE(r->size() == c.fffd + 2);
    CHECK(r->front().text == "ab");
    CHECK(r->back().text == "cd");
    for (size_t i = 1; i <= c.fffd; ++i) {
      CHECK((*r)[i].text == kFffd);
      CHECK((*r)[i].kind == TokenKind::symbol);
      CHECK((*r)[i].begin == 2 + 3 * (i - 1));  // offsets are in the sanitized text
    }
  }
  // A typed U+FFFD is also a symbol of its own, and marks do not join it.
  CHECK(texts_of(kFffd + kFffd + "x") == Strings{kFffd, kFffd, "x"});
}

TEST_CASE("tokenizer: controls and NULs separate and vanish") {
  CHECK(texts_of(std::string("cat\0dog", 7)) == Strings{"cat", "dog"});
  CHECK(texts_of(std::string("\0\0a\x01\x1B" "b\x7F", 7)) == Strings{"a", "b"});
  CHECK(texts_of("tab\there\r\nnew\xC2\xA0line\xE3\x80\x80x") == Strings{"tab", "here", "new", "line", "x"});
  // BOM and zero-width space separate; ZWNJ inside a Persian word stays.
  CHECK(texts_of("\xEF\xBB\xBFhello\xE2\x80\x8Bworld") == Strings{"hello", "world"});
  CHECK(texts_of("\xD9\x85\xDB\x8C\xE2\x80\x8C\xD8\xAE\xD9\x88\xD8\xA7\xD9\x85") ==
        Strings{"\xD9\x85\xDB\x8C\xE2\x80\x8C\xD8\xAE\xD9\x88\xD8\xA7\xD9\x85"});  // می‌خوام
}

TEST_CASE("tokenizer: empty and whitespace-only text give zero tokens") {
  for (std::string_view s : {std::string_view(""), std::string_view("   "), std::string_view("\t\n\r "),
                             std::string_view("\xE3\x80\x80\xC2\xA0"), std::string_view("\0\0", 2)}) {
    auto r = tokenize_words(s);
    REQUIRE(r.ok());
    CHECK(r->empty());
  }
}

TEST_CASE("tokenizer: offsets round-trip into the sanitized text") {
  const std::string text = "  The 고양이는\x80 didn't [SEP] 3.14\xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD...\xC0\xAF end ";
  const std::string clean = utf8_sanitize(text);
  auto r = tokenize_words(text);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 13);
  size_t prev_end = 0;
  for (const Token& t : *r) {
    CHECK(t.begin < t.end);
    CHECK(t.begin >= prev_end);
    CHECK(clean.substr(t.begin, t.end - t.begin) == t.text);
    prev_end = t.end;
  }
  CHECK((*r)[0].begin == 2);
  CHECK((*r)[0].end == 5);
  CHECK((*r)[1].text == "고양이는");
  CHECK((*r)[2].text == kFffd);
}

TEST_CASE("tokenizer: byte and token limits") {
  TokenizeLimits small;
  small.max_bytes = 10;
  auto r = tokenize_words("hello world", small);  // 11 bytes
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "the text is 11 bytes; the limit is 10");
  CHECK(tokenize_words("hello worl", small).ok());

  TokenizeLimits few;
  few.max_tokens = 3;
  CHECK(tokenize_words("a b c", few)->size() == 3);
  r = tokenize_words("a b c d", few);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "the text has more than 3 tokens");

  // The defaults: 1 MiB and kMaxTokens.
  CHECK(TokenizeLimits{}.max_bytes == 1048576);
  CHECK(TokenizeLimits{}.max_tokens == kMaxTokens);
  r = tokenize_words(std::string((size_t{1} << 20) + 1, 'a'));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "the text is 1048577 bytes; the limit is 1048576");
  std::string many;
  for (int i = 0; i < kMaxTokens; ++i) many += "w ";
  CHECK(tokenize_words(many)->size() == static_cast<size_t>(kMaxTokens));
  r = tokenize_words(many + "w");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "the text has more than 8192 tokens");
}

TEST_CASE("tokenizer: megabyte inputs of every shape finish") {
  const size_t mb = size_t{1} << 20;
  auto one_word = tokenize_words(std::string(mb, 'a'));
  REQUIRE(one_word.ok());
  REQUIRE(one_word->size() == 1);
  CHECK(one_word->front().end == mb);

  auto punct = tokenize_words(std::string(mb, '.'));
  REQUIRE_FALSE(punct.ok());
  CHECK(punct.error() == "the text has more than 8192 tokens");
  TokenizeLimits unlimited;
  unlimited.max_tokens = 1 << 30;
  auto all_punct = tokenize_words(std::string(mb, '!'), unlimited);
  REQUIRE(all_punct.ok());
  CHECK(all_punct->size() == mb);
  CHECK(all_punct->back().begin == mb - 1);

  auto spaces = tokenize_words(std::string(mb, ' '));
  REQUIRE(spaces.ok());
  CHECK(spaces->empty());

  auto nuls = tokenize_words(std::string(mb, '\0'));
  REQUIRE(nuls.ok());
  CHECK(nuls->empty());

  auto invalid = tokenize_words(std::string(mb, '\xFF'));
  REQUIRE_FALSE(invalid.ok());
  CHECK(invalid.error() == "the text has more than 8192 tokens");

  // A megabyte of one Hangul word and of hyphen-joined words.
  std::string hangul;
  while (hangul.size() + 3 <= mb) hangul += "\xEA\xB0\x80";  // 가
  auto h = tokenize_words(hangul);
  REQUIRE(h.ok());
  CHECK(h->size() == 1);
  std::string joined = "a";
  while (joined.size() + 2 <= mb) joined += "-a";
  auto j = tokenize_words(joined);
  REQUIRE(j.ok());
  CHECK(j->size() == 1);
}
