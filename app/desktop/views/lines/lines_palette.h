// The Lines view's colour for each head, shared by the window and the exported figure: a
// qualitative palette of twelve, then hues spread by the golden angle. Headless.
#pragma once
#include "render/image.h"

namespace attnviz {

Rgba lines_head_color(int head);

}  // namespace attnviz
