// UTF-8 repair and decoding by the well-formed byte table (Unicode Table 3-7).
#include "base/utf8.h"

namespace attnviz {

namespace {

// Length of the well-formed sequence that starts at s[i], or 0 when there is none; then `bad`
// is the length of the maximal invalid subpart (>= 1), the bytes one U+FFFD replaces.
size_t sequence_length(std::string_view s, size_t i, size_t& bad) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte; later bytes are 80..BF
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 == 0xE0) {
    need = 2, lo = 0xA0;  // below A0 would be an overlong 3-byte form
  } else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
    need = 2;
  } else if (b0 == 0xED) {
    need = 2, hi = 0x9F;  // A0..BF would encode a surrogate
  } else if (b0 == 0xF0) {
    need = 3, lo = 0x90;  // overlong 4-byte form
  } else if (b0 >= 0xF1 && b0 <= 0xF3) {
    need = 3;
  } else if (b0 == 0xF4) {
    need = 3, hi = 0x8F;  // above U+10FFFF
  } else {
    bad = 1;  // continuation byte as lead, C0/C1 (always overlong), F5..FF
    return 0;
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) {
      bad = k;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < lo || b > hi) {
      bad = k;
      return 0;
    }
    lo = 0x80, hi = 0xBF;
  }
  return need + 1;
}

}  // namespace

size_t utf8_invalid_at(std::string_view bytes) {
  size_t i = 0, bad = 0;
  while (i < bytes.size()) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {  // ASCII runs are the common case
      ++i;
      continue;
    }
    const size_t len = sequence_length(bytes, i, bad);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool utf8_is_valid(std::string_view bytes) { return utf8_invalid_at(bytes) == std::string_view::npos; }

std::string utf8_sanitize(std::string_view bytes) {
  if (utf8_is_valid(bytes)) return std::string(bytes);
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 2);
  size_t i = 0, bad = 0, run = 0;  // [run, i) is valid and not yet copied
  while (i < bytes.size()) {
    const size_t len = sequence_length(bytes, i, bad);
    if (len > 0) {
      i += len;
      continue;
    }
    out.append(bytes.substr(run, i - run));
    utf8_append(out, kReplacementChar);
    i += bad;
    run = i;
  }
  out.append(bytes.substr(run));
  return out;
}

char32_t utf8_next(std::string_view valid, size_t& pos) {
  if (pos >= valid.size()) return 0;
  size_t bad = 0;
  const size_t len = sequence_length(valid, pos, bad);
  if (len == 0) {
    pos += bad;
    return kReplacementChar;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(valid.data() + pos);
  char32_t c = 0;
  switch (len) {
    case 1: c = p[0]; break;
    case 2: c = (char32_t(p[0] & 0x1F) << 6) | (p[1] & 0x3F); break;
    case 3: c = (char32_t(p[0] & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F); break;
    default:
      c = (char32_t(p[0] & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) | (char32_t(p[2] & 0x3F) << 6) |
          (p[3] & 0x3F);
  }
  pos += len;
  return c;
}

void utf8_append(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = kReplacementChar;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t utf8_count(std::string_view valid) {
  size_t n = 0;
  for (char b : valid)
    if ((static_cast<unsigned char>(b) & 0xC0) != 0x80) ++n;  // every byte but continuations
  return n;
}

}  // namespace attnviz
