// The Statistics view's head-detector section: one layer x head grid per detector (previous-token,
// first token, duplicate-token, induction, coreference), coloured by score, with definitions and
// exact values on hover. Reads the reports cached in app.stats.cache; computes nothing per frame.
#pragma once
#include "state/app_state.h"

namespace attnviz {

// Draws the section at the cursor: a title with the colour legend, a hint, and the grids laid out
// as large as fits in max_height (cells shrink to a minimum first; beyond that the grids scroll).
// A click on a cell chooses that head; a double-click opens it zoomed in the Heads view.
void stats_detectors_section(AppState& app, const Trace& t, float max_height);

}  // namespace attnviz
