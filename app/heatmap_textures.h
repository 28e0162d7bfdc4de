// One OpenGL texture per head of the shown layer, holding the colour-mapped weights (one texel
// per cell). They are re-uploaded only when the trace, layer or colour map change, so drawing a
// frame costs no per-cell work on the CPU.
#pragma once
#include <cstdint>
#include <vector>

#include "core/colormap.h"
#include "core/trace.h"

namespace attnviz {

class HeatmapTextures {
 public:
  HeatmapTextures() = default;
  ~HeatmapTextures();
  HeatmapTextures(const HeatmapTextures&) = delete;
  HeatmapTextures& operator=(const HeatmapTextures&) = delete;

  // version identifies the trace (it changes whenever a new trace is installed); no-op when
  // version, layer and colour map are unchanged.
  void update(const Trace& trace, uint64_t version, int layer, Colormap cmap);
  unsigned texture(int head) const { return head >= 0 && head < static_cast<int>(ids_.size()) ? ids_[head] : 0; }
  void release();  // must run while the GL context is alive

 private:
  std::vector<unsigned> ids_;
  uint64_t version_ = 0;
  int layer_ = -1;
  Colormap cmap_ = Colormap::viridis;
};

}  // namespace attnviz
