// The File menu's actions, shared by the shell's dialogs and --script. Each reports into
// app.status (app_report); none changes what is shown when it fails.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"
#include "render/figure.h"
#include "state/app_state.h"

namespace attnviz {

// Shows the outcome in the status bar: `done` on success, the error otherwise.
void app_report(AppState& app, const Status& s, const std::string& done);

Status app_save_session(AppState& app, const std::string& path);
Status app_open_session(AppState& app, const std::string& path);
// Exports show what the weights views show: in words while the word toggles are on.
Status app_export_png(const AppState& app, const std::string& path, float scale);  // layer's heads, CPU-drawn
Status app_export_csv(const AppState& app, const std::string& path);               // the chosen head
Status app_export_json(const AppState& app, const std::string& path);              // the whole trace
// The shown view (app.view) as a figure (state/view_figure.h): a PNG at `scale`, or an SVG (vector,
// text as text). Not const: the Coreference view may refresh its cache first.
enum class FigureFormat { png, svg };
Status app_export_view(AppState& app, const std::string& path, FigureFormat format, float scale = 1.0f);

// Slides: every view that has something to show, then every step of the lecture (for the chosen
// layer, head and query), each as a 16:9 page of 1920 x 1080, PNG and SVG, into `dir` (created if
// missing): 01_heads.png, ..., 11_step01.png, ... in the UI's language. The view and step shown are
// kept. A view with nothing to show (Train before a run, Compare before it was opened: B is
// computed only while it is shown) is skipped and named; a write that fails is the error.
inline constexpr float kSlideWidth = 1920, kSlideHeight = 1080;
struct SlidesWritten {
  int pages = 0;
  std::vector<std::string> skipped;  // view ids
};
Result<SlidesWritten> app_export_slides(AppState& app, const std::string& dir);
// The figure on a 16:9 page: scaled to fit inside the margins (at most 3x), centred.
Figure slide_page(const Figure& content);

}  // namespace attnviz
