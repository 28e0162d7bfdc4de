// What is still in flight, by name: the compute worker, a model load, the coreference demo's
// retraining, the importance grid, generation, the Train view's runs and probes, and a view left
// waiting for a result nothing will send (Compare's B, no trace at all). Scripts wait on it
// (`expect idle`) and name what never settled. Headless; reads the state, changes nothing.
#pragma once
#include <string>
#include <vector>

#include "state/app_state.h"

namespace attnviz {

// Empty when the app is idle: nothing computing or training, and no view shows "computing…".
std::vector<std::string> app_busy(const AppState& app);

// The names joined by ", " ("idle" when there are none), for messages.
std::string app_busy_text(const AppState& app);

}  // namespace attnviz
