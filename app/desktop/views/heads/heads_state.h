// What the Heads view remembers between frames: which head is zoomed and, for a long input, the
// window of that head on screen. Headless: lives in AppState, saved by no session.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/qk_projection.h"

namespace attnviz {

struct HeadsViewport {  // a zoomed head of a long input: the part of the map shown
  float zoom = 1;         // 1: the whole map; n: 1/n of its rows and columns
  float row0 = 0, col0 = 0;  // top-left cell of the window (fractional while dragging)
};

// The zoomed head's query/key projection (an eigen-decomposition over its queries and keys), kept
// until the trace, the layer or the head changes rather than made again each frame.
struct QKCache {
  const Trace* trace = nullptr;
  uint64_t version = 0;  // AppState::trace_version when it was made
  int layer = -1, head = -1;
  std::optional<Result<QKProjection>> projection;

  const Result<QKProjection>& get(const Trace& t, uint64_t trace_version, int l, int h) {
    if (!projection || trace != &t || version != trace_version || layer != l || head != h) {
      projection.emplace(qk_projection(t.head(l, h)));
      trace = &t;
      version = trace_version;
      layer = l;
      head = h;
    }
    return *projection;
  }
};

struct HeadsState {
  int zoom_head = -1;  // >= 0: that head at full size
  HeadsViewport viewport;
  QKCache qk;

  void reset() { *this = HeadsState{}; }
};

// The heads the Heads view and its figure draw: the rollout's one map when the map is per layer
// (index 0: every head's index reaches it), else the zoomed head, else every head.
inline std::vector<int> heads_drawn(const HeadsState& s, bool map_per_layer, int n_heads) {
  if (map_per_layer) return {0};
  if (s.zoom_head >= 0 && s.zoom_head < n_heads) return {s.zoom_head};
  std::vector<int> all;
  for (int h = 0; h < n_heads; ++h) all.push_back(h);
  return all;
}

}  // namespace attnviz
