// The flow of information into the lens's position (core/analysis/flow_graph.h) for the shown trace:
// the threshold the panel's slider sets and the graph, rebuilt when the trace, the position or the
// threshold changes. Headless; widgets/flow_panel draws it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/flow_graph.h"

namespace attnviz {

struct AppState;

struct FlowState {
  float threshold = 0.1f;
  FlowWeight weight = FlowWeight::value_norm;  // what the panel's choice weighs the edges by
  // Cache key.
  bool cached = false;
  uint64_t version = 0;
  int target = -1;
  float built_threshold = 0;
  FlowWeight built_weight = FlowWeight::value_norm;
  std::optional<FlowGraph> graph;
  std::string error;
};

void flow_refresh(AppState& app);

}  // namespace attnviz
