// Small drawing helpers shared by panels (ImGui 1.86 lacks some of them).
#pragma once
#include <string>
#include <string_view>

#include <imgui.h>

#include "render/colormap.h"
#include "shell/strings.h"

namespace attnviz {

// The accent of every view: the chosen head, query or token.
inline constexpr ImU32 kAccent = IM_COL32(255, 160, 30, 255);

// A colour of the headless layers (render/image.h) as ImGui packs it, its alpha times `opacity`.
inline ImU32 rgba_u32(const Rgba& c, float opacity = 1.0f) {
  const float a = static_cast<float>(c.a) * (opacity < 0 ? 0 : opacity > 1 ? 1 : opacity);
  return IM_COL32(c.r, c.g, c.b, static_cast<int>(a));
}

// Where a section begins: when `scroll_to` names it (a jump button, the script's scroll_to), the
// window scrolls so that it starts at the top, and the request is cleared.
void scroll_anchor(std::string& scroll_to, const char* id);

// A titled separator (1.86 has no SeparatorText).
void section_header(const char* title);

// Text rotated 90° counter-clockwise, reading bottom to top; `bottom_left` is where the text's
// top-left corner would be before rotation. Text longer than max_len pixels ends in "…". font_px 0:
// the current font's size.
void draw_text_vertical(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text, float max_len,
                        float font_px = 0);

// A horizontal colour bar for `cmap` over [vmin, vmax] with tick labels at both ends and the middle,
// drawn at the cursor as one item of the given width.
void colormap_legend(Colormap cmap, float vmin, float vmax, float width, const ColorScaleSpec& scale = {});

// The A − B scale of the Compare and Coreference views: blue (B higher, −1) – white (no change) –
// red (A higher, +1), `width` wide, its ends and middle named in `lang`. diverging_legend_at draws
// at `p` and adds no item (the caller keeps the room); diverging_legend draws at the cursor as one item.
void diverging_legend_at(Lang lang, ImVec2 p, float width);
void diverging_legend(Lang lang, float width);

// The narrowest width at which the diverging legend's three names do not run into each other.
float diverging_legend_min_width(Lang lang);

// A switched-off head: diagonal hatching over its map, dark lines under light ones so that it reads
// on any colour map.
void draw_hatch(ImDrawList* dl, ImVec2 p0, ImVec2 p1, float spacing);
// A colour as draw_hatch leaves it between its stripes (it dims what it covers).
ImU32 hatch_shade(ImU32 colour);
// Text over hatching: ringed by a pixel of `halo` (hatch_shade of what lies beneath), so that the
// stripes stop short of each letter. font_px 0: the UI font's size.
void draw_text_haloed(ImDrawList* dl, ImVec2 at, ImU32 colour, ImU32 halo, const char* text, float font_px = 0);
// A cell's text at `at`, black or white for the cell's colour `cell`; over hatching (`hatched`:
// draw_hatch already covers the cell) haloed in the cell's dimmed colour.
void draw_cell_text(ImDrawList* dl, ImVec2 at, ImU32 cell, bool hatched, const char* text, float font_px = 0);

// Black or white, whichever reads better on `background`.
ImU32 contrast_text_color(ImU32 background);

// The width of `text` in the current UI font (core/render's text_width measures a figure's font).
float ui_text_width(std::string_view text);

// Text wrapped to what is left of the line, at spaces only (state/soft_wrap.h): Dear ImGui 1.86's
// TextWrapped also breaks after '.' and ',', which split numbers across lines ("99." / "06%").
// Newlines in the text are kept. Text with a word wider than the line goes to TextWrapped, which can
// break inside the word.
void text_wrapped(std::string_view text);

// A toolbar that wraps: the next item goes on this line, `spacing` after the last one (< 0: the
// style's), when its `width` fits in what is left of the line; else it starts the next line.
void same_line_or_wrap(float width, float spacing = -1.0f);
// The width of a checkbox with `label` (its box, the gap and the text), and of a button.
float checkbox_width(const char* label);
float button_width(const char* label);

}  // namespace attnviz
