// Loads the UI fonts: a Hangul-capable TTF found through fontconfig (fonts-nanum), at the normal
// size and at the presentation-mode size, with the Korean glyph ranges plus the symbols our strings
// use. Falls back to ImGui's built-in font with a message.
#pragma once
#include <string>

#include <imgui.h>

namespace attnviz {

// Returns an empty string on success, else what went wrong (the UI still works, in ASCII).
// ImGui keeps a pointer to the glyph ranges, so the caller owns them for the atlas's lifetime.
std::string fonts_load(float size_px, float large_px, ImVector<ImWchar>& ranges, ImFont*& normal, ImFont*& large);

}  // namespace attnviz
