// The frame around the panels: menu bar, view tabs, window layout, status bar, file dialogs and
// keyboard shortcuts. Owns no state of its own beyond what AppState and ShellState hold.
#pragma once
#include <string>

#include "state/app_state.h"

namespace attnviz {

// Presentation mode scales fonts, spacing and panel sizes by this much.
inline constexpr float kPresentationScale = 1.6f;

// UI-only state of the shell (which dialog is open and its text field).
struct ShellState {
  enum class Dialog { none, open_session, save_session, export_png, export_csv, export_json } dialog = Dialog::none;
  bool dialog_just_opened = false;
  std::string path;
  float png_scale = 2.0f;
  bool quit = false;
  bool toggle_fullscreen = false;  // F11: main() owns the window
};

void shell_draw(AppState& app, ShellState& shell, float width, float height);

// File actions, also used by --script. Each reports into app.status; none changes the view state
// on failure.
Status shell_save_session(AppState& app, const std::string& path);
Status shell_open_session(AppState& app, const std::string& path);
Status shell_export_png(const AppState& app, const std::string& path, float scale);
Status shell_export_csv(const AppState& app, const std::string& path);
Status shell_export_json(const AppState& app, const std::string& path);

}  // namespace attnviz
