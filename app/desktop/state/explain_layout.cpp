#include "state/explain_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnviz {

FlowGeometry flow_geometry(float left, float top, float width, float label_w, float row_h, float head_h, int layers) {
  FlowGeometry g;
  g.x0 = left + label_w;
  g.span = std::max(40.0f, width - label_w - 60) / static_cast<float>(std::max(layers, 1));
  g.y0 = top + head_h + row_h * 0.5f;
  g.row_h = row_h;
  return g;
}

Rgba flow_edge_color(int head, int heads, float share, Backdrop backdrop) {
  // HSV (h, s, v) to RGB: a hue per head, as ImGui's ImColor::HSV makes it.
  const bool light = backdrop == Backdrop::light;
  const float h = std::fmod(static_cast<float>(head) / static_cast<float>(std::max(heads, 1)), 1.0f) * 6.0f, s = light ? 0.9f : 0.65f;
  const float v = light ? 0.75f : 1.0f;
  const int sector = static_cast<int>(h);
  const float f = h - static_cast<float>(sector), p = 1 - s, q = 1 - s * f, t = 1 - s * (1 - f);
  float r = 1, g = t, b = p;
  switch (sector % 6) {
    case 0: r = 1, g = t, b = p; break;
    case 1: r = q, g = 1, b = p; break;
    case 2: r = p, g = 1, b = t; break;
    case 3: r = p, g = q, b = 1; break;
    case 4: r = t, g = p, b = 1; break;
    default: r = 1, g = p, b = q; break;
  }
  const auto byte = [](float v) { return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return {byte(r * v), byte(g * v), byte(b * v), byte(0.35f + 0.65f * share)};
}

Rgba flow_edge_color(const FlowEdge& edge, int heads, Backdrop backdrop) {
  const float size = std::min(std::abs(edge.share), 1.0f);
  if (edge.share >= 0) return flow_edge_color(edge.head, heads, size, backdrop);
  Rgba c = backdrop == Backdrop::light ? kAgainstLight : kAgainstDark;
  c.a = static_cast<uint8_t>(std::lround((0.35f + 0.65f * size) * 255.0f));
  return c;
}

float flow_edge_width(float share) { return 1.0f + 5.0f * std::min(std::abs(share), 1.0f); }

QKGeometry qk_geometry(const QKProjection& p, float left, float top, float side) {
  float lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
  for (const Mat* m : {&p.queries, &p.keys})
    for (Eigen::Index i = 0; i < m->rows(); ++i) {
      lo_x = std::min(lo_x, (*m)(i, 0));
      hi_x = std::max(hi_x, (*m)(i, 0));
      lo_y = std::min(lo_y, (*m)(i, 1));
      hi_y = std::max(hi_y, (*m)(i, 1));
    }
  QKGeometry g;
  g.left = left;
  g.top = top;
  g.side = side;
  const float span = std::max({hi_x - lo_x, hi_y - lo_y, 1e-6f}), margin = 0.1f * side;
  g.scale = (side - 2 * margin) / span;
  g.cx = 0.5f * (lo_x + hi_x);
  g.cy = 0.5f * (lo_y + hi_y);
  return g;
}

std::vector<int> strongest_keys(const Mat& weights, int query, int k) {
  if (query < 0 || query >= weights.rows()) return {};
  std::vector<int> order(static_cast<size_t>(weights.cols()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return weights(query, a) > weights(query, b); });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(std::max(k, 0))));
  return order;
}

}  // namespace attnviz
