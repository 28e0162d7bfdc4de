// Greedy word wrap at spaces, measuring each candidate line once.
#include "state/soft_wrap.h"

#include <vector>

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

std::string fit_with_ellipsis(std::string_view text, float width, const std::function<float(std::string_view)>& width_of) {
  if (width_of(text) <= width) return std::string(text);
  const std::string_view ellipsis = "\u2026";
  // Where characters start (a UTF-8 continuation byte, 10xxxxxx, never does); the longest beginning
  // that fits with the ellipsis is found by bisection over them, as widths only grow with length.
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  const auto fits = [&](size_t k) { return width_of(std::string(text.substr(0, starts[k])) + std::string(ellipsis)) <= width; };
  if (starts.empty() || !fits(0)) return "";
  size_t lo = 0, hi = starts.size() - 1;  // fits(lo); the whole text did not fit, so neither does more
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return std::string(text.substr(0, starts[lo])) + std::string(ellipsis);
}

}  // namespace attnviz
