// The Lines view's colour for each head, shared by the window and the exported figure: a
// qualitative palette of twelve, then hues spread by the golden angle. Headless.
#pragma once
#include "render/image.h"

namespace attnviz {

Rgba lines_head_color(int head);

// The rollout's lines: one colour for the layer's one map (every head mixed in), none of the heads'.
Rgba lines_rollout_color();

}  // namespace attnviz
