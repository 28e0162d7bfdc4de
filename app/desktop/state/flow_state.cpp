#include "state/flow_state.h"

#include "state/app_state.h"

namespace attnviz {

namespace {

FlowKey key_now(const AppState& app) { return FlowKey{app.trace_version, lens_position(app), app.flow.threshold, app.flow.weight}; }

std::function<FlowShown()> flow_compute(const AppState& app) {
  return [model = app.trace_model, trace = app.trace, key = key_now(app)] {
    FlowShown shown;
    if (!model || !trace || key.target < 0) return shown;
    auto g = flow_graph(*model, *trace, key.target, key.threshold, key.weight);
    if (g) shown.graph = std::move(*g);
    else shown.error = g.error();
    return shown;
  };
}

}  // namespace

void flow_refresh(AppState& app) {
  if (!app.trace) return;
  app.flow.job.refresh(key_now(app), flow_compute(app));
}

const FlowShown* flow_current(const AppState& app) { return app.trace ? app.flow.job.current(key_now(app)) : nullptr; }

const FlowShown* flow_wait(AppState& app) {
  if (!app.trace) return nullptr;
  return &app.flow.job.wait(key_now(app), flow_compute(app));
}

}  // namespace attnviz
