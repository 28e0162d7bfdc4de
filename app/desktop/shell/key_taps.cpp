#include "shell/key_taps.h"

#include <GLFW/glfw3.h>

#include "state/key_tap_queue.h"

namespace attnviz {

namespace {

GLFWkeyfun imgui_key_callback = nullptr;
KeyTapQueue taps(GLFW_PRESS, GLFW_RELEASE);

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  if (taps.arrived({key, scancode, action, mods}) && imgui_key_callback) imgui_key_callback(window, key, scancode, action, mods);
}

}  // namespace

void key_taps_install(GLFWwindow* window) { imgui_key_callback = glfwSetKeyCallback(window, on_key); }

void key_taps_frame_begun() { taps.frame_begun(); }

void key_taps_frame_ended(GLFWwindow* window) {
  for (const KeyEvent& e : taps.frame_ended())
    if (imgui_key_callback) imgui_key_callback(window, e.key, e.scancode, e.action, e.mods);
}

}  // namespace attnviz
