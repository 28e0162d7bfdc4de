// The flow of information into one token (state/flow_state.h): a graph of tokens × layers whose
// edges are the heads' value-norm shares, with a threshold slider; a click on an edge opens its head.
// Drawn by the Statistics view.
#pragma once
#include "state/app_state.h"

namespace attnviz {

void flow_panel(AppState& app);

}  // namespace attnviz
