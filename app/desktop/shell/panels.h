// What every panel and view window shares: the window flags (the shell places every window each
// frame, so none moves, resizes or collapses), opening a view's window under its stable label, and
// the two sidebar panels (sidebar/). Panels read AppState and the Trace, and edit only the "what
// the user asked for / is looking at" fields, setting app.dirty when the engine must rerun.
#pragma once
#include <imgui.h>

#include "state/app_state.h"

namespace attnviz {

inline constexpr ImGuiWindowFlags kPanelWindowFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings;
// Views share the right-hand area below the view tabs, which already name them: no title bar.
inline constexpr ImGuiWindowFlags kViewWindowFlags = kPanelWindowFlags | ImGuiWindowFlags_NoTitleBar;

// Opens view v's window. Returns false (window closed) when it is collapsed; the caller draws and
// calls End() otherwise.
bool view_window_begin(AppState& app, View v);

// As view_window_begin for a view that shows the trace: when there is none yet ("computing…" or
// the error) it says so, closes the window and returns false.
bool view_begin(AppState& app, View v);

void panel_sentence(AppState& app);  // sidebar: the sentence(s), presets, tokens
void panel_model(AppState& app);     // sidebar: the model source, architecture and masks

}  // namespace attnviz
