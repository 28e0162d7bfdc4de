// One column of boxes, top to bottom, as the data flows; the heads side by side; a bracket says
// how many times the block repeats. Sizes come from the model shown (app_model_config) and the
// sentence's length n from the trace when there is one.
#include "views/arch/arch_diagram.h"

#include <algorithm>
#include <string>

#include "analysis/lecture.h"
#include "state/figure_page.h"
#include "state/model_source.h"
#include "state/view_figure.h"

namespace attnviz {

namespace {

constexpr Rgba kBoxFill{240, 244, 250, 255}, kBoxStroke{90, 110, 140, 255}, kHeadFill{255, 236, 210, 255},
    kHeadStroke{220, 130, 30, 255}, kNormFill{232, 244, 232, 255}, kArrow{110, 110, 110, 255};
constexpr float kWidth = 720, kBoxW = 420, kTitlePx = 15, kSubPx = 12;

struct Builder {
  const FontRaster* font;
  ArchDiagram out;
  float y = 16;
  const float cx = kWidth * 0.5f;

  void text(float x, float ty, const std::string& s, float px, Rgba color, TextAnchor anchor, bool bold = false) {
    FigureText t{x, ty, s, px, color, anchor};
    t.bold = bold;
    out.figure.items.push_back(t);
  }
  void line(std::vector<FigureLine::Point> points, Rgba color, float width) {
    FigureLine l;
    l.points = std::move(points);
    l.color = color;
    l.width = width;
    out.figure.items.push_back(std::move(l));
  }
  void arrow(float x, float y0, float y1) {
    line({{x, y0}, {x, y1}}, kArrow, 1.5f);
    line({{x - 4, y1 - 6}, {x, y1}, {x + 4, y1 - 6}}, kArrow, 1.5f);
  }
  // A box centred at x, two lines (title, sizes); returns its bottom.
  float box(float x, float w, const std::string& title, const std::string& sub, Rgba fill, Rgba stroke, ArchTarget target) {
    const float h = sub.empty() ? 28 : 44;
    FigureRect r;
    r.x = x - w * 0.5f;
    r.y = y;
    r.w = w;
    r.h = h;
    r.fill = fill;
    r.stroke = stroke;
    r.stroke_width = 1.5f;
    out.figure.items.push_back(r);
    text(x, y + 5, title, kTitlePx, kPageInk, TextAnchor::middle, true);
    if (!sub.empty()) text(x, y + 24, sub, kSubPx, kPageDim, TextAnchor::middle);
    target.x = r.x;
    target.y = r.y;
    target.w = w;
    target.h = h;
    if (target.step >= 0 || target.view != View::steps) out.targets.push_back(target);
    return y + h;
  }
  // A full-width box in the column, with an arrow to the next one.
  void step(const std::string& title, const std::string& sub, ArchTarget target, Rgba fill = kBoxFill) {
    y = box(cx, kBoxW, title, sub, fill, kBoxStroke, target);
    arrow(cx, y, y + 18);
    y += 18;
  }
};

std::string num(long v) { return std::to_string(v); }

ArchTarget at_step(LectureStep s, int head = -1) { return ArchTarget{0, 0, 0, 0, View::steps, static_cast<int>(s), head}; }

}  // namespace

ArchDiagram arch_diagram(const AppState& app, const FontRaster* font) {
  const Lang L = app.lang;
  const ModelConfig& c = app_model_config(app);
  const int n = app.trace ? app.trace->n_queries() : 0;
  const std::string ns = n > 0 ? num(n) : "n";
  const int h = c.n_heads, dk = c.head_size(), d = c.d_model;
  const bool pre = c.norm == NormPlacement::pre;
  const std::string norm = c.norm_kind == NormKind::rms_norm ? "RMSNorm" : "LayerNorm";
  Builder b{font, {}};
  b.out.figure.width = kWidth;

  b.text(16, b.y, tr_format(L, Str::arch_title, c.n_layers, h, d), 17, kPageInk, TextAnchor::start, true);
  b.y += 26;
  b.text(16, b.y, tr(L, pre ? Str::arch_pre_norm : Str::arch_post_norm), kSubPx, kPageDim, TextAnchor::start);
  b.y += 26;

  b.step(tr(L, Str::arch_input), "X: " + ns + " × d_model = " + ns + " × " + num(d), at_step(LectureStep::input));
  const float block_top = b.y - 8;
  if (pre) b.step(norm, tr(L, Str::arch_norm_before), ArchTarget{}, kNormFill);
  // W^Q, W^K, W^V side by side.
  {
    const float w = (kBoxW - 20) / 3, top = b.y;
    const char* names[] = {"W^Q", "W^K", "W^V"};
    float bottom = top;
    for (int i = 0; i < 3; ++i) {
      b.y = top;
      bottom = b.box(b.cx - kBoxW * 0.5f + w * 0.5f + (w + 10) * static_cast<float>(i), w, names[i],
                     num(d) + " × " + num(i == 0 ? d : c.kv_dim()), kBoxFill, kBoxStroke, at_step(LectureStep::qkv));
    }
    b.y = bottom;
    b.arrow(b.cx, b.y, b.y + 18);
    b.y += 18;
  }
  b.step(tr_format(L, Str::arch_split, h), "(B, " + ns + ", " + num(d) + ") → view (B, " + ns + ", " + num(h) + ", " + num(dk) +
                                              ") → transpose (B, " + num(h) + ", " + ns + ", " + num(dk) + ")",
         at_step(LectureStep::head_split));
  // The heads: up to 8 boxes, then "…".
  {
    const int shown = std::min(h, 8);
    const float gap = 8, w = std::min(96.0f, (kBoxW + 160 - gap * static_cast<float>(shown - 1)) / static_cast<float>(shown));
    const float total = w * static_cast<float>(shown) + gap * static_cast<float>(shown - 1);
    const float top = b.y;
    float bottom = top;
    for (int i = 0; i < shown; ++i) {
      b.y = top;
      const bool last_of_many = i == shown - 1 && h > shown;
      const int head = last_of_many ? h - 1 : i;
      bottom = b.box(b.cx - total * 0.5f + w * 0.5f + (w + gap) * static_cast<float>(i), w,
                     (last_of_many ? "… " : "") + std::string(tr(L, Str::head)) + " " + num(head + 1), "", kHeadFill,
                     kHeadStroke, at_step(LectureStep::softmax, head));
    }
    b.y = bottom + 4;
    b.text(b.cx, b.y, "head_i = softmax(Q_i K_i^T / √d_k) V_i :  " + ns + " × " + num(dk), kSubPx, kPageDim, TextAnchor::middle);
    b.y += 18;
    b.arrow(b.cx, b.y, b.y + 14);
    b.y += 14;
  }
  b.step("Concat(head_1, …, head_h)", ns + " × h·d_v = " + ns + " × " + num(h * dk), at_step(LectureStep::concat));
  b.step("W^O", "h·d_v × d_model = " + num(h * dk) + " × " + num(d), at_step(LectureStep::out_proj));
  b.step(tr(L, Str::arch_residual_attention), "x + MultiHead(…)", ArchTarget{});
  if (!pre) b.step(norm, tr(L, Str::arch_norm_after), ArchTarget{}, kNormFill);
  if (c.d_ff > 0) {
    if (pre) b.step(norm, tr(L, Str::arch_norm_before), ArchTarget{}, kNormFill);
    b.step(tr(L, Str::arch_ffn), num(d) + " → " + num(c.d_ff) + " → " + num(d) + (c.gated_ffn ? " (SwiGLU)" : ""), ArchTarget{});
    b.step(tr(L, Str::arch_residual_ffn), "x + FFN(…)", ArchTarget{});
    if (!pre) b.step(norm, tr(L, Str::arch_norm_after), ArchTarget{}, kNormFill);
  }
  const float block_bottom = b.y - 12;
  // The bracket: this block, L times.
  const float bx = b.cx + kBoxW * 0.5f + 36;
  b.line({{bx - 10, block_top}, {bx, block_top}, {bx, block_bottom}, {bx - 10, block_bottom}}, kHeadStroke, 2.0f);
  b.text(bx + 6, (block_top + block_bottom) * 0.5f - 10, "× " + num(c.n_layers), 16, kHeadStroke, TextAnchor::start, true);
  b.text(bx + 6, (block_top + block_bottom) * 0.5f + 10, tr(L, c.causal || app.mask.causal ? Str::arch_decoder : Str::arch_encoder),
         kSubPx, kPageDim, TextAnchor::start);
  if (c.final_norm) b.step(norm, tr(L, Str::arch_final_norm), ArchTarget{}, kNormFill);
  b.y = b.box(b.cx, kBoxW, tr(L, Str::arch_output), ns + " × " + num(d), kBoxFill, kBoxStroke, ArchTarget{0, 0, 0, 0, View::heads, -1, -1});
  b.out.figure.height = b.y + 16;
  return std::move(b.out);
}

Result<Figure> arch_figure(const AppState& app, const FontRaster* font) { return arch_diagram(app, font).figure; }

}  // namespace attnviz
