// The architecture view's diagram: the multi-head attention block (inputs → W^Q, W^K, W^V → split
// into h heads → scaled dot-product per head → Concat → W^O) inside the encoder (or decoder) block
// around it (residuals, FFN, LayerNorm before or after as the model places it), drawn with the
// current model's sizes. Headless: a Figure (the view paints it, the export writes it) and the
// boxes a click opens, each with the view or step that shows its numbers.
#pragma once
#include <vector>

#include "render/figure.h"
#include "state/app_state.h"

namespace attnviz {

struct ArchTarget {
  float x = 0, y = 0, w = 0, h = 0;  // the box, in figure pixels
  View view = View::steps;
  int step = -1;  // View::steps: the lecture step (0-based) it opens
  int head = -1;  // the head it chooses, or -1
};

struct ArchDiagram {
  Figure figure;
  std::vector<ArchTarget> targets;
};

ArchDiagram arch_diagram(const AppState& app, const FontRaster* font);

}  // namespace attnviz
