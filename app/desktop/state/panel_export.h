// The explanation panels' numbers as files (core/analysis/explain_export.h): patching, the
// attribution grid, the logit lens with the chosen head's write, the flow graph, the chosen head's
// query/key projection and importance over a set, as CSV (long form) or JSON (the CLI's keys), by
// the file's extension. What the panel shows is what is written; a panel with nothing computed is
// an error that says what to do first. Headless: the panels' "Export data" buttons and the script's
// `export data PANEL PATH` call it.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace attnviz {

struct AppState;

enum class DataPanel { patching, attribution, lens, flow, qk, importance_set };
inline constexpr DataPanel kDataPanels[] = {DataPanel::patching, DataPanel::attribution, DataPanel::lens,
                                            DataPanel::flow,     DataPanel::qk,          DataPanel::importance_set};

std::string_view data_panel_id(DataPanel panel);  // "patching", "attribution", "lens", "flow", "qk", "set"
std::optional<DataPanel> data_panel_parse(std::string_view id);
// The file name the export dialog proposes: "attnviz-patching.csv".
std::string data_panel_file_name(DataPanel panel);

// Errors (English; the status bar shows them): an extension other than .csv or .json, nothing to
// export yet, a write that fails. Nothing changes on screen either way.
Status app_export_panel(AppState& app, DataPanel panel, const std::string& path);

}  // namespace attnviz
