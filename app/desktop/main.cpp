// The desktop app: one GLFW window, Dear ImGui 1.86 with its GLFW + OpenGL3 backends, and the
// frame loop. main() owns the single AppState. Headless modes for tests and benchmarks:
// --screenshot (save the framebuffer once the newest result is shown), --script (run actions),
// --bench-frames (print frame-time statistics).
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/memory_available.h"
#include "base/memory_tuning.h"
#include "render/image.h"
#include "shell/fonts.h"
#include "shell/key_taps.h"
#include "shell/shell.h"
#include "state/app_busy.h"
#include "state/app_memory.h"
#include "state/app_state.h"
#include "state/attention_source.h"
#include "state/demo_retrain.h"
#include "state/model_source.h"
#include "state/options.h"
#include "state/recent_models.h"
#include "state/script.h"
#include "state/ui_wake.h"
#include "version.h"

namespace attnviz {
namespace {

Status save_framebuffer(const std::string& path, int width, int height) {
  Image img(width, height, Rgba{});
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  std::vector<uint8_t> raw(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, raw.data());
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y)  // GL's origin is bottom-left; PNG's is top-left
    std::copy_n(raw.data() + row * static_cast<size_t>(height - 1 - y), row, img.rgba.data() + row * static_cast<size_t>(y));
  return png_write(path, img);
}

// --layout-report: where the Heads and Compare views drew each heatmap's cells in the saved frame,
// which rows and columns got their token labels (and at what size), whether the cells carry their
// values, and the size of the font the frame was drawn in.
Status save_layout_report(const std::string& path, const AppState& app, const GuiResources& gui, float font_px) {
  nlohmann::json heads = nlohmann::json::array();
  for (const DrawnHeatmap& d : gui.drawn)
    heads.push_back({{"view", d.view}, {"layer", d.layer}, {"head", d.head}, {"x", d.x}, {"y", d.y}, {"cell", d.cell},
                     {"rows", d.rows}, {"cols", d.cols}, {"rows_labelled", d.rows_labelled},
                     {"cols_labelled", d.cols_labelled}, {"label_px", d.label_px}, {"numbers", d.numbers},
                     {"visible", {d.visible_min.x, d.visible_min.y, d.visible_max.x, d.visible_max.y}}});
  const nlohmann::json report{{"colormap", name_of(app.cmap)}, {"font_px", font_px}, {"heads", heads}};
  return file_write_atomic(path, std::string_view(report.dump(1)));
}

// Frame-time statistics for --bench-frames.
void print_frame_stats(std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, static_cast<size_t>(p * static_cast<double>(ms.size())))]; };
  double sum = 0;
  for (double m : ms) sum += m;
  std::printf("frames %zu  mean %.2f ms  median %.2f ms  p95 %.2f ms  max %.2f ms\n", ms.size(),
              sum / static_cast<double>(ms.size()), pct(0.5), pct(0.95), ms.back());
}

struct Fonts {
  ImVector<ImWchar> ranges;
  ImFont* normal = nullptr;
  ImFont* large = nullptr;  // the presentation-mode size: built the first time presentation mode is on
  float scale = 1.0f;       // the content scale they were built for
  bool with_large = false;  // built with the presentation-mode size (null without a Hangul font)
  bool uploaded = false;    // the atlas is in its GL texture, and its CPU-side pixels are freed
};

// HiDPI: the monitor's content scale (GLFW: Xft.dpi on X11, the display's scale on Wayland), or
// --scale. Fonts and widget sizes follow it.
float content_scale(GLFWwindow* window, const AppOptions& opt) {
  if (opt.scale > 0) return opt.scale;
  float x = 1.0f, y = 1.0f;
  glfwGetWindowContentScale(window, &x, &y);
  return std::clamp(std::max(x, y), 1.0f, 4.0f);
}

