#include "state/lens_state.h"

#include "state/app_state.h"

namespace attnviz {

namespace {

void write_refresh(AppState& app) {
  LensState& s = app.lens;
  s.write.reset();
  s.write_error.clear();
  if (s.cell_layer < 0 || !app.trace || !app.trace_model) return;
  auto w = head_write_tokens(*app.trace_model, *app.trace, s.cell_layer, s.cell_head, s.position, 5);
  if (w) s.write = std::move(*w);
  else s.write_error = w.error();
}

}  // namespace

int lens_position(const AppState& app) {
  if (!app.trace) return -1;
  const int n = app.trace->n_queries();
  if (app.query >= 0 && app.query < n) return app.query;
  int last = n - 1;
  while (last > 0 && app.trace->queries[static_cast<size_t>(last)].pad) --last;
  return last;
}

void lens_refresh(AppState& app) {
  LensState& s = app.lens;
  const int position = lens_position(app);
  if (s.cached && s.version == app.trace_version && s.position == position) return;
  s = LensState{};
  s.cached = true;
  s.version = app.trace_version;
  s.position = position;
  if (!app.trace || !app.trace_model || position < 0) return;
  const Model& m = *app.trace_model;
  const Trace& t = *app.trace;
  auto rows = logit_lens_at(m, t, position, 5);
  if (rows) s.rows = std::move(*rows);
  else s.rows_error = rows.error();
  // Attribution reads a language model's last position only.
  auto a = logit_attribution(m, t);
  if (a) s.attribution = std::move(*a);
  else s.attribution_error = a.error();
}

void lens_choose_head(AppState& app, int layer, int head) {
  app.lens.cell_layer = layer;
  app.lens.cell_head = head;
  write_refresh(app);
}

}  // namespace attnviz
