#include "state/flow_state.h"

#include "state/app_state.h"

namespace attnviz {

void flow_refresh(AppState& app) {
  FlowState& s = app.flow;
  const int target = lens_position(app);
  if (s.cached && s.version == app.trace_version && s.target == target && s.built_threshold == s.threshold && s.built_weight == s.weight)
    return;
  s.cached = true;
  s.version = app.trace_version;
  s.target = target;
  s.built_threshold = s.threshold;
  s.built_weight = s.weight;
  s.graph.reset();
  s.error.clear();
  if (!app.trace || !app.trace_model || target < 0) return;
  auto g = flow_graph(*app.trace_model, *app.trace, target, s.threshold, s.weight);
  if (g) s.graph = std::move(*g);
  else s.error = g.error();
}

}  // namespace attnviz
