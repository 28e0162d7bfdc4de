// Formulas drawn as a textbook prints them: sub- and superscripts, a fraction bar, a radical, a
// large Σ, from the markup of state/formula_markup.h, with the current ImGui font at the size asked.
#pragma once
#include <string_view>

#include <imgui.h>

#include "state/formula_markup.h"

namespace attnviz {

// Draws the formula with its top-left at `pos`, the base text `px` pixels high; returns its size.
// With draw_list null it only measures.
ImVec2 formula_draw(ImDrawList* draw_list, ImVec2 pos, const FormulaNode& node, float px, ImU32 color);

// At the cursor, as an item of its size, smaller (down to 70%) when the line is too short for it;
// markup that does not parse is shown as written.
// shrink false: always at px (in a table, whose column takes its width from what it holds).
void formula_item(std::string_view markup, float px, ImU32 color, bool shrink = true);

}  // namespace attnviz
