// The built-in Korean typing (state/hangul_compose.h): the 2-set keys composed as ibus-hangul and
// libhangul compose them, checked letter by letter on the syllables a class types.
#include <doctest/doctest.h>

#include <string>

#include "state/hangul_compose.h"

namespace attnviz {
namespace {

// Types `keys` (non-letters end the syllable and go through as they are): the committed text and
// the syllable still being composed.
struct Typed {
  std::string committed, composing;
};
Typed type(HangulComposer& c, const std::string& keys) {
  Typed t;
  for (const char k : keys) {
    if (!c.feed(static_cast<unsigned char>(k), t.committed)) {
      t.committed += c.finish();
      t.committed += k;
    }
  }
  t.composing = c.preedit();
  return t;
}

std::string typed_text(const std::string& keys) {
  HangulComposer c;
  Typed t = type(c, keys);
  return t.committed + c.finish();
}

TEST_CASE("hangul typing: the 2-set layout's keys") {
  CHECK(hangul_jamo_for_key('r') == U'ㄱ');
  CHECK(hangul_jamo_for_key('R') == U'ㄲ');
  CHECK(hangul_jamo_for_key('k') == U'ㅏ');
  CHECK(hangul_jamo_for_key('K') == U'ㅏ');  // no other letter on Shift: the same one
  CHECK(hangul_jamo_for_key('P') == U'ㅖ');
  CHECK(hangul_jamo_for_key('m') == U'ㅡ');
  CHECK(hangul_jamo_for_key('z') == U'ㅋ');
  CHECK(hangul_jamo_for_key('1') == 0);
  CHECK(hangul_jamo_for_key(' ') == 0);
  CHECK(hangul_jamo_for_key(U'가') == 0);  // what an input method commits goes through
}

TEST_CASE("hangul typing: words, with the final moving on when a vowel follows") {
  CHECK(typed_text("dkssudgktpdy") == "안녕하세요");
  CHECK(typed_text("gksrmf") == "한글");
  CHECK(typed_text("dhkswjs") == "완전");  // ㅗ+ㅏ → ㅘ
  CHECK(typed_text("dmldml") == "의의");  // ㅡ+ㅣ → ㅢ; the ㅇ that seemed a final starts the next syllable
  CHECK(typed_text("dkswdma") == "앉음");  // ㄴ+ㅈ → ㄵ
  CHECK(typed_text("ekfrdl") == "닭이");
  CHECK(typed_text("ekfrl") == "달기");  // a double final gives its second half to the next syllable
  CHECK(typed_text("Qkd") == "빵");
  CHECK(typed_text("ekE") == "다ㄸ");  // ㄸ is never a final
  CHECK(typed_text("rr") == "ㄱㄱ");
  CHECK(typed_text("kk") == "ㅏㅏ");
  CHECK(typed_text("ajfxl gpem djxpstus.") == "멀티 헤드 어텐션.");  // ㄹ+ㅌ → ㄾ, split again by ㅣ
}

TEST_CASE("hangul typing: the syllable being composed, key by key, and what is committed when") {
  HangulComposer c;
  std::string committed;
  CHECK_FALSE(c.composing());
  CHECK(c.preedit().empty());
  CHECK(c.feed('d', committed));
  CHECK(c.preedit() == "ㅇ");
  CHECK(c.feed('k', committed));
  CHECK(c.preedit() == "아");
  CHECK(c.feed('s', committed));
  CHECK(c.preedit() == "안");
  CHECK(committed.empty());
  CHECK(c.feed('s', committed));  // ㄴ cannot join ㄴ: 안 is done
  CHECK(committed == "안");
  CHECK(c.preedit() == "ㄴ");
  CHECK(c.feed('u', committed));
  CHECK(c.preedit() == "녀");
  CHECK(c.feed('d', committed));
  CHECK(c.preedit() == "녕");
  CHECK(committed == "안");
  CHECK_FALSE(c.feed(' ', committed));  // not a letter: nothing changes, the caller finishes
  CHECK(c.preedit() == "녕");
  CHECK(c.finish() == "녕");
  CHECK_FALSE(c.composing());
}

TEST_CASE("hangul typing: Backspace takes back one letter of the syllable being composed") {
  HangulComposer c;
  Typed t = type(c, "rhkd");
  CHECK(t.composing == "광");
  REQUIRE(c.backspace());
  CHECK(c.preedit() == "과");
  REQUIRE(c.backspace());
  CHECK(c.preedit() == "고");  // the double vowel loses its second half
  REQUIRE(c.backspace());
  CHECK(c.preedit() == "ㄱ");
  REQUIRE(c.backspace());
  CHECK(c.preedit().empty());
  CHECK_FALSE(c.composing());
  CHECK_FALSE(c.backspace());  // nothing composed: Backspace is the box's own

  // A final that moved on: 안 + ㅕ → 아 녀; Backspace takes ㅕ, then ㄴ, not 아's letters.
  HangulComposer d;
  t = type(d, "dksu");
  CHECK(t.committed == "아");
  CHECK(t.composing == "녀");
  REQUIRE(d.backspace());
  CHECK(d.preedit() == "ㄴ");
  REQUIRE(d.backspace());
  CHECK_FALSE(d.composing());
}

}  // namespace
}  // namespace attnviz
