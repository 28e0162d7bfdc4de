// Image primitives and PNG encoding through stb_image_write (header-only, compiled here with
// static linkage so its symbols cannot clash with another copy of stb in the app).
#include "render/image.h"

#include <algorithm>
#include <cmath>

#include "base/file_io.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb_image_write.h>

namespace attnviz {

Image::Image(int w, int h, Rgba fill) : width(std::max(w, 0)), height(std::max(h, 0)) {
  rgba.resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
  for (size_t i = 0; i < rgba.size(); i += 4) {
    rgba[i] = fill.r;
    rgba[i + 1] = fill.g;
    rgba[i + 2] = fill.b;
    rgba[i + 3] = fill.a;
  }
}

Rgba Image::at(int x, int y) const {
  if (!contains(x, y)) return Rgba{0, 0, 0, 0};
  const uint8_t* p = &rgba[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4];
  return Rgba{p[0], p[1], p[2], p[3]};
}

void Image::set(int x, int y, Rgba c) {
  if (!contains(x, y)) return;
  uint8_t* p = &rgba[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 4];
  p[0] = c.r;
  p[1] = c.g;
  p[2] = c.b;
  p[3] = c.a;
}

void Image::fill_rect(int x, int y, int w, int h, Rgba c) {
  // Clip in 64-bit so x + w cannot overflow for huge requests.
  const int64_t x0 = std::max<int64_t>(x, 0), y0 = std::max<int64_t>(y, 0);
  const int64_t x1 = std::min<int64_t>(int64_t{x} + w, width), y1 = std::min<int64_t>(int64_t{y} + h, height);
  for (int64_t yy = y0; yy < y1; ++yy)
    for (int64_t xx = x0; xx < x1; ++xx) set(static_cast<int>(xx), static_cast<int>(yy), c);
}

void Image::blend(int x, int y, Rgba c, float alpha) {
  if (!contains(x, y) || !(alpha > 0.0f)) return;
  const float a = std::min(alpha, 1.0f) * (static_cast<float>(c.a) / 255.0f);
  if (a <= 0.0f) return;
  const Rgba d = at(x, y);
  auto mix = [a](uint8_t src, uint8_t dst) {
    return static_cast<uint8_t>(std::lround(static_cast<float>(src) * a + static_cast<float>(dst) * (1.0f - a)));
  };
  const float out_a = a + (static_cast<float>(d.a) / 255.0f) * (1.0f - a);
  set(x, y, Rgba{mix(c.r, d.r), mix(c.g, d.g), mix(c.b, d.b), static_cast<uint8_t>(std::lround(out_a * 255.0f))});
}

float rgba_luminance(Rgba c) {
  return (0.2126f * static_cast<float>(c.r) + 0.7152f * static_cast<float>(c.g) + 0.0722f * static_cast<float>(c.b)) / 255.0f;
}

namespace {

void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<uint8_t>*>(context);
  const auto* bytes = static_cast<const uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

}  // namespace

Result<std::vector<uint8_t>> png_encode(const Image& img) {
  if (img.width <= 0 || img.height <= 0) return make_error("cannot encode an empty image as PNG");
  if (img.rgba.size() != static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 4)
    return make_error("image pixel buffer does not match its size " + std::to_string(img.width) + "x" +
                      std::to_string(img.height));
  // stb works in int; its stride is width*4, so very wide images must be refused up front.
  if (img.width > (1 << 28) || img.height > (1 << 28)) return make_error("image too large to encode as PNG");
  std::vector<uint8_t> out;
  const int ok = stbi_write_png_to_func(append_bytes, &out, img.width, img.height, 4, img.rgba.data(), img.width * 4);
  if (!ok || out.empty()) return make_error("PNG encoding failed (out of memory?)");
  return out;
}

Status png_write(const std::string& path, const Image& img) {
  auto bytes = png_encode(img);
  if (!bytes) return make_error(bytes.error());
  return file_write_atomic(path, std::span<const uint8_t>(*bytes));
}

}  // namespace attnviz
