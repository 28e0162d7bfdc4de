// Layout is TeX's idea at its simplest: every box has a width, a height above the baseline and a
// depth below it; scripts are 70% of their base's size, raised or lowered from its baseline; a
// fraction's bar sits on the maths axis (a little above the baseline) with the numerator and
// denominator centred over and under it.
#include "widgets/formula.h"

#include <algorithm>
#include <cmath>

namespace attnviz {

namespace {

struct Box {
  float w = 0, asc = 0, desc = 0;
};

// Measures (dl null) or draws the node with its baseline at y, starting at x.
Box layout(ImDrawList* dl, float x, float y, const FormulaNode& n, float px, ImU32 col) {
  ImFont* font = ImGui::GetFont();
  const float asc = px * 0.78f, desc = px * 0.24f;
  switch (n.kind) {
    case FormulaNode::Kind::text: {
      const float w = font->CalcTextSizeA(px, 1e9f, 0, n.text.c_str()).x;
      if (dl) dl->AddText(font, px, ImVec2(x, y - asc), col, n.text.c_str());
      return {w, asc, desc};
    }
    case FormulaNode::Kind::space: return {px * 0.2f, 0, 0};
    case FormulaNode::Kind::row: {
      Box b;
      for (const FormulaNode& k : n.kids) {
        const Box kb = layout(dl, x + b.w, y, k, px, col);
        b.w += kb.w;
        b.asc = std::max(b.asc, kb.asc);
        b.desc = std::max(b.desc, kb.desc);
      }
      if (n.kids.empty()) b.asc = asc * 0.5f;
      return b;
    }
    case FormulaNode::Kind::sum: {
      const float big = px * 1.45f;
      const float w = font->CalcTextSizeA(big, 1e9f, 0, n.text.c_str()).x;
      if (dl) dl->AddText(font, big, ImVec2(x, y - big * 0.8f), col, n.text.c_str());
      return {w + px * 0.1f, big * 0.8f, big * 0.2f};
    }
    case FormulaNode::Kind::script: {
      const Box base = layout(dl, x, y, n.kids[0], px, col);
      const float sp = px * 0.7f;
      const bool big = n.kids[0].kind == FormulaNode::Kind::sum;
      Box sub, sup;
      const float sub_y = y + (big ? px * 0.55f : px * 0.25f), sup_y = y - (big ? base.asc * 0.75f : px * 0.42f);
      if (!formula_empty_row(n.kids[1])) sub = layout(dl, x + base.w, sub_y, n.kids[1], sp, col);
      if (!formula_empty_row(n.kids[2])) sup = layout(dl, x + base.w, sup_y, n.kids[2], sp, col);
      Box b;
      b.w = base.w + std::max(sub.w, sup.w) + px * 0.05f;
      b.asc = std::max(base.asc, sup.w > 0 ? y - sup_y + sup.asc : 0.0f);
      b.desc = std::max(base.desc, sub.w > 0 ? sub_y - y + sub.desc : 0.0f);
      return b;
    }
    case FormulaNode::Kind::frac: {
      const float fp = px * 0.9f, axis = px * 0.3f, gap = px * 0.12f, pad = px * 0.15f;
      const Box num = layout(nullptr, 0, 0, n.kids[0], fp, col), den = layout(nullptr, 0, 0, n.kids[1], fp, col);
      const float w = std::max(num.w, den.w) + 2 * pad;
      const float bar = y - axis;
      if (dl) {
        layout(dl, x + (w - num.w) * 0.5f, bar - gap - num.desc, n.kids[0], fp, col);
        layout(dl, x + (w - den.w) * 0.5f, bar + gap + den.asc, n.kids[1], fp, col);
        dl->AddLine(ImVec2(x + pad * 0.5f, bar), ImVec2(x + w - pad * 0.5f, bar), col, std::max(1.0f, px * 0.06f));
      }
      return {w, axis + gap + num.asc + num.desc, den.asc + den.desc + gap - axis};
    }
    case FormulaNode::Kind::sqrt: {
      const Box in = layout(nullptr, 0, 0, n.kids[0], px, col);
      const float hook = px * 0.55f, gap = px * 0.12f, t = std::max(1.0f, px * 0.06f);
      const float top = y - in.asc - gap, bottom = y + in.desc;
      if (dl) {
        // The radical: a short rise, the long stroke down to the baseline, up to the bar, the bar.
        dl->AddLine(ImVec2(x, bottom - (bottom - top) * 0.45f), ImVec2(x + hook * 0.3f, bottom - (bottom - top) * 0.55f), col, t);
        dl->AddLine(ImVec2(x + hook * 0.3f, bottom - (bottom - top) * 0.55f), ImVec2(x + hook * 0.6f, bottom), col, t * 1.4f);
        dl->AddLine(ImVec2(x + hook * 0.6f, bottom), ImVec2(x + hook, top), col, t);
        dl->AddLine(ImVec2(x + hook, top), ImVec2(x + hook + in.w + px * 0.1f, top), col, t);
        layout(dl, x + hook + px * 0.05f, y, n.kids[0], px, col);
      }
      return {hook + in.w + px * 0.15f, in.asc + gap + t, in.desc};
    }
  }
  return {};
}

}  // namespace

ImVec2 formula_draw(ImDrawList* dl, ImVec2 pos, const FormulaNode& node, float px, ImU32 color) {
  const Box measured = layout(nullptr, 0, 0, node, px, color);
  if (dl) layout(dl, pos.x, pos.y + measured.asc, node, px, color);
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
