// GL 1.1 calls only (glTexImage2D etc.), which libGL exports directly: no loader needed here.
#include "widgets/heatmap_textures.h"

#include <GL/gl.h>
#include <omp.h>

#include <algorithm>

#include "render/downsample.h"

namespace attnviz {

void HeatmapTextures::release() {
  if (!ids_.empty()) glDeleteTextures(static_cast<GLsizei>(ids_.size()), ids_.data());
  ids_.clear();
  version_ = 0;
}

int texture_side_for(float pixels) {
  int side = 64;
  while (side * 2 <= pixels && side * 2 <= kMaxTextureSide) side *= 2;
  return side;
}

void HeatmapTextures::update(uint64_t version, const std::vector<const Mat*>& maps, Colormap cmap, float vmin, float vmax,
                             int max_side, const ColorScaleSpec& scale, bool first_column_apart) {
  update(version, maps.size(), [&](size_t i) { return std::shared_ptr<const Mat>(std::shared_ptr<const Mat>(), maps[i]); },
         cmap, vmin, vmax, max_side, scale, first_column_apart);
}

void HeatmapTextures::update(uint64_t version, size_t count, const MapSource& map_of, Colormap cmap, float vmin,
                             float vmax, int max_side, const ColorScaleSpec& scale, bool first_column_apart) {
  if (version == version_ && cmap == cmap_ && vmin == vmin_ && vmax == vmax_ && max_side == max_side_ &&
      scale == scale_ && first_column_apart == apart_ && ids_.size() == count)
    return;
  release();
  version_ = version;
  max_side_ = max_side;
  cmap_ = cmap;
  vmin_ = vmin;
  vmax_ = vmax;
  scale_ = scale;
  apart_ = first_column_apart;
  ids_.resize(count);
  if (ids_.empty()) return;
  glGenTextures(static_cast<GLsizei>(ids_.size()), ids_.data());
  // The pixels of a batch of maps in parallel (a trace that forms its maps on demand forms each here:
  // tens of milliseconds a map at 2,000 tokens), then their uploads, which GL takes on this thread.
  struct Pixels {
    Eigen::Index rows = 0, cols = 0;
    std::vector<uint8_t> rgba;
  };
  const size_t batch = 2 * static_cast<size_t>(std::max(1, omp_get_max_threads()));
  std::vector<Pixels> done(batch);
  for (size_t first = 0; first < count; first += batch) {
    const int n = static_cast<int>(std::min(batch, count - first));
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int k = 0; k < n; ++k) {
      const std::shared_ptr<const Mat> map = map_of(first + static_cast<size_t>(k));
      // Long inputs: one texel per max-pooled block, so a (4096, 4096) map costs 4 MB, not 64 MB,
      // and no peak is lost. The widget stretches the texture over the cells either way.
      Mat pooled;
      if (map->rows() > max_side || map->cols() > max_side) pooled = downsample_max(*map, max_side, max_side);
      const Mat& w = pooled.size() > 0 ? pooled : *map;
      Pixels& px = done[static_cast<size_t>(k)];
      px.rows = w.rows();
      px.cols = w.cols();
      px.rgba.resize(static_cast<size_t>(w.size()) * 4);
      // The first key apart only while each texel column is one key (a pooled map mixes it with others).
      const bool apart = first_column_apart && w.cols() == map->cols();
      for (Eigen::Index r = 0; r < w.rows(); ++r)
        for (Eigen::Index c = 0; c < w.cols(); ++c) {
          const Rgba col = colormap_color(apart && c == 0 ? Colormap::high_contrast : cmap, scale, w(r, c), vmin, vmax);
          uint8_t* p = &px.rgba[static_cast<size_t>(r * w.cols() + c) * 4];
          p[0] = col.r;
          p[1] = col.g;
          p[2] = col.b;
          p[3] = 255;
        }
    }
    for (int k = 0; k < n; ++k) {
      const Pixels& px = done[static_cast<size_t>(k)];
      glBindTexture(GL_TEXTURE_2D, ids_[first + static_cast<size_t>(k)]);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(px.cols), static_cast<GLsizei>(px.rows), 0, GL_RGBA,
                   GL_UNSIGNED_BYTE, px.rgba.data());
    }
  }
}

}  // namespace attnviz
