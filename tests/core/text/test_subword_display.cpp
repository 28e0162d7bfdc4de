// How checkpoint tokens are labelled: the text they cover with visible whitespace, <NN> for bytes
// that are only part of a character, pieces for special tokens; and their kinds.
#include <doctest/doctest.h>

#include "font_find.h"
#include "text/subword_display.h"

namespace attnviz {
namespace {

SubwordToken covering(size_t begin, size_t end, std::string piece = "p") {
  SubwordToken t;
  t.piece = std::move(piece);
  t.begin = begin;
  t.end = end;
  return t;
}

TEST_CASE("subword display: whitespace is visible and partial characters show their bytes") {
  CHECK(subword_visible_text(" cat") == "\xC2\xB7" "cat");
  CHECK(subword_visible_text("\t\n") == "\xE2\x86\x92\xE2\x86\xB2");
  CHECK(subword_visible_text("\xF0\x9F") == "<F0><9F>");     // the first half of an emoji
  CHECK(subword_visible_text("\xA4\x96") == "<A4><96>");     // its second half
  CHECK(subword_visible_text("고양이") == "고양이");
  CHECK(subword_visible_text("a\xE2\x82") == "a<E2><82>");   // a truncated 3-byte sequence
}

TEST_CASE("subword display: labels come from the covered text, specials and empty ranges show the piece") {
  SubwordEncoding e;
  e.text = "The cat";
  e.text_b = "It sat";
  CHECK(subword_token_label(e, covering(3, 7, "Ġcat")) == "\xC2\xB7" "cat");
  SubwordToken b = covering(3, 6, "sat");
  b.segment = 1;
  CHECK(subword_token_label(e, b) == "sat");
  SubwordToken cls = covering(0, 0, "[CLS]");
  cls.special = true;
  CHECK(subword_token_label(e, cls) == "[CLS]");
  CHECK(subword_token_label(e, covering(5, 99, "x")) == "x");  // a range past the text: the piece
}

TEST_CASE("subword display: kinds from the covered characters' categories") {
  SubwordEncoding e;
  e.text = " , 2017 🤖 cat 3x";
  CHECK(subword_token_kind(e, covering(0, 2)) == TokenKind::punct);   // " ,": the space is ignored
  CHECK(subword_token_kind(e, covering(2, 7)) == TokenKind::number);
  CHECK(subword_token_kind(e, covering(7, 12)) == TokenKind::symbol);  // " 🤖"
  CHECK(subword_token_kind(e, covering(8, 10)) == TokenKind::word);    // half an emoji
  CHECK(subword_token_kind(e, covering(12, 16)) == TokenKind::word);
  CHECK(subword_token_kind(e, covering(17, 19)) == TokenKind::word);   // "3x": mixed
  SubwordToken sep = covering(0, 0, "[SEP]");
  sep.special = true;
  CHECK(subword_token_kind(e, sep) == TokenKind::special);
}

TEST_CASE("subword display: the app's font has every mark used") {
  const auto font = font_find_and_load();
  REQUIRE_MESSAGE(font.has_value(), "no font found (fonts-nanum)");
  for (char32_t c : {U'\u00B7', U'\u2192', U'\u21B2', U'<', U'>'}) CHECK(font->has_glyph(c));
}

}  // namespace
}  // namespace attnviz
