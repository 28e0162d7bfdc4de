// Shared pieces of the view panels.
#include "shell/panels.h"

namespace attnviz {

bool view_begin(AppState& app, const char* title) {
  if (!ImGui::Begin(title, nullptr, kViewWindowFlags)) {
    ImGui::End();
    return false;
  }
  if (!app.trace) {
    ImGui::TextDisabled("%s", app.error.empty() ? tr(app.lang, Str::computing) : app.error.c_str());
    ImGui::End();
    return false;
  }
  return true;
}

}  // namespace attnviz
