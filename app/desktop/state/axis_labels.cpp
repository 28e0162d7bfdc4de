#include "state/axis_labels.h"

#include <cmath>
#include <cstdlib>

namespace attnviz {

std::vector<int> axis_labels_shown(int count, float cell, float line, const std::vector<int>& kept) {
  const float room = line * 0.85f;  // a label needs most of a line; rotated key labels alike
  const int step = cell >= room || cell <= 0 ? 1 : static_cast<int>(std::ceil(room / cell));
  std::vector<int> shown;
  for (int i = 0; i < count; ++i) {
    bool keep = false, crowded = false;
    for (int k : kept) {
      if (k < 0 || k >= count) continue;
      if (k == i)
        keep = true;
      else if (static_cast<float>(std::abs(i - k)) * cell < room)
        crowded = true;
    }
    if (keep || (i % step == 0 && !crowded)) shown.push_back(i);
  }
  return shown;
}

}  // namespace attnviz