// (Re)builds the font atlas at `scale`, with the presentation-mode size when `with_large`; with
// `upload`, the GL texture too (at run time: a scale change, or presentation mode's first use).
// Every Hangul syllable at both sizes made a 4096 x 4096 atlas (4096 x 16384 at content scale 2),
// and its RGBA copy for the upload 64 MB (256 MB): most launches never need the larger size.
void fonts_build(Fonts& fonts, float scale, bool with_large, bool upload) {
  if (upload) ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui::GetIO().Fonts->Clear();
  fonts.ranges.clear();
  fonts.normal = fonts.large = nullptr;
  const float large_px = with_large ? kBaseFontPx * kPresentationScale * scale : 0.0f;
  if (std::string e = fonts_load(kBaseFontPx * scale, large_px, fonts.ranges, fonts.normal, fonts.large); !e.empty())
    std::fprintf(stderr, "attnviz: %s\n", e.c_str());
  fonts.scale = scale;
  fonts.with_large = with_large;
  fonts.uploaded = false;
  if (upload) ImGui_ImplOpenGL3_CreateFontsTexture();
}

// Once the atlas is in its GL texture (the backend uploads it on the first frame after a build), its
// CPU-side pixels, an alpha and an RGBA copy, are only memory: freed.
void fonts_release_pixels(Fonts& fonts) {
  if (fonts.uploaded) return;
  ImGui::GetIO().Fonts->ClearTexData();
  fonts.uploaded = true;
}

void toggle_fullscreen(GLFWwindow* window, int& saved_x, int& saved_y, int& saved_w, int& saved_h) {
  if (glfwGetWindowMonitor(window)) {
    glfwSetWindowMonitor(window, nullptr, saved_x, saved_y, saved_w, saved_h, GLFW_DONT_CARE);
    return;
  }
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  if (!monitor) return;
  glfwGetWindowPos(window, &saved_x, &saved_y);
  glfwGetWindowSize(window, &saved_w, &saved_h);
  const GLFWvidmode* mode = glfwGetVideoMode(monitor);
  glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
}

// Paths dropped on the window, collected by GLFW's callback and opened by the frame loop.
struct Drops {
  std::vector<std::string> paths;
};

void on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* drops = static_cast<Drops*>(glfwGetWindowUserPointer(window));
  if (!drops) return;
  for (int i = 0; i < count; ++i) drops->paths.emplace_back(paths[i]);
}

WindowSize window_size(GLFWwindow* window) {
  WindowSize w;
  glfwGetWindowSize(window, &w.width, &w.height);
  return w;
}

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// --script: the line to run next and what it has waited for.
struct ScriptRun {
  size_t pos = 0;
  size_t echoed = SIZE_MAX;  // the last line whose number was printed
  double waiting_since = 0;  // when the current line began to wait for the engine (or to retry)
  double wait_limit = 0;     // `wait_limit`: seconds a line may wait (0: for ever)
  bool echo_lines = false;   // `echo_lines on`: each line's number on stdout as it starts
};

