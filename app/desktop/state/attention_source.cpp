// The attention file's trace is installed here, on the UI thread, in place of the worker's result:
// reading a file is all the "computing" there is. The trace is shared with the file it came from
// (an aliasing shared_ptr), so installing it copies nothing.
#include "state/attention_source.h"

#include <filesystem>

#include "io/attention_file.h"
#include "state/app_state.h"
#include "state/file_actions.h"
#include "state/model_source.h"

namespace attnviz {

namespace {

std::string opened_text(const AppState& app, const std::string& path, const AttentionFile& f) {
  const Trace& t = f.trace;
  std::string s = tr_format(app.lang, Str::attn_opened, path.c_str(), t.config.n_layers, t.config.n_heads, t.n_queries());
  if (f.cross_trace) s += " · " + std::string(tr(app.lang, Str::attn_has_cross));
  if (!f.off_rows.empty())
    s += " · " + tr_format(app.lang, Str::attn_rows_off, static_cast<int>(f.off_rows.size()), off_rows_summary(f.off_rows).c_str());
  return s;
}

Result<std::shared_ptr<const AttentionFile>> read(const std::string& path) {
  auto f = attention_file_read(path);
  if (!f) return make_error(f.error());
  return std::shared_ptr<const AttentionFile>(std::make_shared<const AttentionFile>(std::move(*f)));
}

}  // namespace

Status app_open_attention(AppState& app, const std::string& path) {
  auto f = read(path);
  if (!f) {
    app_report(app, Status(make_error(f.error())), "");
    return make_error(f.error());
  }
  app.attention = std::move(*f);
  app.attention_b.reset();
  app.source = ModelSource::attention;
  app.model.reset();
  app.model_path = path;
  app.model_error.clear();
  app.model_file_pending = false;
  app.ablation.heads.clear();  // no model to switch heads off in
  if (!app.attention->cross_trace) app.cross = false;
  app.query = -1;
  app.trace_b.reset();
  app.error_b.clear();
  app.importance_result.reset();
  app.dirty = true;
  app.status = opened_text(app, path, *app.attention);
  app.status_is_error = false;
  return Ok{};
}

Status app_open_attention_b(AppState& app, const std::string& path) {
  if (app.source != ModelSource::attention) {
    Status s = make_error(tr(app.lang, Str::attn_b_needs_a));
    app_report(app, s, "");
    return s;
  }
  auto f = read(path);
  if (!f) {
    app_report(app, Status(make_error(f.error())), "");
    return make_error(f.error());
  }
  app.attention_b = std::move(*f);
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
  app.status = "B: " + opened_text(app, path, *app.attention_b);
  app.status_is_error = false;
  return Ok{};
}

PathKind path_kind(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return PathKind::model;
  if (!std::filesystem::is_regular_file(path, ec)) return PathKind::unknown;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return PathKind::session;
  if (ext == ".safetensors") return attention_file_sniff(path) ? PathKind::attention : PathKind::model;
  return PathKind::unknown;
}

void app_open_path(AppState& app, const std::string& path) {
  switch (path_kind(path)) {
    case PathKind::attention: (void)app_open_attention(app, path); return;
    case PathKind::session: (void)app_open_session(app, path); return;  // changes nothing when it fails
    case PathKind::model:
      app.model_path_edit = path;
      app_open_model(app, path);
      if (!app.model_error.empty()) app_report(app, Status(make_error(app.model_error)), "");
      else {
        app.status = tr_format(app.lang, Str::attn_opening_model, path.c_str());
        app.status_is_error = false;
      }
      return;
    case PathKind::unknown:
      app_report(app, Status(make_error(tr_format(app.lang, Str::attn_unknown_path, path.c_str()))), "");
      return;
  }
}

void attention_update(AppState& app) {
  if (!app.dirty || !app.attention) return;
  app.dirty = false;
  const AttentionFile& f = *app.attention;
  app.trace = std::shared_ptr<const Trace>(app.attention, app.cross && f.cross_trace ? &*f.cross_trace : &f.trace);
  app.trace_b.reset();
  app.error_b.clear();
  app.compare.mode = CompareMode::sentence_b;  // the other modes rebuild a model; B here is a second file
  if (app_needs_b(app)) {
    if (app.attention_b) {
      const AttentionFile& b = *app.attention_b;
      app.trace_b = std::shared_ptr<const Trace>(app.attention_b, app.cross && b.cross_trace ? &*b.cross_trace : &b.trace);
    } else {
      app.error_b = tr(app.lang, Str::attn_compare_hint);
    }
  }
  app.trace_model.reset();
  app.answer.reset();
  app.answer_full.reset();
  app.answer_b.reset();
  app.answer_b_error.reset();
  app.answer_error = NoAnswer{NoAnswerReason::no_model, {}};
  app.error.clear();
  app.compute_seconds = 0;
  app.compute_finished = std::chrono::steady_clock::now();  // read, not computed: ready now
  app.shown_id = app.posted_id;
  ++app.trace_version;
  app.lines.hidden.resize(static_cast<size_t>(app.trace->config.n_heads), 0);
}

bool view_needs_model(View view) { return view == View::steps || view == View::coref || view == View::train; }

}  // namespace attnviz
