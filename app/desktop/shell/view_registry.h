// The view registry: one entry per view of ATTNVIZ_VIEWS (state/views.h) — its title, its stable
// window label and its draw function. The shell draws tabs, the View menu and the chosen view from
// this table only.
#pragma once
#include <span>
#include <string>

#include "shell/strings.h"
#include "state/app_state.h"
#include "widgets/gui_resources.h"

namespace attnviz {

using ViewDraw = void (*)(AppState& app, GuiResources& gui);

struct ViewEntry {
  View view;
  const char* id;  // "heads", as sessions and scripts spell it
  Str title;       // Str::view_heads
  ViewDraw draw;
};

std::span<const ViewEntry> view_registry();
const ViewEntry& view_entry(View v);

// "Title###view_ID": ImGui keys the window by what follows ###, so it keeps its state (scroll,
// tab selection) when the language changes the title.
std::string view_window_label(const AppState& app, View v);

// Every view's draw function, named NAME_view_draw after its ATTNVIZ_VIEWS line.
#define ATTNVIZ_VIEW_DRAW_DECL(name) void name##_view_draw(AppState& app, GuiResources& gui);
ATTNVIZ_VIEWS(ATTNVIZ_VIEW_DRAW_DECL)
#undef ATTNVIZ_VIEW_DRAW_DECL

}  // namespace attnviz
