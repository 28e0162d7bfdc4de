// Which token labels a heatmap axis shows when its cells are smaller than a line of text: every
// k-th, so that none overlap, and always the ones the view names (the query row in focus, the
// coreference candidates and property word), whose neighbours give way. Sizes in pixels.
#pragma once
#include <vector>

namespace attnviz {

// Labels [0, count) of cells `cell` pixels apart with text `line` pixels high: the indices drawn,
// ascending. kept: indices always drawn (out of range ones ignored).
std::vector<int> axis_labels_shown(int count, float cell, float line, const std::vector<int>& kept);

}  // namespace attnviz
