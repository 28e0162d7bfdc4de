// Lets background work wake the UI loop at once. Between frames the loop sleeps (while the engine
// computes it draws only a few progress frames a second), so a finished forward pass, model load or
// importance grid calls ui_wake() to have its result drawn in the next frame, not at the next tick.
// The shell installs the window system's wake-up call; without one, ui_wake() does nothing.
#pragma once
#include "base/no_copy.h"

namespace attnviz {

// `wake` must be callable from any thread (GLFW's glfwPostEmptyEvent is); nullptr uninstalls. Once
// uninstall returns, no call of the old function is running or will start.
void ui_wake_install(void (*wake)());
void ui_wake();

// Installs `wake` for its lifetime, and uninstalls it however the scope ends.
class UiWakeInstalled : NoCopy {
 public:
  explicit UiWakeInstalled(void (*wake)()) { ui_wake_install(wake); }
  ~UiWakeInstalled() { ui_wake_install(nullptr); }
};

}  // namespace attnviz
