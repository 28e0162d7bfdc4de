// The flow of information into the lens's position (core/analysis/flow_graph.h) for the shown trace:
// the threshold and the weighing the panel sets, and the graph, computed off the UI thread when the
// trace, the position, the threshold or the weighing changes (every head's value norms: seconds for
// a large model). Headless; widgets/flow_panel draws it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/flow_graph.h"
#include "state/keyed_job.h"

namespace attnviz {

struct AppState;

struct FlowKey {
  uint64_t version = 0;  // the trace's
  int target = -1;
  float threshold = 0;
  FlowWeight weight = FlowWeight::value_norm;
  friend bool operator==(const FlowKey&, const FlowKey&) = default;
};

struct FlowShown {
  std::optional<FlowGraph> graph;
  std::string error;  // why there is none (English, from core)
};

struct FlowState {
  float threshold = 0.1f;
  FlowWeight weight = FlowWeight::value_norm;  // what the panel's choice weighs the edges by
  KeyedJob<FlowKey, FlowShown> job;
};

// Starts computing the graph the panel asks for when it is not shown yet (once a frame).
void flow_refresh(AppState& app);
// The graph for the current trace, position, threshold and weighing; null while it is computed.
const FlowShown* flow_current(const AppState& app);
// The same, computed now if it must be (exports, scripts): null only without a trace.
const FlowShown* flow_wait(AppState& app);

}  // namespace attnviz
