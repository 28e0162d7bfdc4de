// Colour maps for heatmaps: value in [0, 1] -> colour. Each map is a short table of anchor colours
// with linear interpolation between them (our own anchors approximating the published maps, not
// their 256-entry tables). No drawing happens here.
#pragma once
#include <optional>
#include <string_view>

#include "render/image.h"

namespace attnviz {

enum class Colormap {
  viridis,        // dark purple -> green -> yellow; perceptually ordered, colour-blind safe
  magma,          // black -> purple -> orange -> pale yellow
  high_contrast,  // white -> black, for projectors and print
  diverging,      // blue -> white (t = 0.5) -> red: differences between two maps
};

// t is clamped to [0, 1]; NaN gives mid grey so missing values stand out from every map's ends.
Rgba colormap_sample(Colormap map, float t);

std::string_view name_of(Colormap map);
std::optional<Colormap> colormap_from_name(std::string_view name);

// How values spread over a colour map. Attention in large language models puts most of each row on
// one token, so on a linear scale the rest of the map is one dark colour: a log scale (decades from
// `floor` · vmax up to vmax; everything at or below the floor takes the lowest colour) or a power
// scale (((v - vmin) / (vmax - vmin))^gamma, gamma < 1 lifting small values) shows it.
enum class ColorScale { linear, log, power };
struct ColorScaleSpec {
  ColorScale kind = ColorScale::linear;
  float gamma = 0.5f;    // power
  float floor = 1e-3f;   // log: the lowest value told apart, as a fraction of vmax (3 decades)
  bool operator==(const ColorScaleSpec&) const = default;
};
// Where v falls on the colour map, in [0, 1] (NaN stays NaN: the maps' grey for missing values).
float color_scale_position(const ColorScaleSpec& scale, float v, float vmin, float vmax);
// The value at position t: where a legend puts its tick labels.
float color_scale_value(const ColorScaleSpec& scale, float t, float vmin, float vmax);
// The colour of v: colormap_sample at its position.
Rgba colormap_color(Colormap map, const ColorScaleSpec& scale, float v, float vmin, float vmax);

std::string_view name_of(ColorScale scale);  // "linear", "log", "power"
std::optional<ColorScale> color_scale_from_name(std::string_view name);

}  // namespace attnviz
