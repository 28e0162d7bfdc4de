// Undo and redo as snapshots of the edited fields: each step is a whole Edit, so a step restores
// exactly what was there, whatever panel changed it.
#include "state/history.h"

#include <tuple>

#include "state/app_state.h"
#include "state/demo_retrain.h"

namespace attnviz {

namespace {

// The fields Edit and AppState name alike, copied either way by one list.
template <class S>
auto shared_fields(S& s) {
  return std::tie(s.sentence, s.source_sentence, s.sentence_b, s.cross, s.config, s.seed, s.generator, s.mask,
                  s.ablation, s.measure, s.word_view, s.cmap, s.annotate);
}

Edit edit_capture(const AppState& app) {
  Edit e;
  shared_fields(e) = shared_fields(app);
  e.compare_mode = app.compare.mode;
  e.compare_sentence = app.compare.sentence;
  e.coref_arch = app.retrain.coref;
  e.induction_arch = app.retrain.induction;
  return e;
}

// Everything but the sentences: a step that changes only these is typing.
bool same_settings(const Edit& a, const Edit& b) {
  return a.cross == b.cross && config_to_json(a.config) == config_to_json(b.config) && a.seed == b.seed &&
         a.generator == b.generator && mask_to_json(a.mask) == mask_to_json(b.mask) &&
         a.ablation.heads == b.ablation.heads && a.ablation.mode == b.ablation.mode && a.measure == b.measure &&
         a.word_view.merge_pieces == b.word_view.merge_pieces && a.word_view.hide_special == b.word_view.hide_special &&
         a.compare_mode == b.compare_mode && a.cmap == b.cmap && a.annotate == b.annotate &&
         a.coref_arch == b.coref_arch && a.induction_arch == b.induction_arch;
}

bool same_sentences(const Edit& a, const Edit& b) {
  return a.sentence == b.sentence && a.source_sentence == b.source_sentence && a.sentence_b == b.sentence_b &&
         a.compare_sentence == b.compare_sentence;
}

void edit_apply(AppState& app, const Edit& e) {
  // The shown demo retrains (or finds) the architecture restored; the other one's is only remembered.
  const DemoArch& restored = app.source == ModelSource::demo_induction ? e.induction_arch : e.coref_arch;
  const bool shown_changed = demo_is_live(app.source) && demo_shown_arch(app.retrain, app.source) != restored;
  shared_fields(app) = shared_fields(e);
  app.compare.mode = e.compare_mode;
  app.compare.sentence = e.compare_sentence;
  app.retrain.coref = e.coref_arch;
  app.retrain.induction = e.induction_arch;
  if (shown_changed) demo_retrain_request(app, DemoJob{app.source, demo_shown_arch(app.retrain, app.source)});
  app.trace_b.reset();  // B belongs to the compare settings restored
  app.error_b.clear();
  app.dirty = true;
}

// Undo and redo alike: the current state goes onto `to`, the top of `from` becomes current.
bool history_step(AppState& app, std::vector<Edit>& from, std::vector<Edit>& to) {
  History& h = app.history;
  if (from.empty()) return false;
  to.push_back(std::move(h.current));
  h.current = std::move(from.back());
  from.pop_back();
  h.last_typing = -1e9;  // the next keystroke starts a step of its own
  edit_apply(app, h.current);
  return true;
}

}  // namespace

void history_track(AppState& app, double now) {
  History& h = app.history;
  Edit seen = edit_capture(app);
  if (!h.started) {
    h.current = std::move(seen);
    h.started = true;
    return;
  }
  const bool settings = same_settings(seen, h.current);
  if (settings && same_sentences(seen, h.current)) return;
  // Typing: a sentence edit soon after the last one joins its step (the step keeps the state from
  // before the typing began).
  const bool typing = settings;
  if (!(typing && now - h.last_typing < kHistoryTypingSeconds && !h.undo.empty())) {
    h.undo.push_back(std::move(h.current));
    if (h.undo.size() > kHistoryMaxSteps) h.undo.erase(h.undo.begin());
  }
  h.last_typing = typing ? now : -1e9;
  h.redo.clear();
  h.current = std::move(seen);
}

bool history_undo(AppState& app) { return history_step(app, app.history.undo, app.history.redo); }
bool history_redo(AppState& app) { return history_step(app, app.history.redo, app.history.undo); }

}  // namespace attnviz
