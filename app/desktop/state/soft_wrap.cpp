// Greedy word wrap at spaces, measuring each candidate line once.
#include "state/soft_wrap.h"

namespace attnviz {

std::string soft_wrap(std::string_view text, float line_width, const std::function<float(std::string_view)>& width_of) {
  std::string out(text);
  size_t line_start = 0;
  size_t last_space = std::string_view::npos;  // the latest space on this line: where it can break
  for (size_t i = 0; i <= out.size(); ++i) {
    const bool at_end = i == out.size();
    if (!at_end && out[i] != ' ') continue;
    // [line_start, i) is the line so far, up to this space (or the end).
    if (width_of(std::string_view(out).substr(line_start, i - line_start)) > line_width &&
        last_space != std::string_view::npos) {
      out[last_space] = '\n';
      line_start = last_space + 1;
      last_space = std::string_view::npos;
      // The word just measured starts the new line; it may itself be too long, which is fine.
    }
    if (!at_end) last_space = i;
  }
  return out;
}

std::string soft_unwrap(std::string_view shown) {
  std::string out(shown);
  for (char& c : out)
    if (c == '\n') c = ' ';
  return out;
}

bool soft_wrappable(std::string_view text) { return text.find_first_of("\r\n") == std::string_view::npos; }

}  // namespace attnviz
