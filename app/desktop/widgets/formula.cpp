// The ImGui surface of state/formula_layout.h: the current font at the size asked.
#include "widgets/formula.h"

#include <algorithm>
#include <string>

#include "state/formula_layout.h"

namespace attnviz {

namespace {

FormulaPainter imgui_painter(ImDrawList* dl, ImU32 col) {
  FormulaPainter p;
  p.width = [](std::string_view text, float px) {
    const std::string s(text);
    return ImGui::GetFont()->CalcTextSizeA(px, 1e9f, 0, s.c_str()).x;
  };
  p.text = [dl, col](float x, float top, std::string_view text, float px) {
    const std::string s(text);
    dl->AddText(ImGui::GetFont(), px, ImVec2(x, top), col, s.c_str());
  };
  p.line = [dl, col](float x0, float y0, float x1, float y1, float t) { dl->AddLine(ImVec2(x0, y0), ImVec2(x1, y1), col, t); };
  return p;
}

}  // namespace

ImVec2 formula_draw(ImDrawList* dl, ImVec2 pos, const FormulaNode& node, float px, ImU32 color) {
  const FormulaPainter painter = imgui_painter(dl, color);
  const FormulaBox measured = formula_layout(node, 0, 0, px, painter, false);
  if (dl) formula_layout(node, pos.x, pos.y + measured.asc, px, painter, true);
  return ImVec2(measured.w, measured.asc + measured.desc);
}

void formula_item(std::string_view markup, float px, ImU32 color, bool shrink) {
  auto node = formula_parse(markup);
  if (!node) {
    ImGui::TextUnformatted(markup.data(), markup.data() + markup.size());
    return;
  }
  // Smaller rather than cut off where the line is too short for it (never below 70%).
  const float width = formula_draw(nullptr, ImVec2(), *node, px, color).x, avail = ImGui::GetContentRegionAvail().x;
  if (shrink && width > avail && avail > 0) px *= std::max(0.7f, avail / width);
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  const ImVec2 size = formula_draw(ImGui::GetWindowDrawList(), pos, *node, px, color);
  ImGui::Dummy(size);
}

}  // namespace attnviz
