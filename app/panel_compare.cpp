// TEMPORARY scaffold so the app links while panel_compare is being written; replaced by the real panel.
#include "app/panels.h"
namespace attnviz {
void panel_compare(AppState& app) {
  if (ImGui::Begin("compare", nullptr, kViewWindowFlags)) ImGui::TextUnformatted("(being written)");
  ImGui::End();
  (void)app;
}
}  // namespace attnviz
