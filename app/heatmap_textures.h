// A set of OpenGL textures holding colour-mapped matrices (one texel per cell). They are
// re-uploaded only when the data version, colour map or range change, so drawing a frame costs no
// per-cell work on the CPU however many heads are shown.
#pragma once
#include <cstdint>
#include <vector>

#include "core/colormap.h"
#include "core/tensor.h"

namespace attnviz {

class HeatmapTextures {
 public:
  HeatmapTextures() = default;
  HeatmapTextures(const HeatmapTextures&) = delete;
  HeatmapTextures& operator=(const HeatmapTextures&) = delete;

  // version identifies the matrices' contents (bump it whenever they change); values in
  // [vmin, vmax] span the colour map. No-op when version, colour map and range are unchanged.
  void update(uint64_t version, const std::vector<const Mat*>& maps, Colormap cmap, float vmin = 0.0f, float vmax = 1.0f);
  unsigned texture(int i) const { return i >= 0 && i < static_cast<int>(ids_.size()) ? ids_[static_cast<size_t>(i)] : 0; }
  int size() const { return static_cast<int>(ids_.size()); }
  void release();  // must run while the GL context is alive

 private:
  std::vector<unsigned> ids_;
  uint64_t version_ = 0;
  Colormap cmap_ = Colormap::viridis;
  float vmin_ = 0.0f, vmax_ = 1.0f;
};

}  // namespace attnviz
