#include "state/hangul_compose.h"

#include <array>
#include <string_view>
#include <utility>

namespace attnviz {

namespace {

// The compatibility jamo in the order of the precomposed syllables' indices (Unicode §3.12).
constexpr std::u32string_view kInitials = U"ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ";
constexpr std::u32string_view kMedials = U"ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ";
constexpr std::u32string_view kFinals = U"ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ";  // index + 1

// The 2-set layout: a..z, then the shifted keys that give another letter.
constexpr std::u32string_view kLower = U"ㅁㅠㅊㅇㄷㄹㅎㅗㅑㅓㅏㅣㅡㅜㅐㅔㅂㄱㄴㅅㅕㅍㅈㅌㅛㅋ";
constexpr std::array<std::pair<char32_t, char32_t>, 7> kShifted = {
    {{'Q', U'ㅃ'}, {'W', U'ㅉ'}, {'E', U'ㄸ'}, {'R', U'ㄲ'}, {'T', U'ㅆ'}, {'O', U'ㅒ'}, {'P', U'ㅖ'}}};

struct Pair {
  char32_t first, second, both;
};
constexpr std::array<Pair, 7> kDoubleVowels = {{{U'ㅗ', U'ㅏ', U'ㅘ'}, {U'ㅗ', U'ㅐ', U'ㅙ'}, {U'ㅗ', U'ㅣ', U'ㅚ'},
                                                {U'ㅜ', U'ㅓ', U'ㅝ'}, {U'ㅜ', U'ㅔ', U'ㅞ'}, {U'ㅜ', U'ㅣ', U'ㅟ'},
                                                {U'ㅡ', U'ㅣ', U'ㅢ'}}};
constexpr std::array<Pair, 11> kDoubleFinals = {{{U'ㄱ', U'ㅅ', U'ㄳ'}, {U'ㄴ', U'ㅈ', U'ㄵ'}, {U'ㄴ', U'ㅎ', U'ㄶ'},
                                                 {U'ㄹ', U'ㄱ', U'ㄺ'}, {U'ㄹ', U'ㅁ', U'ㄻ'}, {U'ㄹ', U'ㅂ', U'ㄼ'},
                                                 {U'ㄹ', U'ㅅ', U'ㄽ'}, {U'ㄹ', U'ㅌ', U'ㄾ'}, {U'ㄹ', U'ㅍ', U'ㄿ'},
                                                 {U'ㄹ', U'ㅎ', U'ㅀ'}, {U'ㅂ', U'ㅅ', U'ㅄ'}}};

template <size_t N>
char32_t combine(const std::array<Pair, N>& table, char32_t a, char32_t b) {
  for (const Pair& p : table)
    if (p.first == a && p.second == b) return p.both;
  return 0;
}

template <size_t N>
const Pair* split(const std::array<Pair, N>& table, char32_t both) {
  for (const Pair& p : table)
    if (p.both == both) return &p;
  return nullptr;
}

bool is_vowel(char32_t jamo) { return kMedials.find(jamo) != std::u32string_view::npos; }
bool can_be_final(char32_t jamo) { return kFinals.find(jamo) != std::u32string_view::npos; }

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {  // the jamo and syllables are all in the Basic Multilingual Plane
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

char32_t hangul_jamo_for_key(char32_t key) {
  for (const auto& [shifted, jamo] : kShifted)
    if (key == shifted) return jamo;
  if (key >= 'A' && key <= 'Z') key += 'a' - 'A';
  if (key >= 'a' && key <= 'z') return kLower[key - 'a'];
  return 0;
}

std::string HangulComposer::preedit() const {
  std::string out;
  const Syllable& s = now_;
  if (s.initial && s.medial) {
    const auto final_index = s.final ? kFinals.find(s.final) + 1 : 0;
    append_utf8(out, static_cast<char32_t>(0xAC00 + (kInitials.find(s.initial) * 21 + kMedials.find(s.medial)) * 28 +
                                           final_index));
  } else if (s.initial || s.medial) {
    append_utf8(out, s.initial ? s.initial : s.medial);
  }
  return out;
}

void HangulComposer::push(const Syllable& next) {
  history_.push_back(now_);
  now_ = next;
}

void HangulComposer::commit_and_start(std::string& committed, const Syllable& start, bool start_from_empty) {
  committed += finish();
  if (start_from_empty) {
    push(start);
  } else {  // a final moved on: Backspace takes back the vowel, then that consonant
    push(Syllable{start.initial, 0, 0});
    push(start);
  }
}

bool HangulComposer::feed(char32_t key, std::string& committed) {
  const char32_t jamo = hangul_jamo_for_key(key);
  if (!jamo) return false;
  Syllable s = now_;
  if (is_vowel(jamo)) {
    if (!s.medial) {  // nothing yet, or an initial waiting for its vowel
      s.medial = jamo;
      push(s);
    } else if (!s.final) {
      if (const char32_t both = combine(kDoubleVowels, s.medial, jamo)) {
        s.medial = both;
        push(s);
      } else {
        commit_and_start(committed, Syllable{0, jamo, 0}, true);
      }
    } else {  // the final starts the next syllable (a double final gives its second half)
      char32_t moving = s.final;
      if (const Pair* p = split(kDoubleFinals, s.final)) {
        now_.final = p->first;
        moving = p->second;
      } else {
        now_.final = 0;
      }
      commit_and_start(committed, Syllable{moving, jamo, 0}, false);
    }
    return true;
  }
  if (!s.initial && !s.medial) {
    s.initial = jamo;
    push(s);
  } else if (s.initial && s.medial && !s.final && can_be_final(jamo)) {
    s.final = jamo;
    push(s);
  } else if (const char32_t both = s.final ? combine(kDoubleFinals, s.final, jamo) : 0) {
    s.final = both;
    push(s);
  } else {  // a lone letter, a syllable that takes no (more) final, or ㄸ ㅃ ㅉ: a new syllable
    commit_and_start(committed, Syllable{jamo, 0, 0}, true);
  }
  return true;
}

bool HangulComposer::backspace() {
  if (history_.empty()) return false;
  now_ = history_.back();
  history_.pop_back();
  if (!now_.initial && !now_.medial) history_.clear();  // back at the start: nothing is composed
  return true;
}

std::string HangulComposer::finish() {
  std::string out = preedit();
  now_ = Syllable{};
  history_.clear();
  return out;
}

}  // namespace attnviz
