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

}  // namespace attnviz
