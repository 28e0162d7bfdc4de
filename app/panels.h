// One function per panel, one file per panel (panel_<name>.cpp). Panels read AppState and the
// Trace, and edit only the "what the user asked for" fields, setting app.dirty.
#pragma once
#include "app/app_state.h"

namespace attnviz {

void panel_sentence(AppState& app);
void panel_model(AppState& app);
void panel_heads(AppState& app);

}  // namespace attnviz
