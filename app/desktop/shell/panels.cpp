// Opening view windows under the registry's stable labels.
#include "shell/panels.h"

#include "shell/view_registry.h"

namespace attnviz {

bool view_window_begin(AppState& app, View v) {
  if (!ImGui::Begin(view_window_label(app, v).c_str(), nullptr, kViewWindowFlags)) {
    ImGui::End();
    return false;
  }
  return true;
}

namespace {

// With the word toggles on: what the view shows, labelled (words, special tokens hidden and rows
// renormalised), or that it shows the model's pieces.
void words_label(const AppState& app, View v) {
  if (!app.word_view.any() || !app.words.error.empty()) return;  // the Sentence panel says why not
  const Lang L = app.lang;
  if (!view_draws_words(v)) {
    ImGui::TextDisabled("%s", tr(L, Str::words_pieces_here));
  } else if (app_words_shown(app)) {
    std::string label;
    if (app.word_view.merge_pieces) label = tr(L, Str::words_label_merged);
    if (app.word_view.hide_special) label += (label.empty() ? "" : " · ") + std::string(tr(L, Str::words_label_hidden));
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1.0f, 1.0f), "%s", label.c_str());
  } else if (app.measure != AttentionMeasure::weights) {
    ImGui::TextDisabled("%s", tr(L, Str::words_measure_note));
  }
}

}  // namespace

bool view_begin(AppState& app, View v) {
  if (!view_window_begin(app, v)) return false;
  if (!app.trace) {
    ImGui::TextDisabled("%s", app.error.empty() ? tr(app.lang, Str::computing) : app.error.c_str());
    ImGui::End();
    return false;
  }
  words_label(app, v);
  return true;
}

}  // namespace attnviz
