// Pieces of the Coreference view shared by its files: panel_coref.cpp (the cache and the panel),
// coref_facts.cpp (sentence chips, the answer, the facts), coref_heads.cpp (one box per head) and
// coref_pair.cpp (the minimal pair). Drawing only: the cache type CorefSide is in
// coref_view_state.h, and every number comes from core/analysis/coref_readout.h through that cache.
#pragma once
#include <string>

#include <imgui.h>

#include "state/app_state.h"
#include "widgets/gui_resources.h"

namespace attnviz {

// Blue and orange stay apart for colour-blind readers; the pronoun and property are neutral-ish.
inline constexpr ImU32 kCorefColA = IM_COL32(70, 135, 230, 255);
inline constexpr ImU32 kCorefColB = IM_COL32(235, 145, 35, 255);
inline constexpr ImU32 kCorefColPronoun = IM_COL32(205, 85, 160, 255);
inline constexpr ImU32 kCorefColProperty = IM_COL32(175, 175, 185, 255);
inline constexpr ImU32 kCorefColResolves = IM_COL32(70, 200, 110, 255);
inline constexpr ImU32 kCorefColResolvesBg = IM_COL32(70, 200, 110, 40);

// ---- panel_coref.cpp ----

// True when sentence B is computed beside A (Compare mode "sentence B"), i.e. the pair is shown.

// ---- coref_facts.cpp: small drawing helpers the other files share ----

ImU32 coref_role_color(const CorefExample& e, int token);  // 0 for a token with no role
const char* coref_token_text(const CorefExample& e, int i);  // "" out of range

// A rounded token chip at the cursor, one frame high, as one item; fill 0: the frame colour.
void coref_chip(const char* text, ImU32 fill);

// A tick drawn with lines: the font has no glyph for ✓.
void coref_draw_check(ImDrawList* dl, ImVec2 p, float size, ImU32 color, float thick);

// "✓ correct" / "× wrong" on the current line, aligned with framed items.
void coref_verdict(const AppState& app, bool right);

// "p = 97.3%" (the demo is often surer than one decimal can show); the exact value on hover.
void coref_probability_text(const AppState& app, const CorefPrediction& answer);

// "Layer 2 · Head 3" in the UI language.
std::string coref_head_name(const AppState& app, int layer, int head);

// ---- the view's sections, top to bottom ----

// coref_facts.cpp: the whole sentence as chips, wrapping at the window edge.
void coref_sentence_chips(const CorefExample& e);
// coref_facts.cpp: pronoun, candidates and property word; the rule's referent and the model's answer.
void coref_facts(AppState& app, const CorefSide& a);
// coref_facts.cpp: why the view has nothing to show for sentence A; false when it does.
bool coref_explain_unfit(AppState& app, const CorefSide& a);
// coref_heads.cpp: the pronoun's attention to each candidate, one box per head; the selected one outlined.
void coref_heads_grid(AppState& app, const CorefSide& a, int sel_layer, int sel_head);
// coref_pair.cpp: the minimal pair's actions, both answers, and A, B, A − B heatmaps of one head.
void coref_pair_section(AppState& app, const GuiResources& gui, const CorefSide& a, int layer, int head, bool is_best);

}  // namespace attnviz
