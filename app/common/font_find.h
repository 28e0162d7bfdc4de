// Finds a Hangul-capable font on this machine through fontconfig (Debian's fonts-nanum) and loads
// it for CPU text drawing. App/CLI side only: core never links fontconfig. No font is bundled.
#pragma once
#include <optional>
#include <string>

#include "render/text_raster.h"

namespace attnviz {

// Path of a scalable font covering Hangul, preferring NanumGothic, then NanumBarunGothic, then any
// font fontconfig offers for lang=ko with U+AC00; failing that, any scalable font with Latin.
// nullopt when fontconfig finds nothing usable.
std::optional<std::string> font_find_path();

// font_find_path() read and validated into a FontRaster; nullopt when no font or it fails to load.
std::optional<FontRaster> font_find_and_load();

}  // namespace attnviz
