// What the weights views (Heads, Model view, Lines, Statistics) show: the trace in the model's
// pieces, or — with the Sentence panel's toggles — in words (pieces merged: a word's column sums
// its pieces, its row averages them) and without special tokens (rows renormalised). Built once
// per trace and toggle by app_update, headless. The chosen query (AppState::query) stays a piece
// row everywhere; these functions translate it for the views that show words.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "analysis/word_view.h"
#include "model/trace.h"
#include "state/views.h"

namespace attnviz {

struct AppState;

struct ShownWords {
  WordViewOptions built_for;           // the toggles `trace` was built with
  uint64_t trace_version = 0;          // ...and the trace it was built from; 0: none
  std::shared_ptr<const Trace> trace;  // the trace in words (weights only); null when not shown
  WordGroups rows;                     // which shown row each piece row went to
  std::string error;                   // why words cannot be shown (an attention file, every token special)
  bool shown = false;                  // app_words_shown when shown_version was last bumped
  uint64_t seen_trace_version = 0;     // app.trace_version then
};

// Rebuilds the word trace when the trace or the toggles changed; bumps app.shown_version whenever
// what the weights views show changes — a new trace, a toggle, a measure that hides the words —
// so that their caches and textures, keyed by it, rebuild.
void shown_words_refresh(AppState& app);

// The views that draw app_shown_trace: Heads, Model view, Lines and Statistics. The others need
// the model's own pieces (Step by step's Q and K, Coreference's candidates, Compare's B).
bool view_draws_words(View v);
// True when the weights views show words now (toggles on, the weights measure, a trace in words).
bool app_words_shown(const AppState& app);
// The trace the weights views draw: the word trace when shown, else app.trace (which must be set).
const Trace& app_shown_trace(const AppState& app);
// The chosen query as a row of app_shown_trace (-1: none, or a hidden special token), and back: a
// shown row chooses the first piece of its word.
int app_shown_query(const AppState& app);
void app_set_shown_query(AppState& app, int shown_row);

}  // namespace attnviz
