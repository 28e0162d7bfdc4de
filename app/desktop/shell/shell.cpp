// Layout: menu bar on top, status bar at the bottom, Sentence and Model & masks on the left, the
// view tabs and the chosen view on the right. Windows are placed every frame, so the layout follows
// the window size and presentation mode; there is no docking in ImGui 1.86.
#include "shell/shell.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "shell/fonts.h"
#include "shell/panels.h"
#include "shell/view_registry.h"
#include "state/attention_source.h"
#include "state/file_actions.h"
#include "state/soft_wrap.h"
#include "state/source_text.h"
#include "widgets/draw.h"
#include "widgets/local_models_window.h"
#include "widgets/measure_controls.h"

namespace attnviz {

namespace {

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                    ImGuiWindowFlags_NoSavedSettings;
constexpr ImGuiWindowFlags kBare = kFixed | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar;

// The path starts absolute, in the folder the app was started from, so the dialog says where a
// file will go; the browser under it moves from there.
void open_dialog(ShellState& shell, ShellState::Dialog d, const std::string& default_path) {
  shell.dialog = d;
  shell.dialog_just_opened = true;
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(default_path, ec);
  shell.path = ec ? default_path : p.string();
}

// The folders (and, unless only a folder is asked for, the files) beside the path: a click on a
// folder goes into it keeping the file name, ".." goes up, a click on a file takes it.
void path_browser(std::string& path, bool folders_only) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p = fs::absolute(path.empty() ? fs::path(".") : fs::path(path), ec);
  if (ec) return;
  const bool is_dir = fs::is_directory(p, ec);
  const fs::path dir = is_dir ? p : p.parent_path();
  const fs::path name = is_dir || folders_only ? fs::path() : p.filename();
  std::vector<std::pair<std::string, bool>> entries;  // (name, is a folder)
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.empty() || n[0] == '.') continue;  // hidden files stay hidden
    const bool folder = it->is_directory(ec);
    if (folder || !folders_only) entries.emplace_back(n, folder);
    if (entries.size() >= 2000) break;
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second : a.first < b.first;  // folders first, then by name
  });
  ImGui::TextDisabled("%s", dir.string().c_str());
  ImGui::BeginChild("##browser", ImVec2(ImGui::GetFontSize() * 32, ImGui::GetTextLineHeightWithSpacing() * 9), true);
  if (dir.has_parent_path() && dir != dir.root_path() && ImGui::Selectable("..")) path = (dir.parent_path() / name).string();
  for (const auto& [n, folder] : entries) {
    if (!ImGui::Selectable((n + (folder ? "/" : "")).c_str())) continue;
    path = folder ? (dir / n / name).string() : (dir / n).string();
  }
  ImGui::EndChild();
}

