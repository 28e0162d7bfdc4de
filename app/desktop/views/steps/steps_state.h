// What the Step by step view remembers between frames: the current step, and the shown head's raw
// and scaled scores when the trace did not keep them (long inputs), computed once per head.
// Headless: lives in AppState.
#pragma once
#include <cstdint>

#include "model/attention.h"

namespace attnviz {

struct StepsScoresCache {
  uint64_t version = 0;  // the trace_version the scores belong to
  int layer = -1, head = -1;
  HeadScores scores;
};

struct StepsState {
  int step = 0;  // index of the current step (lecture_step_clamp keeps it in range)
  bool notation = false;  // the notation table (the seeds' symbols) shown above the step
  // The score maps of steps 4-6 on one colour scale, the raw scores' (÷√d_k then visibly shrinks
  // them); off: each map on its own largest value.
  bool shared_scale = false;
  StepsScoresCache scores;

  void reset() { *this = StepsState{}; }
};

}  // namespace attnviz
