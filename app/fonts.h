// Loads the UI font: a Hangul-capable TTF found through fontconfig (fonts-nanum), with the Korean
// glyph ranges plus the symbols our strings use. Falls back to ImGui's built-in font with a message.
#pragma once
#include <string>

#include <imgui.h>

namespace attnviz {

// Returns an empty string on success, else what went wrong (the UI still works, in ASCII).
// ImGui keeps a pointer to the glyph ranges, so the caller owns them for the atlas's lifetime.
std::string fonts_load(float size_px, ImVector<ImWchar>& ranges);

}  // namespace attnviz
