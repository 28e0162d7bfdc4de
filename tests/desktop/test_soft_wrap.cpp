// The sentence boxes' word wrap: breaks only at spaces, as late as the width allows, one byte for
// one byte (so the cursor stays put), and back to the same text exactly.
#include <doctest/doctest.h>

#include <string>

#include "state/soft_wrap.h"

namespace attnviz {
namespace {

// Every byte one unit wide: a line of width 10 holds 10 bytes.
float bytes_wide(std::string_view s) { return static_cast<float>(s.size()); }

TEST_CASE("soft wrap: breaks at the last space that keeps a line within the width, and unwraps exactly") {
  const std::string text = "The animal didn't cross the street because it was too tired.";
  const std::string shown = soft_wrap(text, 20, bytes_wide);
  CHECK(shown == "The animal didn't\ncross the street\nbecause it was too\ntired.");
  CHECK(shown.size() == text.size());
  CHECK(soft_unwrap(shown) == text);
  // Every line fits.
  size_t start = 0;
  while (start <= shown.size()) {
    const size_t end = std::min(shown.find('\n', start), shown.size());
    CHECK(end - start <= 20);
    start = end + 1;
  }
}

TEST_CASE("soft wrap: short text, long words, repeated spaces and Hangul") {
  CHECK(soft_wrap("short", 20, bytes_wide) == "short");
  CHECK(soft_wrap("", 20, bytes_wide).empty());
  // A word longer than a line stays whole on a line of its own.
  CHECK(soft_wrap("a supercalifragilistic b", 10, bytes_wide) == "a\nsupercalifragilistic\nb");
  // Two spaces: the break takes one, the other stays, and unwrapping gives both back.
  const std::string spaced = "aaaa  bbbb  cccc";
  CHECK(soft_unwrap(soft_wrap(spaced, 6, bytes_wide)) == spaced);
  // UTF-8 is never split: breaks fall on spaces only.
  const std::string korean = "동물은 너무 피곤했기 때문에 길을 건너지 않았다";
  const std::string wrapped = soft_wrap(korean, 20, bytes_wide);
  CHECK(wrapped != korean);
  CHECK(soft_unwrap(wrapped) == korean);
}

TEST_CASE("soft wrap: text with newlines of its own is not wrapped") {
  CHECK(soft_wrappable("one line"));
  CHECK_FALSE(soft_wrappable("two\nlines"));
  CHECK_FALSE(soft_wrappable("carriage\rreturn"));
}

TEST_CASE("fit with ellipsis: whole when it fits, else the longest beginning that fits with \"…\", cut between characters") {
  // One unit per character (a UTF-8 continuation byte adds nothing), as a font would measure.
  const auto chars_wide = [](std::string_view s) {
    float w = 0;
    for (unsigned char c : s) w += (c & 0xC0) != 0x80 ? 1.0f : 0.0f;
    return w;
  };
  CHECK(fit_with_ellipsis("short", 5, chars_wide) == "short");
  CHECK(fit_with_ellipsis("a longer line", 6, chars_wide) == "a lon\u2026");
  CHECK(chars_wide(fit_with_ellipsis("a longer line", 6, chars_wide)) == 6);
  // Hangul is three bytes a character: never cut inside one.
  CHECK(fit_with_ellipsis("샌드박스 (시드 1)", 4, chars_wide) == "샌드박\u2026");
  CHECK(fit_with_ellipsis("샌드박스", 1, chars_wide) == "\u2026");
  CHECK(fit_with_ellipsis("샌드박스", 0.5f, chars_wide).empty());
  CHECK(fit_with_ellipsis("", 0, chars_wide).empty());
}

}  // namespace
}  // namespace attnviz
