// Quick key taps on slow frames. Dear ImGui 1.86 reads each key's state once a frame (the input
// queue came in 1.87): a key pressed and released between two frames — Backspace tapped while a
// large model's frame is drawn, or typed by xdotool in the tests — was never seen. Here the release
// of a key pressed since the last frame is held back until that frame has begun, so every press
// is seen for at least one frame.
#pragma once

struct GLFWwindow;

namespace attnviz {

// After ImGui_ImplGlfw_InitForOpenGL(window, true): wraps its key callback.
void key_taps_install(GLFWwindow* window);
// Right after ImGui::NewFrame(): delivers the releases held back for it.
void key_taps_frame_begun(GLFWwindow* window);

}  // namespace attnviz
