// What the Step by step view remembers between frames: the current step, and the shown head's raw
// and scaled scores when the trace did not keep them (long inputs), and its layer's intermediates
// when the trace is lean, computed once per head.
// Headless: lives in AppState.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/layer.h"

namespace attnviz {

struct StepsScoresCache {
  uint64_t version = 0;  // the trace_version the scores belong to
  int layer = -1, head = -1;
  HeadScores scores;
  // A lean trace's layer (model/lean_layers.h) as the lecture shows it: its norm's output, concat,
  // W_O's output and the head's Q and K before the rotation, recomputed once; empty for a kept layer.
  std::optional<LayerTrace> layer_filled;
  std::string layer_error;  // why it could not be recomputed (a layer that failed to decode)
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
