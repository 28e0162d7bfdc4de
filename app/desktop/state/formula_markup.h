// The markup of formulas the app draws as a textbook prints them (widgets/formula.h draws them): a
// LaTeX subset, e.g.
//   Attention(Q,K,V) = softmax(\frac{QK^T}{\sqrt{d_k}})V      head_i = \sum_j w_{ij} v_j
// x^y and x_y take one character (a UTF-8 one) or a {group}; \frac{A}{B}; \sqrt{A}; \sum (a large
// Σ); \, a thin space; everything else is text as written. Parsing only: no drawing, no ImGui.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace attnviz {

struct FormulaNode {
  enum class Kind { text, row, script, frac, sqrt, sum, space };
  Kind kind = Kind::row;
  std::string text;                 // text: what is drawn
  std::vector<FormulaNode> kids;    // row: its parts; script: base, sub, sup (an empty row when absent);
                                    // frac: numerator, denominator; sqrt: the radicand
};

// Errors name what is wrong and where: an unclosed or stray brace, \frac without two groups, an
// unknown command, a script with nothing after ^ or _.
Result<FormulaNode> formula_parse(std::string_view markup);

// The formula's text with the markup resolved ("softmax((QK^T)/(√d_k))V"), for tooltips, exports
// and tests.
std::string formula_plain(const FormulaNode& node);

bool formula_empty_row(const FormulaNode& node);

}  // namespace attnviz
