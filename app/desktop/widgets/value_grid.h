// A grid of labelled value cells, rows down (layers) and columns across (heads, or token positions),
// as "Which heads matter" and patching draw them: each cell coloured by its value, the value printed
// when it fits (else its mark alone), the best cell outlined in orange and a chosen one in white,
// switched-off heads hatched. The width it has decides the cells (state/grid_fit.h); past the
// narrowest it scrolls sideways.
#pragma once
#include <string>
#include <vector>

#include "model/ablation.h"
#include "render/colormap.h"
#include "shell/strings.h"

namespace attnviz {

struct ValueGrid {
  const char* id = "value_grid";
  std::vector<std::vector<float>> values;   // [rows][columns]
  std::vector<std::string> texts;           // row by row, what each cell prints
  std::vector<std::string> marks;           // what a cell too narrow for its text shows ("*" or "")
  std::vector<std::string> column_labels;   // empty: "Head 1", "Head 2", ... (numbers alone when narrow)
  bool diverging = false;                   // colour −1 … 1 on the diverging map (0 white); else 0 … max on magma
  int best_row = -1, best_column = -1;      // outlined in orange
  int selected_row = -1, selected_column = -1;  // outlined in white
  const Ablation* hatched = nullptr;        // rows are layers and columns heads: these heads are hatched
};

struct ValueGridHit {
  int row = -1, column = -1;  // hovered (or clicked)
  bool clicked = false;
};

ValueGridHit value_grid(Lang lang, const ValueGrid& grid);

// A cell's value with fixed decimals and no "-0.00": a value that rounds to nothing reads as 0.
std::string grid_value_text(float value, int decimals);

}  // namespace attnviz
