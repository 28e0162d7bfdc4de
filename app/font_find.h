// Finds a font file on this machine through fontconfig (placeholder until the font helper lands).
#pragma once
#include <optional>
#include <string>
namespace attnviz {
std::optional<std::string> font_find_path();
}
