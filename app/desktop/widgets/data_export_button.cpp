#include "widgets/data_export_button.h"

#include <array>
#include <string>

#include <imgui.h>

#include <imgui_stdlib.h>

#include "state/file_actions.h"

namespace attnviz {

namespace {

// Each panel's path field keeps what was typed while the app runs.
std::string& path_of(DataPanel panel) {
  static std::array<std::string, std::size(kDataPanels)> paths;
  std::string& p = paths[static_cast<size_t>(panel)];
  if (p.empty()) p = data_panel_file_name(panel);
  return p;
}

}  // namespace

void data_export_button(AppState& app, DataPanel panel) {
  const Lang L = app.lang;
  const std::string id(data_panel_id(panel));
  ImGui::PushID(id.c_str());
  if (ImGui::SmallButton(tr(L, Str::data_export))) ImGui::OpenPopup("data_export");
  if (ImGui::BeginPopup("data_export")) {
    ImGui::TextUnformatted(tr(L, Str::data_export_hint));
    std::string& path = path_of(panel);
    ImGui::SetNextItemWidth(320.0f * ImGui::GetFontSize() / 16.0f);
    const bool entered = ImGui::InputText("##path", &path, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button(tr(L, Str::data_export_save)) || entered) {
      app_report(app, app_export_panel(app, panel, path), std::string(tr(L, Str::saved)) + " " + path);
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
  ImGui::PopID();
}

}  // namespace attnviz
