// Quick key taps on slow frames, without a window. Dear ImGui 1.86 reads each key's state once a
// frame (the input queue came in 1.87): a key pressed and released between two frames — Backspace
// tapped while a large model's frame is drawn, or typed by xdotool in the tests — was never seen.
// So the release of a key pressed since the last frame began is held back until that frame has
// begun (the press is seen) and then ended: it is delivered between frames, never inside one.
// Inside one it would change io.KeyCtrl after NewFrame computed io.KeyMods from it, and ImGui's
// text box asserts on the mismatch ("Mismatching io.KeyCtrl/... vs io.KeyMods": Ctrl+A tapped by
// xdotool during a slow frame aborted the app in CI).
#pragma once

#include <vector>

namespace attnviz {

struct KeyEvent {
  int key = 0, scancode = 0, action = 0, mods = 0;  // as GLFW gives them
};

class KeyTapQueue {
 public:
  // The actions' values (GLFW_PRESS and GLFW_RELEASE; the state layer does not include GLFW).
  KeyTapQueue(int press_action, int release_action) : press_(press_action), release_(release_action) {}
  // A key event from the window system: true if it goes to ImGui now, false if it is held back.
  bool arrived(const KeyEvent& event);
  // Right after ImGui::NewFrame(): the presses so far have been seen.
  void frame_begun();
  // After ImGui::Render(): the releases to deliver now, between frames, in the order they came.
  std::vector<KeyEvent> frame_ended();

 private:
  int press_, release_;
  std::vector<int> pressed_since_frame_;  // keys pressed since the last frame began
  std::vector<KeyEvent> held_;            // releases of those keys
  std::vector<KeyEvent> due_;             // releases whose press a begun frame has seen
};

}  // namespace attnviz
