// The window of File → Open local model…: the GGUF models on this computer in a table (name, who
// keeps it, size), where the scan looked, and the files it could not list. Its state and actions are
// state/local_models_state.h.
#pragma once
#include "state/app_state.h"

namespace attnviz {

void local_models_window(AppState& app);

}  // namespace attnviz
