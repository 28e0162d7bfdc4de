// TEMPORARY scaffold so the app links while panel_model_view is being written; replaced by the real panel.
#include "app/panels.h"
namespace attnviz {
void panel_model_view(AppState& app) {
  if (ImGui::Begin("model_view", nullptr, kViewWindowFlags)) ImGui::TextUnformatted("(being written)");
  ImGui::End();
  (void)app;
}
}  // namespace attnviz
