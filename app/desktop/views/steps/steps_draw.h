// Drawing pieces of the step-by-step view: tables of matrix rows (first dims, "…"), value bars, a
// matrix drawn cell by cell (for scores, which have no texture, and (T, C) matrices), and the bar
// of NH head blocks. They draw what they are given and report the mouse; the caller words tooltips.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

#include "model/trace.h"
#include "render/colormap.h"

namespace attnviz {

inline constexpr ImU32 kStepsAccent = IM_COL32(255, 160, 30, 255);  // the query, as in the Heads view
inline constexpr ImU32 kStepsHidden = IM_COL32(235, 120, 70, 255);  // masked keys

ImFont* steps_large_font();  // the largest font in the atlas (the presentation font)
ImU32 steps_head_color(int head, int n_heads, bool chosen);

// Keeps the next item on this line when `next_width` more pixels still fit, else starts a new line.
void steps_flow(float next_width);

float steps_number_width(int decimals);  // of "-0.0000" at that precision
// Numbers per block that fit `avail` beside a label column, in [1, max_dims].
int steps_dims_fit(float avail, float label_w, int groups, int decimals, int max_dims);

// Right-aligns text (a number) in the current table cell.
void steps_cell_right(const std::string& text, ImU32 color = 0);

struct TableGroup {
  std::string prefix;      // column headers are prefix + column index ("q0", "q1", …)
  const Mat* m = nullptr;
  int col0 = 0;            // first column shown
  int col_end = -1;        // where the group's columns end (exclusive), -1: m->cols(); "…" when more remain
  int dims = 4;
  bool highlight = false;  // tint the block (the chosen head's columns)
};
struct NumberTable {
  const char* id = "table";
  const char* label_header = "";
  const std::vector<TraceToken>* labels = nullptr;  // one per row
  std::vector<TableGroup> groups;
  int highlight_row = -1;
  int decimals = 4;
};
void steps_number_table(const NumberTable& t);

// A bar on the current line, `width` wide: v over [0, max_abs], or over [-max_abs, max_abs] around a
// centre line when signed_axis.
void steps_bar(float v, float max_abs, bool signed_axis, float width, ImU32 color);

struct MatrixMap {
  const char* id = "map";
  const Mat* values = nullptr;
  const Mat* mask = nullptr;                      // additive: -inf cells are drawn as hidden
  const std::vector<TraceToken>* rows = nullptr;  // row labels, or none
  const std::vector<TraceToken>* cols = nullptr;  // column labels (rotated), or none
  float cell_w = 8, cell_h = 8;                   // below 1 px, cells are pooled per pixel
  float vmin = 0, vmax = 1;
  Colormap cmap = Colormap::viridis;
  int highlight_row = -1;
  int block = 0;                                  // > 0: a separator every `block` columns
  int frame_first = -1, frame_last = -1;          // columns framed in the accent colour
  int max_rects = 5000;                           // pooling budget: rectangles drawn at most
  bool legend = true;                             // a colour bar from vmin to vmax under the map
};
struct MatrixHit {
  bool hovered = false;
  int row = -1, col = -1;
};
// Lays the map (and its labels, and its colour bar) out at the cursor and moves the cursor below it.
MatrixHit steps_matrix_map(const MatrixMap& m);
// The room labels take: row labels to the left, column labels above.
ImVec2 steps_matrix_label_room(const MatrixMap& m);

struct HeadBarHit {
  int hovered = -1, clicked = -1;
};
// NH coloured blocks filling `size`; the chosen one bright and framed.
HeadBarHit steps_head_bar(int n_heads, int chosen, ImVec2 size, const char* id);

}  // namespace attnviz
