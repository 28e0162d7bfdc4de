// The Coreference view: the sentence with its pronoun, candidate nouns and property word as
// coloured chips, the rule's referent and the model's answer (coref_facts.cpp); per head, the
// pronoun's attention to each candidate (coref_heads.cpp); and the minimal pair (tired ↔ wide) with
// A, B and A – B heatmaps of one head (coref_pair.cpp). What the view reads off the traces is cached
// in coref_state.cpp; nothing here runs the model.
#include <string>
#include <utility>

#include <imgui.h>

#include "shell/panels.h"
#include "shell/view_registry.h"
#include "widgets/importance_panel.h"
#include "widgets/patching_panel.h"
#include "views/coref/coref_parts.h"

namespace attnviz {

void coref_view_draw(AppState& app, GuiResources& gui) {
  if (!view_begin(app, View::coref)) return;
  coref_cache_refresh(app);
  const CorefState& v = app.coref;
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
    importance_panel(app);
    coref_pair_section(app, gui, a, layer, head, is_best);
    patching_panel(app);
  }
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace attnviz
