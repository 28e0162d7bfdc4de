// TEMPORARY scaffold so the app links while panel_stats is being written; replaced by the real panel.
#include "app/panels.h"
namespace attnviz {
void panel_stats(AppState& app) {
  if (ImGui::Begin("stats", nullptr, kViewWindowFlags)) ImGui::TextUnformatted("(being written)");
  ImGui::End();
  (void)app;
}
}  // namespace attnviz
