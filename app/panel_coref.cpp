// Placeholder until the coref view lands (being written now); never committed.
#include "app/panels.h"
namespace attnviz {
void panel_coref(AppState& app) {
  if (!view_begin(app, "coref")) return;
  ImGui::End();
}
}  // namespace attnviz
