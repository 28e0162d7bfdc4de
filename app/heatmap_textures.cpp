// GL 1.1 calls only (glTexImage2D etc.), which libGL exports directly: no loader needed here.
#include "app/heatmap_textures.h"

#include <GL/gl.h>

namespace attnviz {

HeatmapTextures::~HeatmapTextures() = default;  // textures die with the context; release() is explicit

void HeatmapTextures::release() {
  if (!ids_.empty()) glDeleteTextures(static_cast<GLsizei>(ids_.size()), ids_.data());
  ids_.clear();
  version_ = 0;
}

void HeatmapTextures::update(const Trace& trace, uint64_t version, int layer, Colormap cmap) {
  if (version == version_ && layer == layer_ && cmap == cmap_) return;
  release();
  version_ = version;
  layer_ = layer;
  cmap_ = cmap;
  const auto& heads = trace.layers[static_cast<size_t>(layer)].attn.heads;
  ids_.resize(heads.size());
  glGenTextures(static_cast<GLsizei>(ids_.size()), ids_.data());
  std::vector<uint8_t> pixels;
  for (size_t h = 0; h < heads.size(); ++h) {
    const Mat& w = heads[h].weights;
    pixels.resize(static_cast<size_t>(w.size()) * 4);
    for (Eigen::Index i = 0; i < w.rows(); ++i)
      for (Eigen::Index j = 0; j < w.cols(); ++j) {
        const Rgba c = colormap_sample(cmap, w(i, j));
        uint8_t* p = &pixels[static_cast<size_t>(i * w.cols() + j) * 4];
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
        p[3] = 255;
      }
    glBindTexture(GL_TEXTURE_2D, ids_[h]);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(w.cols()), static_cast<GLsizei>(w.rows()), 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, pixels.data());
  }
}

}  // namespace attnviz
