// ASCII-only case folding: what the demos' vocabularies and the hashed embeddings use, so that
// "The" finds "the" whatever the locale, and no other byte (UTF-8 included) changes.
#pragma once
#include <string>
#include <string_view>

namespace attnviz {

inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace attnviz
