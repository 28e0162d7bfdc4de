// The word-level trace the weights views show, rebuilt only when the trace or a toggle changes,
// and the chosen query translated between piece rows and shown rows.
#include "state/shown_words.h"

#include "state/app_state.h"

namespace attnviz {

namespace {

bool same_options(const WordViewOptions& a, const WordViewOptions& b) {
  return a.merge_pieces == b.merge_pieces && a.hide_special == b.hide_special;
}

}  // namespace

void shown_words_refresh(AppState& app) {
  ShownWords& w = app.words;
  const bool wanted = app.word_view.any() && app.trace;
  const bool stale = wanted ? (w.trace_version != app.trace_version || !same_options(w.built_for, app.word_view))
                            : (w.trace || !w.error.empty());
  if (stale) {
    const bool was_shown = w.shown;
    const uint64_t seen = w.seen_trace_version;
    w = ShownWords{};
    w.shown = was_shown;
    w.seen_trace_version = seen;
    if (wanted) {
      w.built_for = app.word_view;
      w.trace_version = app.trace_version;
      if (app.trace->weights_only) {
        w.error = tr(app.lang, Str::words_no_pieces);  // a file's tokens do not say which pieces form a word
      } else if (auto words = trace_word_view(*app.trace, app.word_view); !words) {
        w.error = words.error();
      } else {
        w.rows = word_groups(app.trace->queries, app.word_view);
        w.trace = std::make_shared<const Trace>(std::move(*words));
      }
    }
  }
  const bool shown = app_words_shown(app);
  if (stale || shown != w.shown || w.seen_trace_version != app.trace_version) {
    w.shown = shown;
    w.seen_trace_version = app.trace_version;
    ++app.shown_version;  // what the weights views draw changed: their caches and textures rebuild
  }
}

bool view_draws_words(View v) { return v == View::heads || v == View::model || v == View::lines || v == View::stats; }

bool app_words_shown(const AppState& app) {
  return app.words.trace && app.measure == AttentionMeasure::weights && app.trace &&
         app.words.trace_version == app.trace_version;
}

const Trace& app_shown_trace(const AppState& app) { return app_words_shown(app) ? *app.words.trace : *app.trace; }

int app_shown_query(const AppState& app) {
  if (app.query < 0 || !app_words_shown(app)) return app.query;
  const auto& group_of = app.words.rows.group_of;
  return app.query < static_cast<int>(group_of.size()) ? group_of[static_cast<size_t>(app.query)] : -1;
}

void app_set_shown_query(AppState& app, int shown_row) {
  if (shown_row < 0 || !app_words_shown(app)) {
    app.query = shown_row;
    return;
  }
  const auto& group_of = app.words.rows.group_of;
  for (size_t i = 0; i < group_of.size(); ++i)
    if (group_of[i] == shown_row) {
      app.query = static_cast<int>(i);
      return;
    }
  app.query = -1;
}

}  // namespace attnviz