void menu_bar(AppState& app, ShellState& shell) {
  if (!ImGui::BeginMainMenuBar()) return;
  const Lang L = app.lang;
  if (ImGui::BeginMenu(tr(L, Str::menu_file))) {
    if (ImGui::MenuItem(tr(L, Str::open_session), "Ctrl+O")) open_dialog(shell, ShellState::Dialog::open_session, "attnviz-session.json");
    if (ImGui::MenuItem(tr(L, Str::save_session), "Ctrl+S")) open_dialog(shell, ShellState::Dialog::save_session, "attnviz-session.json");
    ImGui::Separator();
    if (ImGui::MenuItem(tr(L, Str::open_local_model))) local_models_show(app);
    if (ImGui::MenuItem(tr(L, Str::open_attention)))
      open_dialog(shell, ShellState::Dialog::open_attention, app.source == ModelSource::attention ? app.model_path : "attention.safetensors");
    if (ImGui::MenuItem(tr(L, Str::open_attention_b), nullptr, false, app.source == ModelSource::attention))
      open_dialog(shell, ShellState::Dialog::open_attention_b, "attention.safetensors");
    ImGui::Separator();
    const bool has_trace = app.trace != nullptr;
    if (ImGui::MenuItem(tr(L, Str::export_png), nullptr, false, has_trace))
      open_dialog(shell, ShellState::Dialog::export_png, "attnviz-layer" + std::to_string(app.layer + 1) + ".png");
    // The shown view as a figure (Train draws its run, which needs no trace).
    const bool view_has_figure = has_trace || app.view == View::train || app.view == View::translate;
    const std::string view_file = std::string("attnviz-") + view_id(app.view);
    if (ImGui::MenuItem(tr(L, Str::export_view_png), nullptr, false, view_has_figure))
      open_dialog(shell, ShellState::Dialog::export_view_png, view_file + ".png");
    if (ImGui::MenuItem(tr(L, Str::export_view_svg), nullptr, false, view_has_figure))
      open_dialog(shell, ShellState::Dialog::export_view_svg, view_file + ".svg");
    if (ImGui::MenuItem(tr(L, Str::export_csv), nullptr, false, has_trace))
      open_dialog(shell, ShellState::Dialog::export_csv,
                  "attnviz-layer" + std::to_string(app.layer + 1) + "-head" + std::to_string(app.head + 1) + ".csv");
    if (ImGui::MenuItem(tr(L, Str::export_json), nullptr, false, has_trace))
      open_dialog(shell, ShellState::Dialog::export_json, "attnviz-trace.json");
    if (ImGui::MenuItem(tr(L, Str::export_slides), nullptr, false, has_trace))
      open_dialog(shell, ShellState::Dialog::export_slides, "attnviz-slides");
    ImGui::Separator();
    if (ImGui::MenuItem(tr(L, Str::quit))) shell.quit = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr(L, Str::menu_edit))) {
    if (ImGui::MenuItem(tr(L, Str::undo), "Ctrl+Z", false, !app.history.undo.empty())) (void)history_undo(app);
    if (ImGui::MenuItem(tr(L, Str::redo), "Ctrl+Shift+Z", false, !app.history.redo.empty())) (void)history_redo(app);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr(L, Str::menu_view))) {
    for (const ViewEntry& e : view_registry())
      if (ImGui::MenuItem(tr(L, e.title), nullptr, app.view == e.view)) app.view = e.view;
    ImGui::Separator();
    ImGui::MenuItem(tr(L, Str::presentation), "F5", &app.presentation);
    ImGui::MenuItem(tr(L, Str::side_panels), "F6", &app.presentation_panels, app.presentation);
    bool high_contrast = app.cmap == Colormap::high_contrast;
    if (ImGui::MenuItem(tr(L, Str::high_contrast), nullptr, &high_contrast))
      app.cmap = high_contrast ? Colormap::high_contrast : Colormap::viridis;
    ImGui::MenuItem(tr(L, Str::annotate), nullptr, &app.annotate);
    if (ImGui::MenuItem(tr(L, Str::full_screen), "F11")) shell.toggle_fullscreen = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr(L, Str::menu_language))) {
    if (ImGui::MenuItem("English", nullptr, app.lang == Lang::en)) app.lang = Lang::en;
    if (ImGui::MenuItem("한국어", nullptr, app.lang == Lang::ko)) app.lang = Lang::ko;
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
}

// The view tabs' rows within `width`: one while every title fits, more where they wrap (nine tabs
// beside the side panels on a projector), so none is cut off at the right.
float tab_width(Lang L, const ViewEntry& e) { return ImGui::CalcTextSize(tr(L, e.title)).x + 8; }

int view_tab_rows(Lang L, float width) {
  int rows = 1;
  float x = 0;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  for (const ViewEntry& e : view_registry()) {
    const float w = tab_width(L, e);
    if (x > 0 && x + gap + w > width) {
      ++rows;
      x = 0;
    }
    x += (x > 0 ? gap : 0) + w;
  }
  return rows;
}

void view_tabs(AppState& app) {
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  float x = 0;
  const float width = ImGui::GetContentRegionAvail().x;
  for (const ViewEntry& e : view_registry()) {
    const char* label = tr(app.lang, e.title);
    const float w = tab_width(app.lang, e);
    if (x > 0 && x + gap + w <= width) ImGui::SameLine();
    else if (x > 0) x = 0;  // wraps: the next row
    x += (x > 0 ? gap : 0) + w;
    if (ImGui::Selectable(label, app.view == e.view, 0, ImVec2(w, 0))) app.view = e.view;
  }
}

