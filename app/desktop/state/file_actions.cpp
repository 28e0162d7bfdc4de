// The File menu's actions, shared by the shell's dialogs and --script: sessions and the exports
// (PNG drawn on the CPU, SVG, CSV, JSON). Each reports into app.status; none changes what is shown when
// it fails. No GUI: they run in the headless tests too.
#include "state/file_actions.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "analysis/export.h"
#include "base/file_io.h"
#include "font_find.h"
#include "render/heatmap.h"
#include "analysis/lecture.h"
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

Figure slide_page(const Figure& content) {
  constexpr float kMargin = 48;
  Figure page;
  page.width = kSlideWidth;
  page.height = kSlideHeight;
  page.background = content.background;
  Figure scaled = content;
  const float fit = std::min({(kSlideWidth - 2 * kMargin) / std::max(1.0f, content.width),
                              (kSlideHeight - 2 * kMargin) / std::max(1.0f, content.height), 3.0f});
  figure_scale(scaled, fit);
  figure_append(page, scaled, (kSlideWidth - scaled.width) * 0.5f, kMargin);
  return page;
}

Result<SlidesWritten> app_export_slides(AppState& app, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error("cannot create the folder '" + dir + "': " + ec.message());
  const std::optional<FontRaster> font = font_find_and_load();
  const FontRaster* f = font ? &*font : nullptr;
  const View shown_view = app.view;
  const int shown_step = app.steps.step;
  SlidesWritten out;
  int& written = out.pages;
  Status failed = Ok{};
  auto write = [&](const Figure& content, const std::string& name) {
    const Figure page = slide_page(content);
    const std::string base = (std::filesystem::path(dir) / name).string();
    if (Status s = figure_svg_write(base + ".svg", page, f); !s) return s;
    auto image = figure_raster(page, f, 1.0f);
    if (!image) return Status(make_error(image.error()));
    if (Status s = png_write(base + ".png", *image); !s) return s;
    ++written;
    return Status(Ok{});
  };
  auto two = [](int i) { return (i < 10 ? "0" : "") + std::to_string(i); };
  int page_no = 0;
  for (const View v : kAllViews) {
    if (v == View::steps) continue;  // its ten steps follow, one page each
    auto fig = view_figure(app, v, f);
    if (!fig) {  // nothing to show in that view yet
      out.skipped.emplace_back(view_id(v));
      continue;
    }
    if (failed = write(*fig, two(++page_no) + "_" + std::string(view_id(v))); !failed) break;
  }
  if (failed && app.trace)
    for (int s = 0; s < kLectureStepCount; ++s) {
      app.steps.step = s;
      auto fig = view_figure(app, View::steps, f);
      if (!fig) continue;
      if (failed = write(*fig, two(++page_no) + "_step" + two(s + 1)); !failed) break;
    }
  app.view = shown_view;
  app.steps.step = shown_step;
  if (!failed) return make_error(failed.error());
  return out;
}

}  // namespace attnviz
