// TEMPORARY scaffold so the app links while panel_lines is being written; replaced by the real panel.
#include "app/panels.h"
namespace attnviz {
void panel_lines(AppState& app) {
  if (ImGui::Begin("lines", nullptr, kViewWindowFlags)) ImGui::TextUnformatted("(being written)");
  ImGui::End();
  (void)app;
}
}  // namespace attnviz
