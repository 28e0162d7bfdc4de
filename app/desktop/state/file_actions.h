// The File menu's actions, shared by the shell's dialogs and --script. Each reports into
// app.status (app_report); none changes what is shown when it fails.
#pragma once
#include <string>

#include "base/result.h"
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

}  // namespace attnviz
