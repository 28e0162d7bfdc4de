// How a grid of labelled cells (the "Which heads matter" grid: layers down, heads across) fits the
// width it has. Cells are as wide as their widest value and column label when there is room; else
// narrower, down to a minimum: column labels ("Head 16") give way to bare numbers, then the values
// go (each cell's tooltip keeps its value); below the minimum the grid scrolls sideways. Pixels.
#pragma once

namespace attnviz {

struct GridFitInput {
  int columns = 0;
  float avail = 0;           // the width there is
  float label_w = 0;         // the row labels' column ("Layer 12")
  float value_w = 0;         // the widest value a cell prints, with its padding
  float column_label_w = 0;  // the widest column label ("Head 16"), with its padding
  float min_cell = 14;
};

struct GridFit {
  float cell_w = 0;
  bool values = true;         // cells print their values
  bool short_labels = false;  // columns are labelled by number alone
  bool scrolls = false;       // wider than avail even at min_cell
  float width = 0;            // label_w + columns × cell_w
};

GridFit grid_fit(const GridFitInput& in);

}  // namespace attnviz