// The script's turn in one frame: runs the next line when its pacing allows (script_pacing), and
// fails a line that waited past the limit, naming what is still busy. False: the run ends
// (quit, the end, or a failure, with exit_code 1).
bool script_frame(ScriptRun& run, const std::vector<ScriptLine>& script, AppState& app, bool idle,
                  std::string& pending_screenshot, bool& screenshot_now, std::string& pending_layout, int& exit_code) {
  const bool at_end = run.pos == script.size();
  const ScriptPacing pace = at_end ? ScriptPacing{} : script_pacing(script[run.pos]);
  const double now = seconds_now();
  if (pending_screenshot.empty() && (!pace.wait_for_engine || (idle && script_train_ready(app)))) {
    if (at_end) return false;
    const ScriptLine& line = script[run.pos];
    if (run.echo_lines && run.echoed != run.pos) std::printf("attnviz: script line %d\n", line.number), std::fflush(stdout);
    run.echoed = run.pos;
    const ScriptStep step = script_apply(app, line);
    if (!step.error.empty() && pace.retry_seconds > 0 && now - run.waiting_since < pace.retry_seconds)
      return true;  // `expect idle`: not yet; the next frame asks again
    if (pace.retry_seconds > 0 && step.error.empty())  // how long the app took to settle (the soak test reports it)
      std::printf("attnviz: script line %d: passed after %.2f s\n", line.number, now - run.waiting_since), std::fflush(stdout);
    ++run.pos;
    run.waiting_since = now;
    if (!step.error.empty()) {
      std::fprintf(stderr, "attnviz: %s\n", step.error.c_str());
      exit_code = 1;
      return false;
    }
    if (!step.report.empty()) std::printf("attnviz: %s\n", step.report.c_str()), std::fflush(stdout);
    if (step.wait_limit >= 0) run.wait_limit = step.wait_limit;
    if (step.echo_lines >= 0) run.echo_lines = step.echo_lines == 1;
    pending_screenshot = step.screenshot;
    screenshot_now = step.screenshot_now;
    if (!step.layout_report.empty()) pending_layout = step.layout_report;
    return !step.quit;
  }
  if (run.wait_limit > 0 && now - run.waiting_since > run.wait_limit) {
    const ScriptLine& line = script[std::min(run.pos, script.size() - 1)];
    std::fprintf(stderr, "attnviz: script line %d (%s): waited %.0f s for the line before to settle; still busy: %s%s\n",
                 line.number, line.verb.c_str(), now - run.waiting_since, app_busy_text(app).c_str(),
                 pending_screenshot.empty() ? "" : ", a screenshot");
    exit_code = 1;
    return false;
  }
  return true;
}

// While the engine works (a forward pass, a load, a retrain), frames only show its progress: at most
// one every busy_frame_seconds. Drawing in software, as on machines without a GPU, costs about as
// much CPU as a forward pass, and at full rate it took half the two cores from the work (a 12 x 768
// sandbox toggle ran 1.6x slower). A retrain runs for seconds and its frames only move the status
// bar, so it gets half as many (at 20 a second a 4-layer retrain took 12% longer than at 10). Input
// and a finished result (ui_wake) end the wait: at once, or, should the window system drop the empty
// event (GLFW 3.3 on X11 can), at the wait's timeout.
constexpr double kBusyFrameSeconds = 0.05;
constexpr double kRetrainFrameSeconds = 0.1;

// 0 when the app is not computing.
double busy_frame_seconds(const AppState& app) {
  if (!app_computing(app)) return 0;
  return app.retrain.training || app.retrain.twin_training ? kRetrainFrameSeconds : kBusyFrameSeconds;
}

void wait_for_frame(double busy_seconds, bool headless, std::chrono::steady_clock::time_point last_frame_start) {
  const bool computing = busy_seconds > 0;
  if (computing) {
    const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_frame_start).count();
    if (since < busy_seconds) {
      glfwWaitEventsTimeout(busy_seconds - since);
      return;
    }
  }
  if (computing || headless) glfwPollEvents();  // headless runs go as fast as they can
  else glfwWaitEventsTimeout(0.1);              // idle: sleep until input
}

