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

}  // namespace
}  // namespace attnviz
