// TEMPORARY scaffold so the app links while panel_steps is being written; replaced by the real panel.
#include "app/panels.h"
namespace attnviz {
void panel_steps(AppState& app) {
  if (ImGui::Begin("steps", nullptr, kViewWindowFlags)) ImGui::TextUnformatted("(being written)");
  ImGui::End();
  (void)app;
}
}  // namespace attnviz