// memory: where the state is remembered, or null (sessions, scripts and screenshots start afresh).
int run_frames(GLFWwindow* window, const AppOptions& opt, AppState& app, GuiResources& gui, ShellState& shell, Fonts& fonts,
               const std::vector<ScriptLine>& script, AppMemory* memory) {
  const bool headless = !opt.screenshot.empty() || !opt.script.empty() || opt.bench_frames > 0;
  const ImGuiStyle base_style = ImGui::GetStyle();  // unscaled
  bool styled_for_presentation = false;
  float styled_scale = 0.0f;  // the content scale the style was sized for (0: not yet)
  int frames_after_result = 0, exit_code = 0;
  ScriptRun run;
  run.waiting_since = seconds_now();
  std::string pending_screenshot;
  std::string pending_layout;  // the script's layout_report: written with the next screenshot
  bool screenshot_now = false;  // the script asked for the next frame even if the app is busy
  std::vector<double> frame_ms, training_ms;
  uint64_t reported_version = 0;  // --report-results: the last result printed
  int saved[4] = {100, 100, opt.width, opt.height};
  auto last_frame_start = std::chrono::steady_clock::now();
  while (!glfwWindowShouldClose(window) && !shell.quit) {
    wait_for_frame(busy_frame_seconds(app), headless, last_frame_start);
    const auto frame_start = std::chrono::steady_clock::now();  // after the wait: a frame's time is its own work
    last_frame_start = frame_start;
    const bool training_frame = app.retrain.training;  // the coreference demo retrains off the UI thread
    // The window moved to a monitor of another scale: fonts rebuilt at its size.
    // Presentation mode's first use adds its size to the atlas.
    if (const float scale = content_scale(window, opt); scale != fonts.scale || (app.presentation && !fonts.with_large))
      fonts_build(fonts, scale, app.presentation || fonts.with_large, true);
    if (app.presentation != styled_for_presentation || fonts.scale != styled_scale) {  // sizes follow the font
      ImGui::GetStyle() = base_style;
      ImGui::GetStyle().ScaleAllSizes(fonts.scale * (app.presentation ? kPresentationScale : 1.0f));
      styled_for_presentation = app.presentation;
      styled_scale = fonts.scale;
    }
    if (auto* drops = static_cast<Drops*>(glfwGetWindowUserPointer(window)); drops && !drops->paths.empty()) {
      // Several paths at once: the last one is what stays open (each reports in the status bar).
      for (const std::string& p : drops->paths) app_open_path(app, p);
      drops->paths.clear();
    }
    app_update(app);
    gui_resources_refresh(app, gui);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    key_taps_frame_begun();
    ImFont* const font = app.presentation && fonts.large ? fonts.large : fonts.normal;
    ImGui::PushFont(font);
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    shell_draw(app, shell, gui, static_cast<float>(width), static_cast<float>(height));
    ImGui::PopFont();
    ImGui::Render();
    key_taps_frame_ended(window);  // between frames: ImGui's key state changes only here and in the wait
    glViewport(0, 0, width, height);
    glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    fonts_release_pixels(fonts);
    if (shell.toggle_fullscreen) {
      toggle_fullscreen(window, saved[0], saved[1], saved[2], saved[3]);
      shell.toggle_fullscreen = false;
    }
    const bool idle = app.trace && !app_computing(app) && !app.dirty && !app.importance.busy() && !app.lens.job.busy() && !app.flow.job.busy() &&
                      !app.stats.scan_job.busy();
    if (!pending_screenshot.empty() && (idle || screenshot_now)) {
      Status s = save_framebuffer(pending_screenshot, width, height);
      if (s && !pending_layout.empty()) s = save_layout_report(pending_layout, app, gui, font->FontSize);
      if (!s) {
        std::fprintf(stderr, "attnviz: %s\n", s.error().c_str());
        exit_code = 1;
        break;
      }
      pending_screenshot.clear();
      pending_layout.clear();
      screenshot_now = false;
    }
    if (!opt.script.empty() && !script_frame(run, script, app, idle, pending_screenshot, screenshot_now, pending_layout, exit_code)) break;
    if (!opt.screenshot.empty() && opt.script.empty() && idle && ++frames_after_result >= opt.frames) {
      Status s = save_framebuffer(opt.screenshot, width, height);
      if (s && !opt.layout_report.empty()) s = save_layout_report(opt.layout_report, app, gui, font->FontSize);
      if (!s) {
        std::fprintf(stderr, "attnviz: %s\n", s.error().c_str());
        exit_code = 1;
      }
      break;
    }
    glfwSwapBuffers(window);
    // An edit made in this frame goes to the engine now, after the frame is drawn: it computes while
    // the loop waits for its result, not while the next frame is drawn on the same cores (and not
    // after an idle sleep until the next event, such as the key's release: up to 0.1 s).
    app_send_edit(app);
    if (memory) app_memory_tick(*memory, app, window_size(window), seconds_now(), false);
    if (opt.report_results && app.trace && app.trace_version != reported_version) {
      reported_version = app.trace_version;
      const auto shown = std::chrono::steady_clock::now();
      const double frame = std::chrono::duration<double, std::milli>(shown - frame_start).count();
      // From the worker's hand-over to the end of the frame that shows it: the wait for that frame too.
      const double after = std::chrono::duration<double, std::milli>(shown - app.compute_finished).count();
      std::printf("result %llu: compute %.1f ms (status bar), d_model %d, %d heads, %d layers; shown in a frame of %.1f ms, "
                  "%.1f ms after it was ready\n",
                  static_cast<unsigned long long>(reported_version), app.compute_seconds * 1000.0, app.trace->config.d_model,
                  app.trace->config.n_heads, app.trace->config.n_layers, frame, after);
      std::fflush(stdout);
    }
    if (training_frame)
      training_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count());
    if (opt.bench_frames > 0 && idle) {
      frame_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count());
      if (static_cast<int>(frame_ms.size()) >= opt.bench_frames) break;
    }
  }
  if (memory) app_memory_tick(*memory, app, window_size(window), seconds_now(), true);
  print_frame_stats(frame_ms);
  if (!training_ms.empty()) {  // what retraining on a toggle costs the UI: it must never block a frame
    std::sort(training_ms.begin(), training_ms.end());
    std::fprintf(stderr, "attnviz: %zu frames drawn while a demo trained: median %.1f ms, worst %.1f ms\n",
                 training_ms.size(), training_ms[training_ms.size() / 2], training_ms.back());
  }
  return exit_code;
}

