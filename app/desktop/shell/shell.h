// The frame around the panels: menu bar, view tabs, window layout, status bar, file dialogs and
// keyboard shortcuts. Owns no state of its own beyond what AppState and ShellState hold.
#pragma once
#include <string>

#include "state/app_state.h"
#include "widgets/gui_resources.h"

namespace attnviz {

// Presentation mode scales fonts, spacing and panel sizes by this much.
inline constexpr float kPresentationScale = 1.6f;

// UI-only state of the shell (which dialog is open and its text field).
struct ShellState {
  enum class Dialog { none, open_session, save_session, open_attention, open_attention_b, export_png, export_view_png, export_view_svg, export_csv,
                      export_json, export_slides };
  Dialog dialog = Dialog::none;
  bool dialog_just_opened = false;
  std::string path;
  float png_scale = 2.0f;
  bool quit = false;
  bool toggle_fullscreen = false;  // F11: main() owns the window
};

// Draws one frame of the whole window: the sidebar, the tabs, the chosen view (from the view
// registry), the status bar and any open dialog. The File menu's actions are state/file_actions.h.
void shell_draw(AppState& app, ShellState& shell, GuiResources& gui, float width, float height);

}  // namespace attnviz
