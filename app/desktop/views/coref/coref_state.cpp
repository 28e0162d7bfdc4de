// The Coreference view's headless part: what it reads off traces A and B (cached per trace
// version, sentences and model), and its two sentence actions, which --script shares.
#include "views/coref/coref_state.h"

#include <string>
#include <utility>

#include "state/app_state.h"

namespace attnviz {

namespace {

void side_build(CorefSide& s, const std::string& text, const Trace* trace, const Model* model) {
  s = CorefSide{};
  s.text = text;
  s.example = coref_make(text);
  if (!trace) return;
  s.example = coref_align(*trace, s.example);  // a checkpoint's pieces: indices into its tokens
  auto heads = coref_head_scores(*trace, s.example);
  if (!heads) {
    s.why = heads.why();
    return;
  }
  s.fits = true;
  s.heads = std::move(*heads);
  s.best = coref_best_head(s.heads, s.example);
  if (!model) return;
  auto answer = coref_answer(*model, *trace, s.example);
  if (answer) s.answer = *answer;
  else s.answer_error = answer.why();
}

}  // namespace

void coref_cache_refresh(AppState& app) {
  CorefState& v = app.coref;
  const Model* model = app.source == ModelSource::sandbox ? nullptr : app.model.get();
  const std::string b_text = coref_b_shown(app) ? app.compare.sentence : std::string();
  if (v.cached && v.cache_version == app.trace_version && v.cache_model == model && v.a.text == app.sentence &&
      v.b.text == b_text)
    return;
  if (v.cached && v.cache_model != model) v.pair_layer = v.pair_head = -1;  // another model: its best head again
  v.cached = true;
  v.cache_version = app.trace_version;
  v.cache_model = model;
  side_build(v.a, app.sentence, app.trace.get(), model);
  side_build(v.b, b_text, coref_b_shown(app) ? app.trace_b.get() : nullptr, model);
  v.minimal_pair = coref_minimal_pair(coref_make(app.sentence));
  const CorefExample pair = coref_make(v.minimal_pair);
  v.partner = pair.property >= 0 ? pair.tokens[static_cast<size_t>(pair.property)].text : std::string();
}

bool coref_b_shown(const AppState& app) { return app.compare.mode == CompareMode::sentence_b; }

bool coref_use_minimal_pair(AppState& app) {
  const std::string pair = coref_minimal_pair(coref_make(app.sentence));
  if (pair.empty()) return false;
  app.compare.sentence = pair;
  app.compare.mode = CompareMode::sentence_b;
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
  return true;
}

void coref_swap_sentences(AppState& app) {
  std::swap(app.sentence, app.compare.sentence);
  app.compare.mode = CompareMode::sentence_b;
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
}

}  // namespace attnviz
