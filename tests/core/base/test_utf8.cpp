// UTF-8 repair (one U+FFFD per maximal invalid subpart), validation, decoding, encoding and
// counting. The character classes are tested in test_unicode.cpp.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "base/utf8.h"
#include "support/token_util.h"

using namespace attnviz;
using attnviz::test::kFffd;

namespace {


size_t count_fffd(const std::string& s) {
  size_t n = 0;
  for (size_t pos = s.find(kFffd); pos != std::string::npos; pos = s.find(kFffd, pos + 3)) ++n;
  return n;
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("utf8: valid text comes back byte for byte") {
  const std::string text = "plain ASCII, café, 고양이, 日本語, 😀 and U+FFFD itself: \xEF\xBF\xBD";
  CHECK(utf8_is_valid(text));
  CHECK(utf8_sanitize(text) == text);
  CHECK(utf8_sanitize("") == "");
  CHECK(utf8_sanitize(std::string("a\0b", 3)) == std::string("a\0b", 3));  // NUL is valid UTF-8
}

TEST_CASE("utf8: each kind of invalid sequence becomes the right number of U+FFFD") {
  // Lone continuation byte: one each.
  CHECK(utf8_sanitize("a\x80" "b") == "a" + kFffd + "b");
  CHECK(utf8_sanitize("\x80\xBF") == kFffd + kFffd);
  // Truncated 3-byte sequence (E2 82 of the euro sign E2 82 AC): one for the pair.
  CHECK(utf8_sanitize("\xE2\x82x") == kFffd + "x");
  CHECK(utf8_sanitize("x\xE2\x82") == "x" + kFffd);
  CHECK(utf8_sanitize("\xF0\x9F\x98") == kFffd);  // truncated 4-byte
  // Overlong forms: C0/C1 can never start a sequence, E0 80 / F0 80 fail at the second byte.
  CHECK(utf8_sanitize("\xC0\xAF") == kFffd + kFffd);
  CHECK(utf8_sanitize("\xE0\x80\xAF") == repeat(kFffd, 3));
  CHECK(utf8_sanitize("\xF0\x80\x80\xAF") == repeat(kFffd, 4));
  // Surrogate U+D800: ED must be followed by 80..9F.
  CHECK(utf8_sanitize("\xED\xA0\x80") == repeat(kFffd, 3));
  CHECK(utf8_sanitize("\xED\x9F\xBF") == "\xED\x9F\xBF");  // U+D7FF is fine
  // Above U+10FFFF.
  CHECK(utf8_sanitize("\xF4\x90\x80\x80") == repeat(kFffd, 4));
  CHECK(utf8_sanitize("\xF4\x8F\xBF\xBF") == "\xF4\x8F\xBF\xBF");  // U+10FFFF is fine
  CHECK(utf8_sanitize("\xF5\xFE\xFF") == repeat(kFffd, 3));
  // The example of Unicode section 3.9: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
  std::string expected = "a";
  expected += repeat(kFffd, 3);
  expected += "b";
  expected += kFffd;
  expected += "c";
  expected += repeat(kFffd, 2);
  expected += "d";
  CHECK(utf8_sanitize("a\xF1\x80\x80\xE1\x80\xC2" "b\x80" "c\x80\xBF" "d") == expected);
}

TEST_CASE("utf8: sanitized random bytes are valid and sanitizing again changes nothing") {
  uint32_t state = 12345;
  std::string bytes;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    bytes.push_back(static_cast<char>(state >> 24));
  }
  const std::string clean = utf8_sanitize(bytes);
  CHECK_FALSE(utf8_is_valid(bytes));
  CHECK(utf8_is_valid(clean));
  CHECK(utf8_sanitize(clean) == clean);
}

TEST_CASE("utf8: a megabyte of invalid bytes is one U+FFFD per byte") {
  const std::string bad(size_t{1} << 20, '\xFF');
  const std::string clean = utf8_sanitize(bad);
  CHECK(clean.size() == 3 * bad.size());
  CHECK(utf8_count(clean) == bad.size());
  CHECK(count_fffd(clean) == bad.size());
}

TEST_CASE("utf8: next decodes 1- to 4-byte sequences and advances") {
  const std::string s = "a\xC3\xA9\xED\x95\x9C\xF0\x9F\x98\x80";  // a é 한 😀
  size_t pos = 0;
  CHECK(utf8_next(s, pos) == U'a');
  CHECK(pos == 1);
  CHECK(utf8_next(s, pos) == 0xE9);
  CHECK(pos == 3);
  CHECK(utf8_next(s, pos) == 0xD55C);
  CHECK(pos == 6);
  CHECK(utf8_next(s, pos) == 0x1F600);
  CHECK(pos == 10);
  CHECK(utf8_next(s, pos) == 0);  // at the end: nothing, pos stays
  CHECK(pos == 10);
  // Handed invalid bytes anyway, it neither overruns nor stalls.
  pos = 0;
  CHECK(utf8_next("\xE2\x82", pos) == kReplacementChar);
  CHECK(pos == 2);
}

TEST_CASE("utf8: append encodes the boundaries and refuses surrogates and > U+10FFFF") {
  struct Case {
    char32_t cp;
    size_t bytes;
  };
  for (Case c : {Case{0x0, 1}, Case{0x7F, 1}, Case{0x80, 2}, Case{0x7FF, 2}, Case{0x800, 3},
                 Case{0xFFFF, 3}, Case{0x10000, 4}, Case{0x10FFFF, 4}}) {
    std::string out;
    utf8_append(out, c.cp);
    CHECK(out.size() == c.bytes);
    size_t pos = 0;
    CHECK(utf8_next(out, pos) == c.cp);
  }
  std::string out;
  utf8_append(out, 0xD800);
  utf8_append(out, 0x110000);
  CHECK(out == kFffd + kFffd);
}

TEST_CASE("utf8: every scalar value round-trips through append and next") {
  std::string out;
  size_t failures = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    out.clear();
    utf8_append(out, cp);
    size_t pos = 0;
    if (!utf8_is_valid(out) || utf8_next(out, pos) != cp || pos != out.size()) ++failures;
  }
  CHECK(failures == 0);
}

TEST_CASE("utf8: count is code points, not bytes") {
  CHECK(utf8_count("") == 0);
  CHECK(utf8_count("abc") == 3);
  CHECK(utf8_count("\xEA\xB3\xA0\xEC\x96\x91\xEC\x9D\xB4") == 3);  // 고양이
  // Family emoji: man ZWJ woman ZWJ girl ZWJ boy = 7 code points in 25 bytes.
  const std::string family = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7\xE2\x80\x8D\xF0\x9F\x91\xA6";
  CHECK(family.size() == 25);
  CHECK(utf8_count(family) == 7);
}
