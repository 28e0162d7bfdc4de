// Opening view windows under the registry's stable labels.
#include "shell/panels.h"

#include "shell/view_registry.h"

namespace attnviz {

bool view_window_begin(AppState& app, View v) {
  if (!ImGui::Begin(view_window_label(app, v).c_str(), nullptr, kViewWindowFlags)) {
    ImGui::End();
    return false;
  }
  return true;
}

bool view_begin(AppState& app, View v) {
  if (!view_window_begin(app, v)) return false;
  if (!app.trace) {
    ImGui::TextDisabled("%s", app.error.empty() ? tr(app.lang, Str::computing) : app.error.c_str());
    ImGui::End();
    return false;
  }
  return true;
}

}  // namespace attnviz
