// app_update: the single place where edits become engine work and results become the view.
#include "app/app_state.h"

#include <algorithm>

namespace attnviz {

void app_update(AppState& app) {
  if (app.dirty) {
    ComputeRequest req;
    req.id = ++app.posted_id;
    req.config = app.config;
    req.seed = app.seed;
    req.input.text = app.sentence;
    if (app.cross) req.input.source_text = app.source_sentence;
    req.input.mask = app.mask;
    app.worker.post(std::move(req));
    app.dirty = false;
  }
  if (auto result = app.worker.poll()) {
    app.shown_id = result->id;
    app.compute_seconds = result->seconds;
    if (result->trace) {
      app.trace = std::move(result->trace);
      ++app.trace_version;
      app.error.clear();
      const int L = static_cast<int>(app.trace->layers.size());
      app.layer = std::clamp(app.layer, 0, L - 1);
      if (app.zoom_head >= app.trace->config.n_heads) app.zoom_head = -1;
      if (app.query >= app.trace->n_queries()) app.query = -1;
    } else {
      app.error = result->error;
    }
  }
  if (app.trace) app.textures.update(*app.trace, app.trace_version, app.layer, app.cmap);
}

bool app_computing(const AppState& app) { return app.shown_id != app.posted_id || app.worker.busy(); }

}  // namespace attnviz
