// The text side of the tokenizer.json pipeline: Aligned text and its rewriting by the normalizers
// (NFC, Prepend, Replace) with every output byte traced to its input bytes, and the search for added
// tokens with Hugging Face's options. No vocabulary and no model here.
#include <algorithm>
#include <array>

#include "text/pipeline_detail.h"
#include "text/unicode.h"
#include "base/utf8.h"

namespace attnviz {

namespace pipeline_detail {

void push_bytes(Aligned& a, std::string_view bytes, Span src) {
  const size_t k = bytes.size(), n = src.end - src.begin;
  for (size_t i = 0; i < k; ++i) {
    Span s = src;
    if (n >= k) {  // one byte each when the lengths agree; else consecutive shares
      s.begin = uint32_t(src.begin + i * n / k);
      s.end = uint32_t(src.begin + (i + 1) * n / k);
    } else if (n > 0) {  // more bytes than the source had: the last ones repeat its last byte
      const size_t j = std::min(i, n - 1);
      s = {uint32_t(src.begin + j), uint32_t(src.begin + j + 1)};
    }
    a.text.push_back(bytes[i]);
    a.at.push_back(s);
  }
}

Span span_of(const Aligned& a, size_t begin, size_t end) {
  Span s = a.at[begin];
  for (size_t i = begin + 1; i < end; ++i) {
    s.begin = std::min(s.begin, a.at[i].begin);
    s.end = std::max(s.end, a.at[i].end);
  }
  return s;
}

Aligned aligned_input(std::string_view text, size_t base) {
  Aligned a;
  a.text.assign(text);
  a.at.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) a.at[i] = {uint32_t(base + i), uint32_t(base + i + 1)};
  return a;
}

Aligned aligned_slice(const Aligned& a, size_t begin, size_t end) {
  Aligned s;
  s.text.assign(a.text, begin, end - begin);
  s.at.assign(a.at.begin() + std::ptrdiff_t(begin), a.at.begin() + std::ptrdiff_t(end));
  return s;
}

namespace {

size_t char_length(std::string_view s, size_t pos) {
  size_t p = pos;
  utf8_next(s, p);
  return p - pos;
}

std::string utf8_of(std::u32string_view chars) {
  std::string out;
  for (char32_t c : chars) utf8_append(out, c);
  return out;
}

// Canonical composition in units that compose independently: a unit is a starter with the marks
// after it, joined with the next starter when the two compose (Hangul L + V, then LV + T). A unit
// NFC leaves alone keeps its bytes' sources; a changed one shares the unit's sources among its
// output bytes.
//
// Linear in the text: whether a character joins is decided from the character and the last
// character of the unit's NFC, never by normalising the unit with and without it (quadratic over a
// long run of marks), and each unit is normalised once (when a starter asks, kept for the flush).
Aligned nfc(const Aligned& in) {
  Aligned out;
  out.text.reserve(in.text.size());
  out.at.reserve(in.text.size());
  std::u32string unit, composed;
  bool composed_current = false;  // composed == NFC(unit)
  size_t unit_begin = 0;
  const auto compose_unit = [&] {
    if (composed_current) return;
    // One character with no decomposition, or a Hangul syllable, is its own NFC.
    const bool plain =
        unit.size() == 1 && (unicode_nfd_first(unit[0]) == unit[0] || (unit[0] >= 0xAC00 && unit[0] <= 0xD7A3));
    composed = plain ? unit : unicode_nfc(unit);
    composed_current = true;
  };
  const auto flush = [&](size_t unit_end) {
    if (unit.empty()) return;
    compose_unit();
    if (composed == unit) {
      out.text.append(in.text, unit_begin, unit_end - unit_begin);
      out.at.insert(out.at.end(), in.at.begin() + std::ptrdiff_t(unit_begin), in.at.begin() + std::ptrdiff_t(unit_end));
    } else {
      push_bytes(out, utf8_of(composed), span_of(in, unit_begin, unit_end));
    }
    unit.clear();
  };
  for (size_t pos = 0; pos < in.text.size();) {
    const size_t start = pos;
    const char32_t c = utf8_next(in.text, pos);
    bool join = false;
    if (!unit.empty() && c >= 0x300) {  // below U+0300 nothing composes or reorders
      // A mark reorders with the marks before it and may compose with their starter. So does a
      // starter whose decomposition begins with a mark (Tibetan U+0F73: U+0F71 U+0F72).
      const char32_t first = unicode_nfd_first(c);
      if (unicode_combining_class(c) != 0 || unicode_combining_class(first) != 0) {
        join = true;
      } else {
        // A starter changes nothing before it unless it composes with the unit's last character,
        // which it can reach only when that is itself a starter (any mark in between blocks it).
        compose_unit();
        const char32_t last = composed.back();
        join = unicode_combining_class(last) == 0 && unicode_compose(last, first) != 0;
      }
    }
    if (!join) {
      flush(start);
      unit_begin = start;
    }
    unit.push_back(c);
    composed_current = false;
  }
  flush(in.text.size());
  return out;
}

Aligned prepend(const Aligned& in, std::string_view text) {
  if (in.text.empty()) return in;
  Aligned out;
  push_bytes(out, text, span_of(in, 0, char_length(in.text, 0)));  // as Rust: the first character's source
  out.text += in.text;
  out.at.insert(out.at.end(), in.at.begin(), in.at.end());
  return out;
}

Aligned replace(const Aligned& in, std::string_view from, std::string_view with) {
  if (in.text.find(from) == std::string::npos) return in;
  Aligned out;
  for (size_t pos = 0; pos < in.text.size();) {
    const size_t hit = in.text.find(from, pos);
    const size_t stop = hit == std::string::npos ? in.text.size() : hit;
    out.text.append(in.text, pos, stop - pos);
    out.at.insert(out.at.end(), in.at.begin() + std::ptrdiff_t(pos), in.at.begin() + std::ptrdiff_t(stop));
    if (hit == std::string::npos) break;
    push_bytes(out, with, span_of(in, hit, hit + from.size()));
    pos = hit + from.size();
  }
  return out;
}

}  // namespace

Aligned normalize(const std::vector<PipelineNormalize>& steps, Aligned text) {
  for (const PipelineNormalize& step : steps) {
    switch (step.kind) {
      case PipelineNormalize::Kind::nfc: text = nfc(text); break;
      case PipelineNormalize::Kind::prepend: text = prepend(text, step.text); break;
      case PipelineNormalize::Kind::replace: text = replace(text, step.text, step.with); break;
    }
  }
  return text;
}

namespace {

// Rust's regex \w: Alphabetic, marks, decimal digits, connector punctuation (approximately: letters
// and letter numbers stand for Alphabetic).
bool is_word_char(char32_t c) {
  using G = UnicodeGeneralCategory;
  const G g = unicode_general_category(c);
  return unicode_is_letter(c) || g == G::mn || g == G::mc || g == G::me || g == G::nd || g == G::nl || g == G::pc;
}

size_t prev_char_start(std::string_view s, size_t pos) {
  do --pos;
  while (pos > 0 && (uint8_t(s[pos]) & 0xC0) == 0x80);
  return pos;
}

}  // namespace

// Hugging Face's AddedVocabulary::find_matches: leftmost-longest matches, searching on after each
// match's end; single_word drops a match with a word character beside it; lstrip / rstrip widen a
// kept match over the whitespace beside it (never back into the previous match).
std::vector<AddedMatch> added_matches(std::string_view s, const std::vector<PipelineAddedToken>& tokens) {
  std::vector<AddedMatch> out;
  if (tokens.empty()) return out;
  std::array<bool, 256> starts{};  // first bytes of the tokens: most positions are ruled out at once
  for (const PipelineAddedToken& t : tokens) starts[uint8_t(t.content[0])] = true;
  size_t kept_end = 0;
  for (size_t pos = 0; pos < s.size();) {
    if (!starts[uint8_t(s[pos])]) {
      ++pos;
      continue;
    }
    const PipelineAddedToken* hit = nullptr;
    for (const PipelineAddedToken& t : tokens)  // longest first
      if (t.content[0] == s[pos] && s.compare(pos, t.content.size(), t.content) == 0) {
        hit = &t;
        break;
      }
    if (hit == nullptr) {
      ++pos;
      continue;
    }
    size_t begin = pos, end = pos + hit->content.size();
    pos = end;
    if (hit->single_word) {
      size_t before = begin > 0 ? prev_char_start(s, begin) : 0, after = end;
      const bool word_before = begin > 0 && is_word_char(utf8_next(s, before));
      const bool word_after = end < s.size() && is_word_char(utf8_next(s, after));
      if (word_before || word_after) continue;
    }
    if (hit->lstrip)
      while (begin > kept_end) {
        const size_t prev = prev_char_start(s, begin);
        size_t p = prev;
        if (!unicode_is_white_space(utf8_next(s, p))) break;
        begin = prev;
      }
    if (hit->rstrip)
      while (end < s.size()) {
        size_t p = end;
        if (!unicode_is_white_space(utf8_next(s, p))) break;
        end = p;
      }
    out.push_back({begin, end, hit});
    kept_end = pos = end;
  }
  return out;
}

}  // namespace pipeline_detail

}  // namespace attnviz
