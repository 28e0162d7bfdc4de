#include "state/panel_export.h"

#include <filesystem>

#include "analysis/explain_export.h"
#include "analysis/export.h"
#include "base/file_io.h"
#include "state/app_state.h"

namespace attnviz {

namespace {

enum class DataFormat { csv, json };

Result<DataFormat> format_of(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".csv") return DataFormat::csv;
  if (ext == ".json") return DataFormat::json;
  return make_error("export data: " + path + ": the file must end in .csv or .json (not \"" + ext + "\")");
}

std::vector<std::string> token_texts(const std::vector<TraceToken>& tokens) {
  std::vector<std::string> out;
  for (const TraceToken& t : tokens) out.push_back(t.text);
  return out;
}

Status write_file(const std::string& path, DataFormat format, const ExplainJson& json, const std::string& csv) {
  return file_write_atomic(path, std::string_view(format == DataFormat::json ? json.dump(2) + "\n" : csv));
}

Status nothing(DataPanel panel, const std::string& why) {
  return make_error("export data " + std::string(data_panel_id(panel)) + ": nothing to export yet (" + why + ")");
}

Status export_patching(const AppState& app, const std::string& path, DataFormat f) {
  const PatchingRun* run = patching_current(app);
  if (!run) return nothing(DataPanel::patching, "patching needs a sentence B of the same length, and its run to finish");
  if (!run->result) return nothing(DataPanel::patching, "the run for these sentences has no result");
  const PatchExport ex{&*run->result, run->request.clean, run->request.corrupt, run->clean_tokens, run->corrupt_tokens};
  return write_file(path, f, patch_json(ex), patch_csv(ex));
}

Status export_attribution(AppState& app, const std::string& path, DataFormat f) {
  const LensResult* lens = lens_wait(app);
  if (!lens) return nothing(DataPanel::attribution, "no trace");
  if (!lens->attribution) return nothing(DataPanel::attribution, lens->attribution_error);
  const LogitAttribution& a = *lens->attribution;
  const AttributionExport ex{&a, app.sentence, answer_token_text(*app.trace_model, a.answer_id), answer_token_text(*app.trace_model, a.wrong_id)};
  return write_file(path, f, attribution_json(ex), attribution_csv(ex));
}

Status export_lens(AppState& app, const std::string& path, DataFormat f) {
  const LensResult* lens = lens_wait(app);
  if (!lens) return nothing(DataPanel::lens, "no trace");
  if (lens->rows.empty()) return nothing(DataPanel::lens, lens->rows_error);
  const HeadWrite* write = lens_head_write(app);
  const LensExport ex{&lens->rows, lens->position, app.trace->queries[static_cast<size_t>(lens->position)].text, write,
                      write ? app.lens.cell_layer : -1, write ? app.lens.cell_head : -1};
  return write_file(path, f, lens_json(ex), lens_csv(ex));
}

Status export_flow(AppState& app, const std::string& path, DataFormat f) {
  const FlowShown* flow = flow_wait(app);
  if (!flow) return nothing(DataPanel::flow, "no trace");
  if (!flow->graph) return nothing(DataPanel::flow, flow->error);
  const FlowGraph& g = *flow->graph;
  const bool attribution = g.weight == FlowWeight::attribution;
  const FlowExport ex{&g, token_texts(app.trace->queries), attribution ? answer_token_text(*app.trace_model, g.answer_id) : "",
                      attribution ? answer_token_text(*app.trace_model, g.wrong_id) : ""};
  return write_file(path, f, flow_json(ex), flow_csv(ex));
}

Status export_qk(const AppState& app, const std::string& path, DataFormat f) {
  if (!app.trace) return nothing(DataPanel::qk, "no trace");
  const int head = app.heads.zoom_head >= 0 ? app.heads.zoom_head : app.head;  // the Heads view's zoomed head, where the picture is
  if (Status s = trace_check_layer_head(*app.trace, app.layer, head); !s) return make_error("export data qk: " + s.error());
  auto p = qk_projection(app.trace->head(app.layer, head));
  if (!p) return nothing(DataPanel::qk, p.error());
  const QKExport ex{&*p, app.layer, head, token_texts(app.trace->queries), token_texts(app.trace->keys)};
  return write_file(path, f, qk_json(ex), qk_csv(ex));
}

Status export_importance_set(const AppState& app, const std::string& path, DataFormat f) {
  const ImportanceSetGrid* grid = importance_set_shown(app);
  if (!grid) return nothing(DataPanel::importance_set, "measure a set of sentences on this model first");
  const ImportanceSetExport ex{grid, app.importance_set.source};
  return write_file(path, f, importance_set_json(ex), importance_set_csv(ex));
}

}  // namespace

std::string_view data_panel_id(DataPanel panel) {
  switch (panel) {
    case DataPanel::patching: return "patching";
    case DataPanel::attribution: return "attribution";
    case DataPanel::lens: return "lens";
    case DataPanel::flow: return "flow";
    case DataPanel::qk: return "qk";
    case DataPanel::importance_set: return "set";
  }
  return "?";
}

std::optional<DataPanel> data_panel_parse(std::string_view id) {
  for (DataPanel p : kDataPanels)
    if (data_panel_id(p) == id) return p;
  return std::nullopt;
}

std::string data_panel_file_name(DataPanel panel) { return "attnviz-" + std::string(data_panel_id(panel)) + ".csv"; }

Status app_export_panel(AppState& app, DataPanel panel, const std::string& path) {
  auto format = format_of(path);
  if (!format) return make_error(format.error());
  Status s = Ok{};
  switch (panel) {
    case DataPanel::patching: s = export_patching(app, path, *format); break;
    case DataPanel::attribution: s = export_attribution(app, path, *format); break;
    case DataPanel::lens: s = export_lens(app, path, *format); break;
    case DataPanel::flow: s = export_flow(app, path, *format); break;
    case DataPanel::qk: s = export_qk(app, path, *format); break;
    case DataPanel::importance_set: s = export_importance_set(app, path, *format); break;
  }
  return s;
}

}  // namespace attnviz
