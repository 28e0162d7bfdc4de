#include "state/formula_layout.h"

#include <algorithm>

namespace attnviz {

FormulaBox formula_layout(const FormulaNode& n, float x, float y, float px, const FormulaPainter& p, bool paint) {
  const float asc = px * 0.78f, desc = px * 0.24f;
  switch (n.kind) {
    case FormulaNode::Kind::text: {
      if (paint) p.text(x, y - asc, n.text, px);
      return {p.width(n.text, px), asc, desc};
    }
    case FormulaNode::Kind::space: return {px * 0.2f, 0, 0};
    case FormulaNode::Kind::row: {
      FormulaBox b;
      for (const FormulaNode& k : n.kids) {
        const FormulaBox kb = formula_layout(k, x + b.w, y, px, p, paint);
        b.w += kb.w;
        b.asc = std::max(b.asc, kb.asc);
        b.desc = std::max(b.desc, kb.desc);
      }
      if (n.kids.empty()) b.asc = asc * 0.5f;
      return b;
    }
    case FormulaNode::Kind::sum: {
      const float big = px * 1.45f;
      if (paint) p.text(x, y - big * 0.8f, n.text, big);
      return {p.width(n.text, big) + px * 0.1f, big * 0.8f, big * 0.2f};
    }
    case FormulaNode::Kind::script: {
      const FormulaBox base = formula_layout(n.kids[0], x, y, px, p, paint);
      const float sp = px * 0.7f;
      const bool big = n.kids[0].kind == FormulaNode::Kind::sum;
      FormulaBox sub, sup;
      const float sub_y = y + (big ? px * 0.55f : px * 0.25f), sup_y = y - (big ? base.asc * 0.75f : px * 0.42f);
      if (!formula_empty_row(n.kids[1])) sub = formula_layout(n.kids[1], x + base.w, sub_y, sp, p, paint);
      if (!formula_empty_row(n.kids[2])) sup = formula_layout(n.kids[2], x + base.w, sup_y, sp, p, paint);
      FormulaBox b;
      b.w = base.w + std::max(sub.w, sup.w) + px * 0.05f;
      b.asc = std::max(base.asc, sup.w > 0 ? y - sup_y + sup.asc : 0.0f);
      b.desc = std::max(base.desc, sub.w > 0 ? sub_y - y + sub.desc : 0.0f);
      return b;
    }
    case FormulaNode::Kind::frac: {
      const float fp = px * 0.9f, axis = px * 0.3f, gap = px * 0.12f, pad = px * 0.15f;
      const FormulaBox num = formula_layout(n.kids[0], 0, 0, fp, p, false), den = formula_layout(n.kids[1], 0, 0, fp, p, false);
      const float w = std::max(num.w, den.w) + 2 * pad;
      const float bar = y - axis;
      if (paint) {
        formula_layout(n.kids[0], x + (w - num.w) * 0.5f, bar - gap - num.desc, fp, p, true);
        formula_layout(n.kids[1], x + (w - den.w) * 0.5f, bar + gap + den.asc, fp, p, true);
        p.line(x + pad * 0.5f, bar, x + w - pad * 0.5f, bar, std::max(1.0f, px * 0.06f));
      }
      return {w, axis + gap + num.asc + num.desc, den.asc + den.desc + gap - axis};
    }
    case FormulaNode::Kind::sqrt: {
      const FormulaBox in = formula_layout(n.kids[0], 0, 0, px, p, false);
      const float hook = px * 0.55f, gap = px * 0.12f, t = std::max(1.0f, px * 0.06f);
      const float top = y - in.asc - gap, bottom = y + in.desc;
      if (paint) {
        // The radical: a short rise, the long stroke down to the baseline, up to the bar, the bar.
        const float h = bottom - top;
        p.line(x, bottom - h * 0.45f, x + hook * 0.3f, bottom - h * 0.55f, t);
        p.line(x + hook * 0.3f, bottom - h * 0.55f, x + hook * 0.6f, bottom, t * 1.4f);
        p.line(x + hook * 0.6f, bottom, x + hook, top, t);
        p.line(x + hook, top, x + hook + in.w + px * 0.1f, top, t);
        formula_layout(n.kids[0], x + hook + px * 0.05f, y, px, p, true);
      }
      return {hook + in.w + px * 0.15f, in.asc + gap + t, in.desc};
    }
  }
  return {};
}

}  // namespace attnviz
