// The Architecture view: the diagram of arch_diagram.h, scaled to the view, each box that has
// numbers behind it opening the step (or view) that shows them; hovering says which.
#include <algorithm>

#include <imgui.h>

#include "render/text_raster.h"
#include "shell/panels.h"
#include "shell/shell.h"
#include "shell/view_registry.h"
#include "views/arch/arch_diagram.h"
#include "widgets/figure_paint.h"

namespace attnviz {

void arch_view_draw(AppState& app, GuiResources& gui) {
  (void)gui;
  if (!view_window_begin(app, View::arch)) return;  // drawn from the config: no trace needed
  const Lang L = app.lang;
  ImGui::TextDisabled("%s", tr(L, Str::arch_hint));
  const ArchDiagram d = arch_diagram(app, nullptr);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // As large as fits the height (the diagram is tall), never smaller than would be unreadable.
  const float scale = std::max(0.6f, std::min(avail.x / d.figure.width, avail.y / d.figure.height));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  figure_paint(dl, d.figure, origin, scale);
  ImGui::InvisibleButton("diagram", ImVec2(d.figure.width * scale, d.figure.height * scale));
  if (!ImGui::IsItemHovered()) {
    ImGui::End();
    return;
  }
  const ImVec2 m = ImGui::GetIO().MousePos;
  for (const ArchTarget& t : d.targets) {
    const ImVec2 a(origin.x + t.x * scale, origin.y + t.y * scale), b(a.x + t.w * scale, a.y + t.h * scale);
    if (m.x < a.x || m.x > b.x || m.y < a.y || m.y > b.y) continue;
    dl->AddRect(a, b, IM_COL32(255, 160, 30, 255), 0, 0, std::max(2.0f, 3.0f * scale));
    const std::string where = t.view == View::steps ? tr_format(L, Str::arch_opens_step, t.step + 1)
                                                    : tr_format(L, Str::arch_opens_view, tr(L, view_entry(t.view).title));
    ImGui::SetTooltip("%s", where.c_str());
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      app.view = t.view;
      if (t.view == View::steps) app.steps.step = t.step;
      if (t.head >= 0) app.head = t.head;
    }
    break;
  }
  ImGui::End();
}

}  // namespace attnviz
