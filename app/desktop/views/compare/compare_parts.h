// Parts of the Compare view drawn in files of their own (compare_view.cpp draws the rest).
#pragma once
#include "model/trace.h"

namespace attnviz {

struct AppState;
struct GuiResources;

// 1 head vs N heads: one word's attention (the chosen query row, else the demo's own word: "its" in
// the gather demo, "it" in the coreference demo) in B's single head above each of A's heads, as one
// small map with the token each row gives the most (and, in the gather demo, that word's role).
// Draws nothing but a hint when there is no such word or A and B have different tokens.
void compare_query_rows(AppState& app, GuiResources& gui, const Trace& A, const Trace& B, int layer);

}  // namespace attnviz
