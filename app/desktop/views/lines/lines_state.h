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

}  // namespace attnviz
