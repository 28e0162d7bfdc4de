// What the Heads view remembers between frames: which head is zoomed and, for a long input, the
// window of that head on screen. Headless: lives in AppState, saved by no session.
#pragma once

namespace attnviz {

struct HeadsViewport {  // a zoomed head of a long input: the part of the map shown
  float zoom = 1;         // 1: the whole map; n: 1/n of its rows and columns
  float row0 = 0, col0 = 0;  // top-left cell of the window (fractional while dragging)
};

struct HeadsState {
  int zoom_head = -1;  // >= 0: that head at full size
  HeadsViewport viewport;

  void reset() { *this = HeadsState{}; }
};

}  // namespace attnviz
