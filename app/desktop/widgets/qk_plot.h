// A zoomed head's queries and keys in one 2-D projection (core/analysis/qk_projection.h), drawn
// beside its heatmap in the Heads view: queries as circles, keys as squares, each labelled with its
// token; the chosen query joined to its three strongest keys.
#pragma once
#include <imgui.h>

#include "model/trace.h"
#include "state/app_state.h"

namespace attnviz {

void qk_plot(AppState& app, const Trace& trace, int layer, int head, ImVec2 size);

}  // namespace attnviz
