// Anchor tables for the colour maps. Nine evenly spaced anchors are enough for a smooth ramp at
// heatmap sizes; every table's luminance rises monotonically, which the tests check.
#include "render/colormap.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "base/enum_names.h"

namespace attnviz {

namespace {

using Anchors = std::array<uint32_t, 9>;  // 0xRRGGBB at t = 0, 1/8, ..., 1

constexpr Anchors kViridis{0x440154, 0x472D7B, 0x3B528B, 0x2C728E, 0x21918C,
                           0x28AE80, 0x5EC962, 0xADDC30, 0xFDE725};
constexpr Anchors kMagma{0x000004, 0x1C1044, 0x4F127B, 0x812581, 0xB5367A,
                         0xE55064, 0xFB8761, 0xFEC287, 0xFCFDBF};

// Diverging: luminance falls away from the white middle on both sides (it is not monotone).
constexpr Anchors kDiverging{0x1D4E89, 0x3A7BBF, 0x7FB0DA, 0xC4DDEE, 0xF7F7F7,
                             0xF4C6B4, 0xE2866F, 0xC1443F, 0x8E1020};

constexpr EnumNames<Colormap, 4> kNames{{
    {Colormap::viridis, "viridis"}, {Colormap::magma, "magma"}, {Colormap::high_contrast, "high_contrast"},
    {Colormap::diverging, "diverging"}}};

constexpr EnumNames<ColorScale, 3> kScaleNames{
    {{ColorScale::linear, "linear"}, {ColorScale::log, "log"}, {ColorScale::power, "power"}}};

// The log scale's lowest value: the floor's share of vmax, never below vmin when vmin is positive.
float log_low(const ColorScaleSpec& s, float vmin, float vmax) { return std::max(vmin, s.floor * vmax); }

uint8_t channel(uint32_t rgb, int shift) { return static_cast<uint8_t>((rgb >> shift) & 0xFF); }

uint8_t lerp_u8(uint8_t a, uint8_t b, float f) {
  return static_cast<uint8_t>(std::lround(static_cast<float>(a) + (static_cast<float>(b) - static_cast<float>(a)) * f));
}

Rgba sample_anchors(const Anchors& table, float t) {
  const float pos = t * static_cast<float>(table.size() - 1);
  const size_t i = std::min(static_cast<size_t>(pos), table.size() - 2);
  const float f = pos - static_cast<float>(i);
  const uint32_t a = table[i], b = table[i + 1];
  return Rgba{lerp_u8(channel(a, 16), channel(b, 16), f), lerp_u8(channel(a, 8), channel(b, 8), f),
              lerp_u8(channel(a, 0), channel(b, 0), f), 255};
}

}  // namespace

Rgba colormap_sample(Colormap map, float t) {
  if (std::isnan(t)) return Rgba{128, 128, 128, 255};
  t = std::clamp(t, 0.0f, 1.0f);
  switch (map) {
    case Colormap::viridis: return sample_anchors(kViridis, t);
    case Colormap::magma: return sample_anchors(kMagma, t);
    case Colormap::diverging: return sample_anchors(kDiverging, t);
    case Colormap::high_contrast: {
      const uint8_t v = static_cast<uint8_t>(std::lround(255.0f * (1.0f - t)));
      return Rgba{v, v, v, 255};
    }
  }
  return Rgba{128, 128, 128, 255};
}

std::string_view name_of(Colormap map) { return enum_name(kNames, map); }

std::optional<Colormap> colormap_from_name(std::string_view name) { return enum_from_name(kNames, name); }

float color_scale_position(const ColorScaleSpec& s, float v, float vmin, float vmax) {
  if (std::isnan(v)) return v;
  const float span = vmax > vmin ? vmax - vmin : 1.0f;
  switch (s.kind) {
    case ColorScale::linear: return std::clamp((v - vmin) / span, 0.0f, 1.0f);
    case ColorScale::power: return std::pow(std::clamp((v - vmin) / span, 0.0f, 1.0f), s.gamma);
    case ColorScale::log: {
      const float lo = log_low(s, vmin, vmax);
      if (!(vmax > lo) || !(lo > 0.0f)) return std::clamp((v - vmin) / span, 0.0f, 1.0f);
      if (!(v > lo)) return 0.0f;
      return std::clamp(std::log(v / lo) / std::log(vmax / lo), 0.0f, 1.0f);
    }
  }
  return 0.0f;
}

float color_scale_value(const ColorScaleSpec& s, float t, float vmin, float vmax) {
  t = std::clamp(t, 0.0f, 1.0f);
  switch (s.kind) {
    case ColorScale::linear: return vmin + t * (vmax - vmin);
    case ColorScale::power: return vmin + std::pow(t, 1.0f / s.gamma) * (vmax - vmin);
    case ColorScale::log: {
      const float lo = log_low(s, vmin, vmax);
      if (!(vmax > lo) || !(lo > 0.0f)) return vmin + t * (vmax - vmin);
      return lo * std::pow(vmax / lo, t);
    }
  }
  return vmin;
}

Rgba colormap_color(Colormap map, const ColorScaleSpec& scale, float v, float vmin, float vmax) {
  return colormap_sample(map, color_scale_position(scale, v, vmin, vmax));
}

std::string_view name_of(ColorScale scale) { return enum_name(kScaleNames, scale); }
std::optional<ColorScale> color_scale_from_name(std::string_view name) { return enum_from_name(kScaleNames, name); }

}  // namespace attnviz
