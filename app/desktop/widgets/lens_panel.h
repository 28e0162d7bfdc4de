// The logit lens at one position and the direct logit attribution grid (state/lens_state.h), with a
// head's promoted and suppressed tokens on a click. Drawn by the Statistics view for models with an
// output head onto a vocabulary.
#pragma once
#include "state/app_state.h"

namespace attnviz {

void lens_panel(AppState& app);

}  // namespace attnviz
