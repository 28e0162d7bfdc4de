// "Export data…" beside an explanation panel: a small popup with the file's path (.csv or .json)
// that writes the panel's numbers (state/panel_export.h) and reports in the status bar.
#pragma once
#include "state/app_state.h"
#include "state/panel_export.h"

namespace attnviz {

// On the current line (SameLine first to put it beside a title).
void data_export_button(AppState& app, DataPanel panel);

}  // namespace attnviz
