// "Which heads matter": a button that measures, off the UI thread, how much the model's own answer
// loses when each head alone is switched off, and the layer × head grid of those drops (a click on
// a cell switches that head off or on). Shared by the Statistics and Coreference views.
#pragma once
#include "state/app_state.h"

namespace attnviz {

void importance_panel(AppState& app);

}  // namespace attnviz
