// A set of OpenGL textures holding colour-mapped matrices (one texel per cell, or per max-pooled
// block of a long input's map). They are
// re-uploaded only when the data version, colour map or range change, so drawing a frame costs no
// per-cell work on the CPU however many heads are shown.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/no_copy.h"
#include "base/tensor.h"
#include "render/colormap.h"

namespace attnviz {

// Maps with a side longer than this are max-pooled down to it (core/render/downsample.h) before upload.
inline constexpr int kMaxTextureSide = 1024;

class HeatmapTextures : NoCopy {
 public:

  // version identifies the matrices' contents (bump it whenever they change); values in
  // [vmin, vmax] span the colour map. A map with a side over max_side is max-pooled to it (keep
  // max_side at or below the pixels it is drawn on, so that no texel is skipped on screen). No-op
  // when version, colour map, range and max_side are unchanged.
  // `scale` spreads the values over the colour map; `first_column_apart` colours column 0 (the first
  // key, set aside) in greys, as HeatmapGridSpec does.
  void update(uint64_t version, const std::vector<const Mat*>& maps, Colormap cmap, float vmin = 0.0f, float vmax = 1.0f,
              int max_side = kMaxTextureSide, const ColorScaleSpec& scale = {}, bool first_column_apart = false);
  // The same for `count` maps given one at a time by map_of(i), which may form each (a trace that
  // forms its maps on demand): only one is held at a time, pooled and uploaded before the next.
  using MapSource = std::function<std::shared_ptr<const Mat>(size_t)>;
  void update(uint64_t version, size_t count, const MapSource& map_of, Colormap cmap, float vmin = 0.0f,
              float vmax = 1.0f, int max_side = kMaxTextureSide, const ColorScaleSpec& scale = {},
              bool first_column_apart = false);
  // True when update(version, ..., cmap, ..., max_side, scale, apart) would do nothing: lets a caller
  // skip building the matrices.
  bool holds(uint64_t version, Colormap cmap, int max_side, const ColorScaleSpec& scale = {}, bool first_column_apart = false) const {
    return !ids_.empty() && version == version_ && cmap == cmap_ && max_side == max_side_ && scale == scale_ &&
           first_column_apart == apart_;
  }
  unsigned texture(int i) const { return i >= 0 && i < static_cast<int>(ids_.size()) ? ids_[static_cast<size_t>(i)] : 0; }
  int size() const { return static_cast<int>(ids_.size()); }
  void release();  // must run while the GL context is alive

 private:
  std::vector<unsigned> ids_;
  uint64_t version_ = 0;
  Colormap cmap_ = Colormap::viridis;
  float vmin_ = 0.0f, vmax_ = 1.0f;
  int max_side_ = kMaxTextureSide;
  ColorScaleSpec scale_;
  bool apart_ = false;
};

// The texture side for a map drawn `pixels` wide: the largest power of two not above it (so the
// textures are rebuilt only when the drawn size crosses a power of two), between 64 and
// kMaxTextureSide.
int texture_side_for(float pixels);

}  // namespace attnviz
