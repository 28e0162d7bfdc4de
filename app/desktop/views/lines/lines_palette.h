// What the Lines view draws, shared by the window and the exported figure: which heads, and each
// head's colour (a qualitative palette of twelve, then hues spread by the golden angle). Headless.
#pragma once
#include <vector>

#include "render/image.h"

namespace attnviz {

struct AppState;

Rgba lines_head_color(int head);

// Lines lighter than this are not drawn (invisible anyway, and costly for long texts); without a
// token in focus at most kLinesBudget are drawn, the strongest. The chosen token's box: the accent.
inline constexpr float kLinesMinWeight = 0.01f;
inline constexpr int kLinesBudget = 1500;
inline constexpr Rgba kLinesChosen{255, 160, 30, 255};

// The heads drawn: those the legend shows, or the rollout's one map (index 0: every head's index
// reaches it) when the map is per layer (app_map_per_layer).
std::vector<int> lines_drawn_heads(const AppState& app, int n_heads);
// A drawn head's colour: its own, or one grey for the rollout (every head mixed in).
Rgba lines_color(const AppState& app, int head);
// The lines to the first token when it is set aside (app_first_aside): grey, as the heatmaps draw its column.
inline constexpr Rgba kFirstAsideGrey{150, 150, 150, 255};

}  // namespace attnviz
