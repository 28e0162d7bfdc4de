// A plain RGBA8 raster for CPU drawing (heatmap export, CLI --png) and its PNG encoding.
// Drawing primitives clip silently at the edges; nothing here knows about fonts or heatmaps,
// and no GPU or UI code is involved.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace attnviz {

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width*height*4, row-major from the top

  Image() = default;
  Image(int w, int h, Rgba fill);  // negative sizes become 0

  bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < width && y < height; }
  Rgba at(int x, int y) const;        // out of range -> transparent black {0,0,0,0}
  void set(int x, int y, Rgba c);     // ignores out-of-range
  void fill_rect(int x, int y, int w, int h, Rgba c);  // clipped
  // Source-over blend of c at opacity alpha (0..1, times c.a); the destination keeps its alpha
  // channel combined as in ordinary "over" compositing. Clipped.
  void blend(int x, int y, Rgba c, float alpha);
};

// Rec. 709 relative luminance of the (sRGB-encoded) colour, 0..1; used to pick readable text colours.
float rgba_luminance(Rgba c);

// PNG bytes (8-bit RGBA). An empty image is an error.
Result<std::vector<uint8_t>> png_encode(const Image& img);
// Encodes and writes through file_write_atomic, so a failed export never leaves half a file.
Status png_write(const std::string& path, const Image& img);

}  // namespace attnviz
