#include "widgets/figure_paint.h"

#include <algorithm>
#include <type_traits>

#include "widgets/draw.h"

namespace attnviz {

void figure_paint(ImDrawList* dl, const Figure& fig, ImVec2 o, float s) {
  dl->AddRectFilled(o, ImVec2(o.x + fig.width * s, o.y + fig.height * s), rgba_u32(fig.background));
  ImFont* font = ImGui::GetFont();
  auto at = [&](float x, float y) { return ImVec2(o.x + x * s, o.y + y * s); };
  for (const FigureItem& item : fig.items) {
    std::visit(
        [&](const auto& it) {
          using T = std::decay_t<decltype(it)>;
          if constexpr (std::is_same_v<T, FigureRect>) {
            if (it.fill) dl->AddRectFilled(at(it.x, it.y), at(it.x + it.w, it.y + it.h), rgba_u32(*it.fill));
            if (it.stroke) dl->AddRect(at(it.x, it.y), at(it.x + it.w, it.y + it.h), rgba_u32(*it.stroke), 0, 0, it.stroke_width * s);
          } else if constexpr (std::is_same_v<T, FigureLine>) {
            for (size_t i = 1; i < it.points.size(); ++i)
              dl->AddLine(at(it.points[i - 1].x, it.points[i - 1].y), at(it.points[i].x, it.points[i].y), rgba_u32(it.color, it.opacity),
                          std::max(1.0f, it.width * s));
          } else if constexpr (std::is_same_v<T, FigureCircle>) {
            dl->AddCircleFilled(at(it.cx, it.cy), it.r * s, rgba_u32(it.fill));
          } else if constexpr (std::is_same_v<T, FigureText>) {
            if (it.orient != TextOrient::horizontal) return;  // not used by the figures painted here
            const float px = it.px * s;
            const float w = font->CalcTextSizeA(px, 1e9f, 0, it.text.c_str()).x;
            float x = o.x + it.x * s;
            if (it.anchor == TextAnchor::middle) x -= w * 0.5f;
            if (it.anchor == TextAnchor::end) x -= w;
            dl->AddText(font, px, ImVec2(x, o.y + it.y * s), rgba_u32(it.color), it.text.c_str());
            if (it.bold) dl->AddText(font, px, ImVec2(x + std::max(0.5f, s * 0.5f), o.y + it.y * s), rgba_u32(it.color), it.text.c_str());
          } else if constexpr (std::is_same_v<T, FigureColorBar>) {
            constexpr int kSteps = 32;
            for (int i = 0; i < kSteps; ++i) {  // the high end at the top
              const Rgba c = colormap_sample(it.cmap, 1.0f - (static_cast<float>(i) + 0.5f) / kSteps);
              dl->AddRectFilled(at(it.x, it.y + it.h * static_cast<float>(i) / kSteps),
                                at(it.x + it.w, it.y + it.h * static_cast<float>(i + 1) / kSteps), rgba_u32(c));
            }
          }
        },
        item);
  }
}

}  // namespace attnviz
