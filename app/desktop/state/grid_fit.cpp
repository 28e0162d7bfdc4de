#include "state/grid_fit.h"

#include <algorithm>

namespace attnviz {

GridFit grid_fit(const GridFitInput& in) {
  GridFit out;
  const float full = std::max({in.value_w, in.column_label_w, in.min_cell});  // room for both, when there is
  out.cell_w =
      in.columns > 0 ? std::clamp((in.avail - in.label_w) / static_cast<float>(in.columns), in.min_cell, full) : full;
  out.values = out.cell_w >= in.value_w;
  out.short_labels = in.column_label_w > out.cell_w;
  out.width = in.label_w + static_cast<float>(in.columns) * out.cell_w;
  out.scrolls = out.width > in.avail;
  return out;
}

}  // namespace attnviz
