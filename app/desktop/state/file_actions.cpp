// The File menu's actions, shared by the shell's dialogs and --script: sessions and the exports
// (PNG drawn on the CPU, SVG, CSV, JSON). Each reports into app.status; none changes what is shown when
// it fails. No GUI: they run in the headless tests too.
#include "state/file_actions.h"

#include <optional>

#include "analysis/export.h"
#include "base/file_io.h"
#include "font_find.h"
#include "render/heatmap.h"
#include "state/view_figure.h"

namespace attnviz {

void app_report(AppState& app, const Status& s, const std::string& done) {
  app.status_is_error = !s.ok();
  app.status = s.ok() ? done : s.error();
}

Status app_save_session(AppState& app, const std::string& path) {
  Status s = session_save(path, app_capture_session(app));
  app_report(app, s, std::string(tr(app.lang, Str::saved)) + " " + path);
  return s;
}

Status app_open_session(AppState& app, const std::string& path) {
  auto session = session_load(path);
  Status s = session ? app_apply_session(app, *session) : Status(make_error(session.error()));
  app_report(app, s, std::string(tr(app.lang, Str::loaded)) + " " + path);
  return s;
}

Status app_export_png(const AppState& app, const std::string& path, float scale) {
  if (!app.trace) return make_error("nothing to export yet");
  auto spec = trace_layer_grid(app_shown_trace(app), app.layer);
  if (!spec) return make_error(spec.error());
  spec->scale = scale;
  spec->cmap = app.cmap;
  spec->annotate = app.annotate;
  const std::optional<FontRaster> font = font_find_and_load();
  auto image = heatmap_grid_render(*spec, font ? &*font : nullptr);
  if (!image) return make_error(image.error());
  return png_write(path, *image);
}

Status app_export_view(AppState& app, const std::string& path, FigureFormat format, float scale) {
  const std::optional<FontRaster> font = font_find_and_load();  // no font: ASCII fallback labels in the PNG
  const FontRaster* f = font ? &*font : nullptr;
  auto fig = view_figure(app, app.view, f);
  if (!fig) return make_error(fig.error());
  if (format == FigureFormat::svg) return figure_svg_write(path, *fig, f);
  auto image = figure_raster(*fig, f, scale);
  if (!image) return make_error(image.error());
  return png_write(path, *image);
}

Status app_export_csv(const AppState& app, const std::string& path) {
  if (!app.trace) return make_error("nothing to export yet");
  auto csv = trace_head_csv(app_shown_trace(app), app.layer, app.head);
  if (!csv) return make_error(csv.error());
  return file_write_atomic(path, std::string_view(*csv));
}

Status app_export_json(const AppState& app, const std::string& path) {
  if (!app.trace) return make_error("nothing to export yet");
  return file_write_atomic(path, std::string_view(trace_to_json(app_shown_trace(app), app.mask)));
}

}  // namespace attnviz
