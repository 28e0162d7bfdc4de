#include "widgets/local_models_window.h"

#include <imgui.h>

#include "base/memory_available.h"
#include "shell/strings.h"

namespace attnviz {

namespace {

Str store_label(LocalModelStore s) {
  switch (s) {
    case LocalModelStore::ollama: return Str::store_ollama;
    case LocalModelStore::lm_studio: return Str::store_lm_studio;
    case LocalModelStore::llama_cpp_cache: return Str::store_llama_cpp;
  }
  return Str::store_ollama;
}

void looked_in(const LocalModelPlaces& places) {
  for (const auto* list : {&places.ollama, &places.lm_studio, &places.llama_cpp_cache})
    for (const std::string& dir : *list) ImGui::BulletText("%s", dir.c_str());
}

}  // namespace

void local_models_window(AppState& app) {
  LocalModelsWindow& w = app.local_models;
  if (!w.shown) return;
  const Lang L = app.lang;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(vp->Size.x * 0.9f, ImGui::GetFontSize() * 52), std::min(vp->Size.y * 0.8f, ImGui::GetFontSize() * 28)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowBgAlpha(1.0f);  // the heads behind it would show through the list
  const std::string title = std::string(tr(L, Str::local_models_title)) + "###local_models";
  if (!ImGui::Begin(title.c_str(), &w.shown, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::End();
    return;
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", tr(L, Str::local_models_intro));
  ImGui::PopTextWrapPos();
  const bool loading = app.model_loader.busy();
  int open = -1;
  if (w.scan.models.empty()) {
    ImGui::TextUnformatted(tr(L, Str::local_models_none));
    looked_in(w.places);
  } else {
    const float footer = ImGui::GetFrameHeightWithSpacing() * 2.5f;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##models", 3, flags, ImVec2(0, -footer))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn(tr(L, Str::local_models_name), ImGuiTableColumnFlags_WidthStretch, 5.0f);
      ImGui::TableSetupColumn(tr(L, Str::local_models_store), ImGuiTableColumnFlags_WidthStretch, 1.5f);
      ImGui::TableSetupColumn(tr(L, Str::local_models_size), ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableHeadersRow();
      for (size_t i = 0; i < w.scan.models.size(); ++i) {
        const LocalModel& m = w.scan.models[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::Selectable(m.name.c_str(), w.selected == static_cast<int>(i),
                              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
          w.selected = static_cast<int>(i);
          if (ImGui::IsMouseDoubleClicked(0)) open = static_cast<int>(i);
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", m.path.c_str());
        ImGui::PopID();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(tr(L, store_label(m.store)));
        ImGui::TableNextColumn();
        std::string size = memory_size_text(static_cast<int64_t>(m.bytes));
        if (m.parts > 1) size += " · " + tr_format(L, Str::local_models_parts, m.parts);
        ImGui::TextUnformatted(size.c_str());
      }
      ImGui::EndTable();
    }
  }
  if (!w.scan.problems.empty()) {
    const std::string head = tr_format(L, Str::local_models_problems, static_cast<int>(w.scan.problems.size()));
    if (ImGui::TreeNode(head.c_str())) {
      for (const std::string& p : w.scan.problems) ImGui::BulletText("%s", p.c_str());
      ImGui::TreePop();
    }
  }
  const bool can_open = w.selected >= 0 && w.selected < static_cast<int>(w.scan.models.size()) && !loading;
  if (!can_open) ImGui::BeginDisabled();
  if (ImGui::Button(tr(L, Str::src_load))) open = w.selected;
  if (!can_open) ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::local_models_rescan))) local_models_rescan(w);
  ImGui::SameLine();
  if (ImGui::Button(tr(L, Str::cancel))) w.shown = false;
  if (open >= 0 && !loading) local_models_open(app, static_cast<size_t>(open));
  ImGui::End();
}

}  // namespace attnviz
