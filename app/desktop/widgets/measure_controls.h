// The controls the Heads, Model view and Lines share: the measure a map shows (with the tooltip
// that defines each one, in both languages), and the answer / switched-off heads line.
#pragma once
#include "state/app_state.h"

namespace attnviz {

// A combo of the three measures, with their definitions as tooltips.
void measure_combo(AppState& app);
// The combo's width with its label, for a toolbar that wraps (same_line_or_wrap).
float measure_combo_width(const AppState& app);
// The colour scale (linear, log, square root) and "set the first token aside", each after
// same_line_or_wrap, with tooltips that say what they do to the map.
void map_scale_controls(AppState& app);

// Why the chosen measure cannot be drawn (rollout of cross-attention), wrapped on a line of its
// own; nothing when it can. Toolbars call it last.
void measure_error(const AppState& app);

// "Answer: it → animal (p = 1.000) · heads off (zero): L2 H4 — with every head on: it → street …",
// one line at the cursor; a click on "Switch all heads on" clears the set.
void answer_line(AppState& app);

// zeros / its mean output: what a switched-off head passes on (recomputes on change).
void ablation_mode_combo(AppState& app);

}  // namespace attnviz
