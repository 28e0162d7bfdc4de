// Where the flow graph's nodes and the query/key picture's points go, and their colours: one
// geometry for the window (widgets/flow_panel, widgets/qk_plot) and for exported figures
// (state/explain_figure.h), so that both show the same picture. Headless; pixels at scale 1.
#pragma once
#include <vector>

#include "analysis/flow_graph.h"
#include "analysis/qk_projection.h"
#include "render/image.h"

namespace attnviz {

struct PlotPoint {
  float x = 0, y = 0;
};

// The flow graph: a column per residual stream (before each layer, after the last), a row per token.
struct FlowGeometry {
  float x0 = 0;     // column 0's x (right of the token labels)
  float span = 0;   // between columns
  float y0 = 0;     // row 0's centre
  float row_h = 0;  // between rows
  PlotPoint node(int column, int position) const { return {x0 + column * span, y0 + position * row_h}; }
};
// left/top: the plot's corner; label_w: the token labels' column; head_h: the column titles' line.
FlowGeometry flow_geometry(float left, float top, float width, float label_w, float row_h, float head_h, int layers);
// An edge's colour: a hue per head (of `heads`), more opaque for a larger share; and its width. On a
// white page (exported figures) the hues are deeper and darker, so that pale ones stay visible.
enum class Backdrop { dark, light };
Rgba flow_edge_color(int head, int heads, float share, Backdrop backdrop = Backdrop::dark);
// An edge as drawn: its head's hue, or, for an attribution edge that pushes against the answer
// (negative share), one slate colour for every head (its size still sets its width and opacity).
Rgba flow_edge_color(const FlowEdge& edge, int heads, Backdrop backdrop = Backdrop::dark);
inline constexpr Rgba kAgainstDark{150, 165, 200, 255}, kAgainstLight{70, 80, 110, 255};
float flow_edge_width(float share);

// The query/key picture: one scale for both axes (a circle stays a circle), every point inside a
// margin of a square of `side`.
struct QKGeometry {
  float left = 0, top = 0, side = 0;
  float cx = 0, cy = 0, scale = 1;
  PlotPoint at(const Mat& points, Eigen::Index i) const {
    return {left + side * 0.5f + (points(i, 0) - cx) * scale, top + side * 0.5f - (points(i, 1) - cy) * scale};
  }
};
QKGeometry qk_geometry(const QKProjection& p, float left, float top, float side);
inline constexpr Rgba kQueryColor{90, 160, 255, 255}, kKeyColor{255, 160, 60, 255};
// The query's k strongest keys in `weights` (Tq, Tk), strongest first.
std::vector<int> strongest_keys(const Mat& weights, int query, int k);

}  // namespace attnviz
