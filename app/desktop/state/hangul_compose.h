// Korean typed without an input method: the standard 2-set (두벌식) keyboard, composed into
// syllables as the letters come. GLFW 3.3 gives an application the text an input method (ibus,
// fcitx) commits but never the syllable it is still composing, so the sentence boxes compose
// themselves when the built-in typing is on (Shift+Space), and show that syllable as they go
// (widgets/sentence_box.cpp). The rules are those of libhangul's "2" keyboard: a consonant after a
// vowel becomes the final and moves on to the next syllable when a vowel follows (안 + ㅕ → 아녀),
// double vowels and finals combine (ㅗ+ㅏ → ㅘ, ㄹ+ㄱ → ㄺ), Shift gives ㅃ ㅉ ㄸ ㄲ ㅆ ㅒ ㅖ, and
// Backspace takes back one letter of the syllable being composed.
#pragma once
#include <string>
#include <vector>

namespace attnviz {

// The letter the 2-set layout puts on an ASCII key, as a compatibility jamo (U+3131 to U+3163);
// 0 for any other character.
char32_t hangul_jamo_for_key(char32_t key);

class HangulComposer {
 public:
  // Feeds one typed character. A key that is not a letter of the layout returns false and changes
  // nothing: the caller ends the composition (`finish`) and lets the key through. Otherwise the
  // syllables the key completed are appended to `committed` (UTF-8) and the key is taken.
  bool feed(char32_t key, std::string& committed);
  // Takes back the last letter of the syllable being composed; false when none is being composed.
  bool backspace();
  // Ends the composition: the syllable being composed, as committed text ("" when none).
  std::string finish();

  bool composing() const { return !history_.empty(); }
  // The syllable being composed, in UTF-8 ("" when none): a full syllable (가, 닭) or a lone letter.
  std::string preedit() const;

 private:
  struct Syllable {
    char32_t initial = 0, medial = 0, final = 0;  // compatibility jamo; 0: none
  };
  Syllable now_;
  std::vector<Syllable> history_;  // the states before each letter of this syllable, for Backspace
  void push(const Syllable& next);
  void commit_and_start(std::string& committed, const Syllable& start, bool start_from_empty);
};

}  // namespace attnviz

namespace attnviz {

// The app's side of the built-in typing: whether it is on (sessions keep it) and the syllable a
// field is composing this frame ("" when none; the tests read it).
struct HangulTyping {
  bool on = false;
  std::string composing;
};

}  // namespace attnviz