// One part of the status bar within `width`, cut with "…" when longer, and then whole in a tooltip.
// No colour: drawn as disabled text.
void status_text(const std::string& text, const ImVec4* colour, float width) {
  const std::string shown = fit_with_ellipsis(text, width, ui_text_width);
  if (colour) ImGui::TextColored(*colour, "%s", shown.c_str());
  else ImGui::TextDisabled("%s", shown.c_str());
  if (shown.size() != text.size() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

// A model's source as the status bar names it: a path by its last part ("gpt2" for
// /home/me/models/gpt2/), anything else as it is.
std::string source_short(const std::string& source) {
  if (source.find('/') == std::string::npos) return source;
  std::string trimmed = source;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  return slash == std::string::npos || slash + 1 == trimmed.size() ? trimmed : trimmed.substr(slash + 1);
}

void status_bar(const AppState& app) {
  if (app.model_loader.busy()) {  // opening a model: its own progress, not the worker's
    const float f = app.model_loader.progress();
    const std::string overlay = tr_format(app.lang, Str::ck_loading_short, static_cast<int>(f * 100.0f + 0.5f));
    ImGui::ProgressBar(f, ImVec2(ImGui::GetFontSize() * 12, 0), overlay.c_str());
    ImGui::SameLine();
  } else if (app.retrain.training) {  // a trained demo trains for a new architecture
    ImGui::ProgressBar(demo_retrain_progress(app), ImVec2(ImGui::GetFontSize() * 14, 0),
                       tr_format(app.lang, Str::rt_training, demo_job_label(app.retrain.running).c_str()).c_str());
    ImGui::SameLine();
  } else if (app.retrain.twin_training) {  // Compare's 1-head model of this architecture
    ImGui::TextColored(ImVec4(0.55f, 0.85f, 0.55f, 1), "%s",
                       tr_format(app.lang, Str::rt_training, demo_job_label(app.retrain.twin).c_str()).c_str());
    ImGui::SameLine();
  } else if (app_computing(app)) {
    ImGui::ProgressBar(app.worker.progress(), ImVec2(160, 0), tr(app.lang, Str::computing));
    ImGui::SameLine();
  }
  // The standing line (what model, what was computed) and the latest message share the rest of the
  // bar: the message takes what the line leaves (at least two fifths), the line names a path by its
  // last part when the whole path does not fit, and what still does not fit ends in "…", whole in a
  // tooltip.
  const auto line_naming = [&](const std::string& source) -> std::string {
    if (!app.trace) return "";
    const Trace& t = *app.trace;
    if (t.weights_only)
      return tr_format(app.lang, Str::attn_status, source.c_str(), t.config.n_heads, t.config.n_layers, t.n_queries());
    const ModelConfig& c = t.config;
    return tr_format(app.lang, Str::status_trace, model_source_text(source, app.lang).c_str(), c.d_model, c.n_heads,
                     c.n_layers, (std::string(name_of(c.norm)) + "-norm").c_str(), t.n_queries(), app.compute_seconds * 1000.0);
  };
  const std::string line = app.trace ? line_naming(app.trace->model_source) : std::string();
  const std::string line_short = app.trace ? line_naming(source_short(app.trace->model_source)) : std::string();
  if (app.ablation.any()) {
    const Lang L = app.lang;
    const ImVec4 orange(1.0f, 0.7f, 0.35f, 1);
    status_text(tr_format(L, Str::heads_off_list,
                          app.ablation.mode == AblationMode::zero ? tr(L, Str::ablation_zero) : tr(L, Str::ablation_mean),
                          ablation_heads_label(app.ablation.heads).c_str()),
                &orange, ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::SameLine();
  }
  if (!app.status.empty()) {
    const float avail = ImGui::GetContentRegionAvail().x;
    const float room = std::max(avail * 0.4f, avail - ui_text_width(line_short) - ImGui::GetStyle().ItemSpacing.x);
    const ImVec4 colour = app.status_is_error ? ImVec4(1, 0.45f, 0.4f, 1) : ImVec4(0.55f, 0.85f, 0.55f, 1);
    status_text(app.status, &colour, room);
    ImGui::SameLine();
  }
  if (!line.empty()) {
    const float avail = ImGui::GetContentRegionAvail().x;
    status_text(ui_text_width(line) <= avail ? line : line_short, nullptr, avail);
  }
}

void file_dialog(AppState& app, ShellState& shell) {
  using D = ShellState::Dialog;
  if (shell.dialog == D::none) return;
  const Lang L = app.lang;
  const char* title = shell.dialog == D::open_session       ? tr(L, Str::open_session)
                      : shell.dialog == D::save_session     ? tr(L, Str::save_session)
                      : shell.dialog == D::open_attention   ? tr(L, Str::open_attention)
                      : shell.dialog == D::open_attention_b ? tr(L, Str::open_attention_b)
                      : shell.dialog == D::export_png   ? tr(L, Str::export_png)
                      : shell.dialog == D::export_view_png ? tr(L, Str::export_view_png)
                      : shell.dialog == D::export_view_svg ? tr(L, Str::export_view_svg)
                      : shell.dialog == D::export_csv   ? tr(L, Str::export_csv)
                      : shell.dialog == D::export_slides ? tr(L, Str::export_slides)
                                                        : tr(L, Str::export_json);
  if (shell.dialog_just_opened) {
    ImGui::OpenPopup(title);
    shell.dialog_just_opened = false;
  }
  bool open = true;
  if (ImGui::BeginPopupModal(title, &open, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextUnformatted(tr(L, Str::path));
    ImGui::SetNextItemWidth(480);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##path", &shell.path, ImGuiInputTextFlags_EnterReturnsTrue);
    path_browser(shell.path, shell.dialog == D::export_slides);
    if (shell.dialog == D::export_slides) ImGui::TextDisabled("%s", tr(L, Str::export_slides_hint));
    if (shell.dialog == D::export_png || shell.dialog == D::export_view_png) ImGui::SliderFloat(tr(L, Str::scale), &shell.png_scale, 0.5f, 4.0f, "%.1f×");
    if (ImGui::Button(tr(L, Str::ok)) || enter) {
      switch (shell.dialog) {
        case D::open_session: app_open_session(app, shell.path); break;
        case D::save_session: app_save_session(app, shell.path); break;
        case D::open_attention: (void)app_open_attention(app, shell.path); break;  // reports in the status bar
        case D::open_attention_b: (void)app_open_attention_b(app, shell.path); break;
        case D::export_png: app_report(app, app_export_png(app, shell.path, shell.png_scale), std::string(tr(L, Str::saved)) + " " + shell.path); break;
        case D::export_view_png:
          app_report(app, app_export_view(app, shell.path, FigureFormat::png, shell.png_scale), std::string(tr(L, Str::saved)) + " " + shell.path);
          break;
        case D::export_view_svg:
          app_report(app, app_export_view(app, shell.path, FigureFormat::svg), std::string(tr(L, Str::saved)) + " " + shell.path);
          break;
        case D::export_csv: app_report(app, app_export_csv(app, shell.path), std::string(tr(L, Str::saved)) + " " + shell.path); break;
        case D::export_json: app_report(app, app_export_json(app, shell.path), std::string(tr(L, Str::saved)) + " " + shell.path); break;
        case D::export_slides: {
          auto n = app_export_slides(app, shell.path);
          std::string done;
          if (n) {
            done = tr_format(L, Str::export_slides_done, n->pages, shell.path.c_str());
            std::string skipped;
            for (const std::string& v : n->skipped) skipped += (skipped.empty() ? "" : ", ") + v;
            if (!skipped.empty()) done += " · " + tr_format(L, Str::export_slides_skipped, skipped.c_str());
          }
          app_report(app, n ? Status(Ok{}) : Status(make_error(n.error())), done);
          break;
        }
        case D::none: break;
      }
      shell.dialog = D::none;
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button(tr(L, Str::cancel))) {
      shell.dialog = D::none;
      ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
  }
  if (!open) shell.dialog = ShellState::Dialog::none;
}

// A view that needs the model, on the weights of an attention file: why it is off, and what works.
void needs_model_view(AppState& app) {
  if (!view_window_begin(app, app.view)) return;
  const Lang L = app.lang;
  const Str why = app.view == View::steps ? Str::attn_off_steps : app.view == View::coref ? Str::attn_off_coref : Str::attn_off_train;
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.35f, 1), "%s", tr(L, why));
  ImGui::Spacing();
  ImGui::TextDisabled("%s", tr(L, Str::attn_off_works));
  ImGui::PopTextWrapPos();
  ImGui::End();
}

bool pressed(int glfw_key) { return ImGui::IsKeyPressed(glfw_key, false); }
bool pressed_repeat(int glfw_key) { return ImGui::IsKeyPressed(glfw_key, true); }

void shortcuts(AppState& app, ShellState& shell) {
  const ImGuiIO& io = ImGui::GetIO();
  if (pressed(GLFW_KEY_F5)) app.presentation = !app.presentation;
  if (pressed(GLFW_KEY_F6) && app.presentation) app.presentation_panels = !app.presentation_panels;
  if (pressed(GLFW_KEY_F11)) shell.toggle_fullscreen = true;
  if (io.KeyCtrl && pressed(GLFW_KEY_S)) open_dialog(shell, ShellState::Dialog::save_session, "attnviz-session.json");
  if (io.KeyCtrl && pressed(GLFW_KEY_O)) open_dialog(shell, ShellState::Dialog::open_session, "attnviz-session.json");
  if (io.WantTextInput) return;  // arrows, space and Ctrl+Z belong to the text field (it has its own undo)
  // GLFW reports physical keys: Ctrl+Z is GLFW_KEY_Z on QWERTY and on the Korean 2-set layout alike.
  if (io.KeyCtrl && pressed_repeat(GLFW_KEY_Z)) (void)(io.KeyShift ? history_redo(app) : history_undo(app));
  if (io.KeyCtrl && pressed_repeat(GLFW_KEY_Y)) (void)history_redo(app);
  if (!app.trace) return;  // arrows and space belong to the text field
  const int NH = app.trace->config.n_heads, L = static_cast<int>(app.trace->layers.size());
  if (pressed_repeat(GLFW_KEY_RIGHT)) app.head = (app.head + 1) % NH;
  if (pressed_repeat(GLFW_KEY_LEFT)) app.head = (app.head + NH - 1) % NH;
  if (pressed_repeat(GLFW_KEY_DOWN)) app.layer = std::min(app.layer + 1, L - 1);
  if (pressed_repeat(GLFW_KEY_UP)) app.layer = std::max(app.layer - 1, 0);
  if (pressed_repeat(GLFW_KEY_SPACE)) app.steps.step += io.KeyShift ? -1 : 1;  // the Step view clamps it
  if (pressed(GLFW_KEY_X)) app_toggle_head(app, app.layer, app.head);  // the chosen head off / on
  if (app.heads.zoom_head >= 0) app.heads.zoom_head = app.head;
}

}  // namespace

void shell_draw(AppState& app, ShellState& shell, GuiResources& gui, float width, float height) {
  gui.drawn.clear();
  shortcuts(app, shell);
  menu_bar(app, shell);
  // The font's size over its base size: presentation mode and the monitor's content scale (HiDPI).
  const float s = ui_scale();
  const float top = ImGui::GetFrameHeight();
  const float status_h = ImGui::GetFrameHeight() + 4;
  // The controls column never takes more than ~30% of the width: the heatmaps are what a class looks at.
  // In presentation mode it is folded away (F6 brings it back): the view takes the whole width.
  const bool panels = !app.presentation || app.presentation_panels;
  const float left = panels ? std::min(390.0f * s, std::max(300.0f * std::min(s, 1.5f), 0.3f * width)) : 0.0f;
  const float sentence_h = std::min(300.0f * s, 0.4f * height);
  // The view tabs (one row, or more where they wrap), then the model's answer.
  const float tabs_w = width - left - 2 * ImGui::GetStyle().WindowPadding.x;
  const float tabs_h = static_cast<float>(view_tab_rows(app.lang, tabs_w) + 1) * ImGui::GetFrameHeight() + 14;
  const float bottom = height - status_h;

  if (panels) {
    ImGui::SetNextWindowPos(ImVec2(0, top));
    ImGui::SetNextWindowSize(ImVec2(left, sentence_h));
    panel_sentence(app);
    ImGui::SetNextWindowPos(ImVec2(0, top + sentence_h));
    ImGui::SetNextWindowSize(ImVec2(left, bottom - top - sentence_h));
    panel_model(app);
  }

  ImGui::SetNextWindowPos(ImVec2(left, top));
  ImGui::SetNextWindowSize(ImVec2(width - left, tabs_h));
  if (ImGui::Begin("##tabs", nullptr, kBare)) {
    view_tabs(app);
    answer_line(app);
  }
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(left, top + tabs_h));
  ImGui::SetNextWindowSize(ImVec2(width - left, bottom - top - tabs_h));
  if (app.trace && app.trace->weights_only && view_needs_model(app.view)) needs_model_view(app);
  else view_entry(app.view).draw(app, gui);

  ImGui::SetNextWindowPos(ImVec2(0, bottom));
  ImGui::SetNextWindowSize(ImVec2(width, status_h));
  if (ImGui::Begin("##status", nullptr, kBare)) status_bar(app);
  ImGui::End();
  file_dialog(app, shell);
  local_models_window(app);
}

}  // namespace attnviz
