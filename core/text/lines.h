// Splitting a text file's contents into lines for the vocabulary readers (merges.txt, vocab.txt):
// "\n" ends a line, a "\r" before it is dropped (files written on Windows), and a final newline
// does not start an empty last line. Views into the text; nothing is copied.
#pragma once
#include <string_view>
#include <vector>

namespace attnviz {

inline std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    pos = eol + 1;
  }
  return lines;
}

}  // namespace attnviz
