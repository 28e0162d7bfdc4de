// The desktop app: one GLFW window, Dear ImGui 1.86 with its GLFW + OpenGL3 backends, and the
// frame loop. main() owns the single AppState. With --screenshot it renders until the first
// trace is shown plus N frames, saves the framebuffer as PNG and exits (used by the GUI tests).
#include <cstdio>
#include <string>
#include <vector>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "core/memory_tuning.h"
#include "app/app_options.h"
#include "app/app_state.h"
#include "app/fonts.h"
#include "app/panels.h"
#include "core/image.h"

namespace attnviz {
namespace {

Status save_framebuffer(const std::string& path, int width, int height) {
  Image img(width, height, Rgba{});
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  std::vector<uint8_t> raw(static_cast<size_t>(width) * height * 4);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, raw.data());
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y)  // GL's origin is bottom-left; PNG's is top-left
    std::copy_n(raw.data() + row * static_cast<size_t>(height - 1 - y), row, img.rgba.data() + row * static_cast<size_t>(y));
  return png_write(path, img);
}

void draw_frame(AppState& app, int width, int height) {
  const float left = 380.0f, top_h = 290.0f;
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(left, top_h), ImGuiCond_FirstUseEver);
  panel_sentence(app);
  ImGui::SetNextWindowPos(ImVec2(0, top_h), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(left, static_cast<float>(height) - top_h), ImGuiCond_FirstUseEver);
  panel_model(app);
  ImGui::SetNextWindowPos(ImVec2(left, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(static_cast<float>(width) - left, static_cast<float>(height)), ImGuiCond_FirstUseEver);
  panel_heads(app);
}

int run(const AppOptions& opt) {
  if (!glfwInit()) {
    std::fprintf(stderr, "attnviz: cannot open a window (no display? try xvfb-run)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "attnviz", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "attnviz: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(opt.screenshot.empty() ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is computed, not remembered between runs
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 4.0f;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  {
    AppState app;  // scoped so its GL textures are released before the context goes away
    app.lang = opt.lang;
    if (!opt.text.empty()) app.sentence = opt.text;
    ImVector<ImWchar> glyph_ranges;
    if (std::string e = fonts_load(17.0f, glyph_ranges); !e.empty()) std::fprintf(stderr, "attnviz: %s\n", e.c_str());
    auto presets = presets_load(ATTNVIZ_ASSETS_DIR "/presets.json");
    if (presets) app.presets = std::move(*presets);
    else app.presets_error = presets.error();

    // Under Xvfb the pointer rests mid-screen and would raise a tooltip in every screenshot.
    if (!opt.screenshot.empty()) glfwSetCursorPos(window, opt.width - 2, opt.height - 2);
    int frames_after_result = 0;
    int exit_code = 0;
    while (!glfwWindowShouldClose(window)) {
      if (app_computing(app) || !opt.screenshot.empty()) glfwPollEvents();
      else glfwWaitEventsTimeout(0.1);
      app_update(app);
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      int width = 0, height = 0;
      glfwGetFramebufferSize(window, &width, &height);
      draw_frame(app, width, height);
      ImGui::Render();
      glViewport(0, 0, width, height);
      glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      if (!opt.screenshot.empty() && app.trace && !app_computing(app) && ++frames_after_result >= opt.frames) {
        if (Status s = save_framebuffer(opt.screenshot, width, height); !s) {
          std::fprintf(stderr, "attnviz: %s\n", s.error().c_str());
          exit_code = 1;
        }
        break;
      }
      glfwSwapBuffers(window);
    }
    app.textures.release();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exit_code;
  }
}

}  // namespace
}  // namespace attnviz

int main(int argc, char** argv) {
  attnviz::memory_keep_freed_blocks();
  auto opt = attnviz::app_options_parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!opt) {
    std::fprintf(stderr, "attnviz: %s\n%s", opt.error().c_str(), attnviz::app_usage());
    return 2;
  }
  if (opt->help) {
    std::printf("%s", attnviz::app_usage());
    return 0;
  }
  return attnviz::run(*opt);
}
