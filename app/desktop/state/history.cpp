// Undo and redo as snapshots of the edited fields: each step is a whole Edit, so a step restores
// exactly what was there, whatever panel changed it.
#include "state/history.h"

#include "state/app_state.h"
#include "state/demo_retrain.h"

namespace attnviz {

namespace {

Edit edit_capture(const AppState& app) {
  Edit e;
  e.sentence = app.sentence;
  e.source_sentence = app.source_sentence;
  e.sentence_b = app.sentence_b;
  e.cross = app.cross;
  e.config = app.config;
  e.seed = app.seed;
  e.mask = app.mask;
  e.ablation = app.ablation;
  e.measure = app.measure;
  e.word_view = app.word_view;
  e.compare_mode = app.compare.mode;
  e.compare_sentence = app.compare.sentence;
  e.cmap = app.cmap;
  e.annotate = app.annotate;
  e.coref_arch = app.retrain.arch;
  return e;
}

bool same_arch(const CorefTrainOptions& a, const CorefTrainOptions& b) {
  return coref_arch_key(a) == coref_arch_key(b) && a.seed == b.seed;
}

// Everything but the sentences: a step that changes only these is typing.
bool same_settings(const Edit& a, const Edit& b) {
  return a.cross == b.cross && config_to_json(a.config) == config_to_json(b.config) && a.seed == b.seed &&
         mask_to_json(a.mask) == mask_to_json(b.mask) && a.ablation.heads == b.ablation.heads &&
         a.ablation.mode == b.ablation.mode && a.measure == b.measure &&
         a.word_view.merge_pieces == b.word_view.merge_pieces && a.word_view.hide_special == b.word_view.hide_special &&
         a.compare_mode == b.compare_mode && a.cmap == b.cmap && a.annotate == b.annotate &&
         same_arch(a.coref_arch, b.coref_arch);
}

bool same_sentences(const Edit& a, const Edit& b) {
  return a.sentence == b.sentence && a.source_sentence == b.source_sentence && a.sentence_b == b.sentence_b &&
         a.compare_sentence == b.compare_sentence;
}

void edit_apply(AppState& app, const Edit& e) {
  const bool arch_changed = !same_arch(app.retrain.arch, e.coref_arch);
  app.sentence = e.sentence;
  app.source_sentence = e.source_sentence;
  app.sentence_b = e.sentence_b;
  app.cross = e.cross;
  app.config = e.config;
  app.seed = e.seed;
  app.mask = e.mask;
  app.ablation = e.ablation;
  app.measure = e.measure;
  app.word_view = e.word_view;
  app.compare.mode = e.compare_mode;
  app.compare.sentence = e.compare_sentence;
  app.cmap = e.cmap;
  app.annotate = e.annotate;
  if (arch_changed && app.source == ModelSource::demo_coref) demo_retrain_request(app, e.coref_arch);
  app.retrain.arch = e.coref_arch;
  app.trace_b.reset();  // B belongs to the compare settings restored
  app.error_b.clear();
  app.dirty = true;
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

bool history_undo(AppState& app) {
  History& h = app.history;
  if (h.undo.empty()) return false;
  h.redo.push_back(std::move(h.current));
  h.current = std::move(h.undo.back());
  h.undo.pop_back();
  h.last_typing = -1e9;  // the next keystroke starts a step of its own
  edit_apply(app, h.current);
  return true;
}

bool history_redo(AppState& app) {
  History& h = app.history;
  if (h.redo.empty()) return false;
  h.undo.push_back(std::move(h.current));
  h.current = std::move(h.redo.back());
  h.redo.pop_back();
  h.last_typing = -1e9;
  edit_apply(app, h.current);
  return true;
}

}  // namespace attnviz