int run(const AppOptions& opt) {
  std::vector<ScriptLine> script;
  if (!opt.script.empty()) {
    auto bytes = file_read_bytes(opt.script, 1 << 20);
    if (!bytes) {
      std::fprintf(stderr, "attnviz: %s\n", bytes.error().c_str());
      return 1;
    }
    auto parsed = script_parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
    if (!parsed) {
      std::fprintf(stderr, "attnviz: %s\n", parsed.error().c_str());
      return 1;
    }
    script = std::move(*parsed);
  }
  if (!glfwInit()) {
    std::fprintf(stderr, "attnviz: cannot open a window (no display? try xvfb-run)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  // On a HiDPI monitor the default window grows with the content scale; --size is taken as given.
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, opt.size_given ? GLFW_FALSE : GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "attnviz", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "attnviz: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  const bool headless = !opt.screenshot.empty() || !opt.script.empty() || opt.bench_frames > 0;
  glfwSwapInterval(headless ? 0 : 1);
  // Under Xvfb the pointer rests mid-screen and would raise a tooltip in every screenshot.
  if (headless) {
    int w = 0, h = 0;
    glfwGetWindowSize(window, &w, &h);  // larger than asked on a HiDPI monitor
    glfwSetCursorPos(window, w - 2, h - 2);
  }

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is computed every frame, not remembered
  ImGui::StyleColorsDark();
  ImGui::GetStyle().WindowRounding = 3.0f;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  key_taps_install(window);
  Drops drops;  // outlives the frame loop; the callback is removed before the window goes
  glfwSetWindowUserPointer(window, &drops);
  glfwSetDropCallback(window, on_drop);
  ImGui_ImplOpenGL3_Init("#version 330");

  int exit_code = 0;
  {
    // Workers wake the loop when their results are ready; uninstalled when this block ends, after
    // AppState (declared below) has joined every thread that wakes it, before GLFW terminates.
    const UiWakeInstalled wake(glfwPostEmptyEvent);
    Fonts fonts;
    fonts_build(fonts, content_scale(window, opt), opt.presentation, false);
    AppState app;
    // Read once: a keystroke's trace must not look at the file system.
    app.trace_max_memory = opt.max_trace_memory > 0 ? opt.max_trace_memory
                                                    : trace_memory_limit(memory_available(memory_texts_read()));
    demo_cache_prune();  // older trainers' models, never read by this build
    GuiResources gui;  // scoped so its GL textures are released before the context goes away
    ShellState shell;
    app.presentation = opt.presentation;
    if (app.assets.dir.empty()) {
      app.presets_error = "presets.json: " + asset_paths_describe(app.assets);
    } else if (auto presets = presets_load(app.assets.dir + "/presets.json"); presets) {
      app.presets = std::move(presets->presets);
      app.preset_sets = std::move(presets->sets);
    } else {
      app.presets_error = presets.error();
    }
    // A plain launch opens on meaning: the trained coreference demo, the famous sentence, layer 2
    // with "it" highlighted. Sessions, scripts and --model say where to start themselves (scripts
    // start from the sandbox, so that their actions replay the same everywhere).
    if (opt.session.empty() && opt.script.empty() && opt.model.empty() && opt.attention.empty()) app_open_on_meaning(app);
    // ...or where the person left off. Explicit starts and headless runs begin afresh unless told.
    const bool remember = opt.remember || (opt.session.empty() && opt.script.empty() && opt.model.empty() &&
                                           opt.attention.empty() && opt.screenshot.empty() && opt.bench_frames == 0);
    AppMemory memory;
    if (remember) {
      // The first launch speaks the system's language; a language once picked is remembered and wins.
      app.lang = lang_from_locale(std::getenv("LC_ALL"), std::getenv("LC_MESSAGES"), std::getenv("LANG"));
      const WindowSize size = app_memory_restore(app);
      if (size.width > 0 && !opt.size_given) glfwSetWindowSize(window, size.width, size.height);
    }
    if (!opt.session.empty()) {
      auto session = session_load(opt.session);
      Status s = session ? app_apply_session(app, *session) : Status(make_error(session.error()));
      if (!s) {
        std::fprintf(stderr, "attnviz: %s\n", s.error().c_str());
        exit_code = 1;
      }
    }
    if (!opt.text.empty()) app.sentence = opt.text;
    if (!opt.text_b.empty()) app.sentence_b = opt.text_b;
    if (opt.lang_given) app.lang = opt.lang;
    app.recent_models = recent_models_load();
    if (!opt.model.empty()) {
      app.model_path_edit = opt.model;
      app_open_model(app, opt.model);  // off the UI thread: the Model panel shows its progress
    }
    if (!opt.attention.empty()) {
      if (Status s = app_open_attention(app, opt.attention); !s) {
        std::fprintf(stderr, "attnviz: %s\n", s.error().c_str());  // also in the status bar
        if (!opt.screenshot.empty() || !opt.script.empty()) exit_code = 1;
      }
    }
    if (!opt.view.empty() && !view_from_id(opt.view, app.view)) {
      std::fprintf(stderr, "attnviz: unknown view '%s'\n%s", opt.view.c_str(), app_usage());
      exit_code = 2;
    }
    if (exit_code == 0) exit_code = run_frames(window, opt, app, gui, shell, fonts, script, remember ? &memory : nullptr);
    if (!opt.model.empty() && app.model_path != opt.model && !app.model_error.empty()) {
      std::fprintf(stderr, "attnviz: %s\n", app.model_error.c_str());  // also shown in the Model panel
      if (exit_code == 0 && (!opt.screenshot.empty() || !opt.script.empty())) exit_code = 1;
    }
    gui.release();
  }
  glfwSetDropCallback(window, nullptr);
  glfwSetWindowUserPointer(window, nullptr);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
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
  if (opt->version) {
    std::printf("%s", attnviz::version_text(opt->verbose).c_str());
    return 0;
  }
  return attnviz::run(*opt);
}
