// Patching A into B (state/patching_state.h): by head or by layer and position, the grid of how much
// of A's answer each patched piece brings back into B's run, the patched answer on hover. Shared by
// the Coreference and Compare views.
#pragma once
#include "state/app_state.h"

namespace attnviz {

void patching_panel(AppState& app);

}  // namespace attnviz
