// Quick key taps on slow frames: the window's side of state/key_tap_queue.h (which says why).
#pragma once

struct GLFWwindow;

namespace attnviz {

// After ImGui_ImplGlfw_InitForOpenGL(window, true): wraps its key callback.
void key_taps_install(GLFWwindow* window);
// Right after ImGui::NewFrame(): the keys pressed so far have been seen.
void key_taps_frame_begun();
// After ImGui::Render(): delivers the releases held back for the frame, between frames.
void key_taps_frame_ended(GLFWwindow* window);

}  // namespace attnviz
