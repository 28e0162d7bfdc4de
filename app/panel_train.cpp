// Placeholder until the train view lands (being written now); never committed.
#include "app/panels.h"
namespace attnviz {
void panel_train(AppState& app) {
  if (!view_begin(app, "train")) return;
  ImGui::End();
}
}  // namespace attnviz
