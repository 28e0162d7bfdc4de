// Where each part of a formula goes (state/formula_markup.h's tree), for any surface that can
// measure and draw text and lines: the app's ImGui windows (widgets/formula.cpp) and the exported
// figures, PNG and SVG (views/steps/steps_figure.cpp). TeX's idea at its simplest: every box has a
// width, a height above the baseline and a depth below it; scripts are 70% of their base's size,
// raised or lowered from its baseline; a fraction's bar sits on the maths axis (a little above the
// baseline) with the numerator and denominator centred over and under it.
#pragma once
#include <functional>
#include <string_view>

#include "state/formula_markup.h"

namespace attnviz {

struct FormulaPainter {
  std::function<float(std::string_view text, float px)> width;  // advance of text `px` high
  // Draws text with its line box's top at `top` (null: measuring only).
  std::function<void(float x, float top, std::string_view text, float px)> text;
  std::function<void(float x0, float y0, float x1, float y1, float thickness)> line;
};

struct FormulaBox {
  float w = 0, asc = 0, desc = 0;  // width, height above the baseline, depth below it
};

// Lays the node out from x with its baseline at `baseline`, the base text `px` high; paints it when
// `paint` (the painter's text and line are then called). Returns its box.
FormulaBox formula_layout(const FormulaNode& node, float x, float baseline, float px, const FormulaPainter& painter,
                          bool paint);

}  // namespace attnviz
