// Loads the UI fonts: a Hangul-capable TTF found through fontconfig (fonts-nanum), at the normal
// size and (when asked) at the presentation-mode size, with Latin, every Hangul syllable and the
// symbols our strings use. Falls back to ImGui's built-in font with a message.
#pragma once
#include <string>

#include <imgui.h>

namespace attnviz {

inline constexpr float kBaseFontPx = 17.0f;  // the UI font's size at content scale 1, outside presentation mode

// How much larger than at kBaseFontPx everything is drawn now: presentation mode times the
// monitor's content scale (HiDPI). Lines, marks and fixed sizes multiply by it. Inside a frame only.
inline float ui_scale() { return ImGui::GetFontSize() / kBaseFontPx; }
// The monitor's content scale alone, without presentation mode's: the atlas's first font is the
// normal size (fonts_load adds it first). Floors of legibility (the smallest label or cell value
// drawn) follow it, so that presentation mode's larger text does not also raise them.
inline float ui_content_scale() { return ImGui::GetIO().Fonts->Fonts[0]->FontSize / kBaseFontPx; }

// Returns an empty string on success, else what went wrong (the UI still works, in ASCII).
// ImGui keeps a pointer to the glyph ranges, so the caller owns them for the atlas's lifetime.
// large_px 0: no presentation-mode font (large stays null).
std::string fonts_load(float size_px, float large_px, ImVector<ImWchar>& ranges, ImFont*& normal, ImFont*& large);

}  // namespace attnviz
