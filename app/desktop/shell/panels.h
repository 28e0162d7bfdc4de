// One function per panel, one file per panel (panel_<name>.cpp). Panels read AppState and the
// Trace, and edit only the "what the user asked for / is looking at" fields, setting app.dirty
// when the engine must rerun. The left column holds Sentence and Model & masks; the right-hand
// area shows one view at a time (app.view), each in its own window at the same place.
#pragma once
#include <imgui.h>

#include "state/app_state.h"

namespace attnviz {

// The shell places every window each frame, so none moves, resizes or collapses. Views share the
// right-hand area below the view tabs, which already name them: no title bar.
inline constexpr ImGuiWindowFlags kPanelWindowFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings;
inline constexpr ImGuiWindowFlags kViewWindowFlags = kPanelWindowFlags | ImGuiWindowFlags_NoTitleBar;

// Opens a view's window. When there is nothing to show yet (no trace: "computing…" or the error)
// it says so, closes the window and returns false; otherwise the caller draws and calls End().
bool view_begin(AppState& app, const char* title);

void panel_sentence(AppState& app);
void panel_model(AppState& app);

void panel_heads(AppState& app);       // View::heads
void panel_model_view(AppState& app);  // View::model: every layer x head as thumbnails
void panel_lines(AppState& app);       // View::lines: bertviz-style head view
void panel_compare(AppState& app);     // View::compare
void panel_steps(AppState& app);       // View::steps: the lecture, one step per click
void panel_stats(AppState& app);       // View::stats: per-head statistics, sortable, and head detectors
void panel_coref(AppState& app);       // View::coref: where "it" looks, per head; the minimal pair
void panel_train(AppState& app);       // View::train: train a demo live, curves, 1 head vs N heads

}  // namespace attnviz
