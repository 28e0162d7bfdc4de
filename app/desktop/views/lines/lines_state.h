// What the Lines view remembers between frames: which heads are switched off in its legend.
// Headless: lives in AppState.
#pragma once
#include <cstdint>
#include <vector>

namespace attnviz {

struct LinesState {
  std::vector<uint8_t> hidden;  // 1 = head switched off (size NH, resized when a trace arrives)

  void reset() { *this = LinesState{}; }
};

// Whether head h is shown in the legend (a head past `hidden`, from a larger model, is).
inline bool lines_head_shown(const LinesState& s, int h) {
  return h >= static_cast<int>(s.hidden.size()) || s.hidden[static_cast<size_t>(h)] == 0;
}

}  // namespace attnviz
