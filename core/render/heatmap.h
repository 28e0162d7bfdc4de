// Lays out a labelled grid of attention heatmaps (one panel per head) as a Figure and draws it into
// an Image on the CPU: the figure behind the CLI's --png / --svg and the app's exports. Values are
// mapped through a colour map; nothing here reads a Trace or computes attention.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"
#include "base/tensor.h"
#include "render/colormap.h"
#include "render/figure.h"
#include "render/image.h"
#include "render/text_raster.h"

namespace attnviz {

struct HeatmapPanel {
  std::string title;
  const Mat* weights = nullptr;  // (T_q, T_k): rows = queries, columns = keys; not owned
  std::string id;                // the cells' panel tag in an SVG; empty: the panel's index
};

struct HeatmapGridSpec {
  std::vector<std::string> row_labels, col_labels;  // query / key tokens (shared by all panels)
  std::vector<HeatmapPanel> panels;
  std::vector<std::shared_ptr<const Mat>> held;  // maps formed for this figure (model/head_map.h), which
                                                 // panels may point into; copies of the spec share them
  std::string caption;              // drawn above the grid, e.g. "layer 1 — 8 heads — scaled_dot"
  int columns = 0;                  // panels per row; 0 = about square
  int cell_px = 22;                 // size of one cell at scale 1
  float scale = 1.0f;               // multiplies every size (export "at a chosen scale")
  Colormap cmap = Colormap::viridis;
  float vmin = 0.0f, vmax = 1.0f;   // value range mapped to the colour map
  ColorScaleSpec color_scale;       // how values spread over it (linear, log, power)
  // Column 0 (the first token, which takes most of every row in large language models) drawn apart:
  // in greys, with a white line after it; the panels' other columns are whatever the maps hold (the
  // caller renormalises them).
  bool first_column_apart = false;
  bool annotate = true;             // print the value in a cell when the cell is big enough to hold it
  bool legend = true;               // colour bar with tick labels
  int highlight_row = -1;           // a query row outlined in every panel (-1: none)
};

inline constexpr int kHeatmapMaxSide = 16384;                      // pixels per side
inline constexpr int64_t kHeatmapMaxBytes = int64_t{256} << 20;    // RGBA bytes

// The whole figure. Errors (checked before any pixel is allocated): no panels, no rows or columns,
// a null matrix or one whose shape disagrees with the labels, bad sizes or value range, or an
// image beyond kHeatmapMaxSide per side or kHeatmapMaxBytes. font == nullptr draws ASCII labels
// with the built-in fallback font (non-ASCII shows as '?').
Result<Image> heatmap_grid_render(const HeatmapGridSpec& spec, const FontRaster* font);
// The same figure as vector items, in pixels at spec.scale (heatmap_grid_render rasterises it at 1),
// with every cell tagged (panel id, row, col, value). The font measures the text.
Result<Figure> heatmap_grid_figure(const HeatmapGridSpec& spec, const FontRaster* font);

// Where panel `panel`'s cell (row, col) lands in the image heatmap_grid_render would draw with the
// same arguments: top-left corner and size (its centre is x + w/2, y + h/2). All zero when the spec
// is invalid or the index is out of range.
struct CellRect {
  int x = 0, y = 0, w = 0, h = 0;
};
CellRect heatmap_grid_cell(const HeatmapGridSpec& spec, const FontRaster* font, int panel, int row, int col);

// A cell's annotation as drawn: two decimals ("0.37"); the short form drops the leading zero
// (".37", "-.37") or, for |v| >= 1, keeps one decimal ("1.0"). The renderer uses the short form
// when the long one does not fit the cell, and leaves exact zeros (masked cells) blank.
std::string heatmap_value_text(float value, bool short_form);

}  // namespace attnviz
