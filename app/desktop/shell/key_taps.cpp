#include "shell/key_taps.h"

#include <algorithm>
#include <vector>

#include <GLFW/glfw3.h>

namespace attnviz {

namespace {

struct Release {
  int key, scancode, mods;
};

GLFWkeyfun imgui_key_callback = nullptr;
std::vector<int> pressed_since_frame;
std::vector<Release> held_back;

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  if (action == GLFW_PRESS) pressed_since_frame.push_back(key);
  if (action == GLFW_RELEASE && std::find(pressed_since_frame.begin(), pressed_since_frame.end(), key) != pressed_since_frame.end()) {
    held_back.push_back({key, scancode, mods});
    return;
  }
  if (imgui_key_callback) imgui_key_callback(window, key, scancode, action, mods);
}

}  // namespace

void key_taps_install(GLFWwindow* window) { imgui_key_callback = glfwSetKeyCallback(window, on_key); }

void key_taps_frame_begun(GLFWwindow* window) {
  pressed_since_frame.clear();
  std::vector<Release> now;
  now.swap(held_back);
  for (const Release& r : now)
    if (imgui_key_callback) imgui_key_callback(window, r.key, r.scancode, GLFW_RELEASE, r.mods);
}

}  // namespace attnviz
