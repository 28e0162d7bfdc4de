// One heatmap on screen — the only code that draws heatmap cells in the app: a texture of
// colour-mapped values (or, for a derived map with no texture, the values painted cell by cell),
// optional query/key labels (keys rotated; when cells are smaller than a line of text the labels
// shrink to the cell, down to kHeatmapMinLabelPx, before any gives way), values printed in large
// cells, marks on masked cells,
// a highlighted row, and hit-testing. It reports what the mouse did; the caller decides what that means.
#pragma once
#include <vector>

#include <imgui.h>

#include "model/trace.h"
#include "render/colormap.h"

namespace attnviz {

struct AppState;

struct HeatmapWidget {
  unsigned texture = 0;                           // 0: paint `values` cell by cell (small derived maps)
  const Mat* values = nullptr;                    // (rows, cols): coloured, printed in cells, hit-tested
  const std::vector<TraceToken>* rows = nullptr;  // query labels (drawn when row_labels)
  const std::vector<TraceToken>* cols = nullptr;  // key labels (drawn when col_labels)
  const Mat* mask = nullptr;                      // additive mask: -inf cells get a diagonal mark
  bool hatched = false;                           // a switched-off head: hatching over the cells, under the values
  ImVec2 origin;                                  // top-left of the cells
  float cell = 8;                                 // pixels per cell
  bool row_labels = false, col_labels = false;
  float row_label_w = 0, col_label_h = 0;         // space left of / above the cells for labels
  float col_label_gap = 0;                        // key labels end this far above the cells (e.g. a title)
  bool annotate = false;                          // print values when cells are large enough
  Colormap cmap = Colormap::viridis;              // the texture's colours: painted cells, annotation contrast
  float vmin = 0, vmax = 1;
  ColorScaleSpec color_scale;                     // how values spread over the colour map (the texture's too)
  bool first_column_apart = false;                // matrix column 0 is the first key set aside: a line after it
  int highlight_row = -1;                         // in matrix rows; its label is always drawn
  std::vector<int> keep_col_labels;               // key columns (matrix) whose labels are always drawn
                                                  // when cells are too small for every label
  std::vector<int> keep_row_labels;               // query rows (matrix) likewise, beside highlight_row
  const char* row_title = nullptr;                // axis titles ("Query", "Key"), drawn in the corner
  const char* col_title = nullptr;                // left of the key labels and above the query labels
  const char* id = "heatmap";                     // ImGui id, unique within the window
  // A window into the matrix (zoom and pan on long inputs): rows [row0, row0 + nrows) and columns
  // [col0, col0 + ncols); -1: to the end. The texture must show exactly this window; labels, marks,
  // annotations and hits follow it, and hits are reported in matrix rows and columns.
  int row0 = 0, col0 = 0, nrows = -1, ncols = -1;
};

struct HeatmapHit {
  bool hovered = false;
  int row = -1, col = -1;     // the hovered cell
  bool clicked = false, ctrl_clicked = false, double_clicked = false;
  int label_row_clicked = -1;  // a query label was clicked
  // What was drawn (for --layout-report): the matrix rows and columns whose labels were drawn, the
  // labels' font size, and whether the cells carry their values.
  std::vector<int> rows_labelled, cols_labelled;
  ImVec2 cells_origin;  // the top-left of cell (0, 0), as w.origin
  float label_px = 0;
  bool numbers = false;
};

HeatmapHit heatmap_widget(const HeatmapWidget& w);

// The smallest cell a view allows in presentation mode: `at_projector` pixels at 1280 x 800, in
// proportion on smaller screens (the display's size, whole pixels).
float heatmap_projector_cell(float at_projector);

// The coreference roles ("it", the two candidates, the property word) as the labels the widget keeps
// when cells are too small for every one, when the shown answer is a coreference answer.
void heatmap_keep_coref_labels(const AppState& app, HeatmapWidget& w);

// The smallest token label drawn, in pixels at scale 1: below it labels give way (every k-th, and
// always the ones the view keeps) rather than shrink further.
inline constexpr float kHeatmapMinLabelPx = 9.0f;

// Width of the widest label (capped), plus a margin: the room row or column labels need.
float heatmap_label_extent(const std::vector<TraceToken>& tokens);

}  // namespace attnviz
