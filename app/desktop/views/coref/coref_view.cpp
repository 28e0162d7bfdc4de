// The Coreference view: the sentence with its pronoun, candidate nouns and property word as
// coloured chips, the rule's referent and the model's answer (coref_facts.cpp); per head, the
// pronoun's attention to each candidate (coref_heads.cpp); and the minimal pair (tired ↔ wide) with
// A, B and A – B heatmaps of one head (coref_pair.cpp). This file keeps what the view reads off
// app.trace / app.trace_b through core/analysis/coref_readout.h, cached per trace version; it never runs the model.
#include <string>
#include <utility>

#include <imgui.h>

#include "views/coref/coref_parts.h"
#include "shell/panels.h"

namespace attnviz {

namespace {

// ---- cache ---------------------------------------------------------------------------------

void side_build(CorefSide& s, const std::string& text, const Trace* trace, const Model* model) {
  s = CorefSide{};
  s.text = text;
  s.example = coref_make(text);
  if (!trace) return;
  s.example = coref_align(*trace, s.example);  // a checkpoint's pieces: indices into its tokens
  auto heads = coref_head_scores(*trace, s.example);
  if (!heads) {
    s.why = heads.error();
    return;
  }
  s.fits = true;
  s.heads = std::move(*heads);
  s.best = coref_best_head(s.heads, s.example);
  if (!model) return;
  auto answer = coref_answer(*model, *trace, s.example);
  if (answer) s.answer = *answer;
  else s.answer_error = answer.error();
}

void cache_refresh(AppState& app) {
  CorefViewState& v = app.coref_view;
  const Model* model = app.source == ModelSource::sandbox ? nullptr : app.model.get();
  const std::string b_text = coref_b_shown(app) ? app.compare_sentence : std::string();
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

}  // namespace

bool coref_b_shown(const AppState& app) { return app.compare_mode == CompareMode::sentence_b; }

bool coref_use_minimal_pair(AppState& app) {
  const std::string pair = coref_minimal_pair(coref_make(app.sentence));
  if (pair.empty()) return false;
  app.compare_sentence = pair;
  app.compare_mode = CompareMode::sentence_b;
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
  return true;
}

void coref_swap_sentences(AppState& app) {
  std::swap(app.sentence, app.compare_sentence);
  app.compare_mode = CompareMode::sentence_b;
  app.trace_b.reset();
  app.error_b.clear();
  app.dirty = true;
}

void panel_coref(AppState& app) {
  if (!view_begin(app, tr(app.lang, Str::view_coref))) return;
  cache_refresh(app);
  const CorefViewState& v = app.coref_view;
  const CorefSide& a = v.a;
  ImGui::BeginChild("coref", ImVec2(0, 0), false);
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", tr(app.lang, Str::co_title));
  coref_sentence_chips(a.example);
  ImGui::Spacing();
  if (!coref_explain_unfit(app, a)) {
    coref_facts(app, a);
    // The head shown in the pair: the one clicked, while it exists; otherwise the best one.
    int layer = -1, head = -1;
    bool is_best = false;
    const int n = static_cast<int>(a.heads.size()), nh = app.trace->config.n_heads;
    if (v.pair_layer >= 0 && v.pair_head >= 0 && v.pair_head < nh && v.pair_layer * nh + v.pair_head < n) {
      layer = v.pair_layer;
      head = v.pair_head;
    } else if (a.best >= 0) {
      layer = a.heads[static_cast<size_t>(a.best)].layer;
      head = a.heads[static_cast<size_t>(a.best)].head;
    }
    if (a.best >= 0) is_best = a.heads[static_cast<size_t>(a.best)].layer == layer && a.heads[static_cast<size_t>(a.best)].head == head;
    coref_heads_grid(app, a, layer, head);
    coref_pair_section(app, a, layer, head, is_best);
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace attnviz
