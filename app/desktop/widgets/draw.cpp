// Drawing helpers shared by panels: section headers, vertical labels, colour legends. No state.
// Vertical text is drawn glyph by glyph as rotated quads from the font atlas: AddText would cull
// the unrotated glyphs against the clip rectangle before they could be turned.
#include "widgets/draw.h"

#include <cfloat>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "shell/fonts.h"
#include "state/soft_wrap.h"
#include "base/utf8.h"

namespace attnviz {

void scroll_anchor(std::string& scroll_to, const char* id) {
  if (scroll_to != id) return;
  ImGui::SetScrollHereY(0.0f);
  scroll_to.clear();
}

void section_header(const char* title) {
  ImGui::Spacing();
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s", title);
  ImGui::Separator();
}

void draw_text_vertical(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const char* text, float max_len, float font_px) {
  ImFont* font = ImGui::GetFont();
  const float px = font_px > 0 ? font_px : ImGui::GetFontSize();
  const float scale = px / font->FontSize;
  const ImFontGlyph* ellipsis = font->FindGlyph(0x2026);
  const float ellipsis_w = ellipsis ? ellipsis->AdvanceX * scale : 0.0f;
  // Rotate about bottom_left: (dx, dy) -> (dy, -dx) turns left-to-right text into bottom-to-top.
  auto at = [&](float dx, float dy) { return ImVec2(bottom_left.x + dy, bottom_left.y - dx); };
  auto quad = [&](const ImFontGlyph* g, float x) {
    if (!g->Visible) return;
    dl->PrimReserve(6, 4);
    dl->PrimQuadUV(at(x + g->X0 * scale, g->Y0 * scale), at(x + g->X1 * scale, g->Y0 * scale),
                   at(x + g->X1 * scale, g->Y1 * scale), at(x + g->X0 * scale, g->Y1 * scale), ImVec2(g->U0, g->V0),
                   ImVec2(g->U1, g->V0), ImVec2(g->U1, g->V1), ImVec2(g->U0, g->V1), color);
  };
  const float total = font->CalcTextSizeA(px, FLT_MAX, 0.0f, text).x;
  const float limit = total > max_len ? max_len - ellipsis_w : max_len;
  dl->PushTextureID(font->ContainerAtlas->TexID);
  float x = 0;
  const std::string_view utf8(text);  // token text: already valid UTF-8 (sanitized by the tokenizer)
  for (size_t pos = 0; pos < utf8.size();) {
    const char32_t c = utf8_next(utf8, pos);
    if (c > 0xFFFF) continue;  // ImWchar is 16-bit in Debian's build: no glyph beyond the BMP
    const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(c));
    if (!g) continue;
    if (x + g->AdvanceX * scale > limit) {
      if (ellipsis) quad(ellipsis, x);
      break;
    }
    quad(g, x);
    x += g->AdvanceX * scale;
  }
  dl->PopTextureID();
}

void colormap_legend(Colormap cmap, float vmin, float vmax, float width, const ColorScaleSpec& scale) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float bar_h = ImGui::GetTextLineHeight() * 0.6f;
  constexpr int kSteps = 48;  // enough quads that the ramp looks continuous
  for (int i = 0; i < kSteps; ++i) {
    const Rgba a = colormap_sample(cmap, static_cast<float>(i) / kSteps);
    const Rgba b = colormap_sample(cmap, static_cast<float>(i + 1) / kSteps);
    const float x0 = p.x + width * i / kSteps, x1 = p.x + width * (i + 1) / kSteps;
    dl->AddRectFilledMultiColor(ImVec2(x0, p.y), ImVec2(x1, p.y + bar_h), IM_COL32(a.r, a.g, a.b, 255),
                                IM_COL32(b.r, b.g, b.b, 255), IM_COL32(b.r, b.g, b.b, 255), IM_COL32(a.r, a.g, a.b, 255));
  }
  dl->AddRect(p, ImVec2(p.x + width, p.y + bar_h), ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  char buf[32];
  // The values at the bar's ends and middle, on its scale (a log scale's middle is a decade's geometric mean).
  const float values[3] = {color_scale_value(scale, 0.0f, vmin, vmax), color_scale_value(scale, 0.5f, vmin, vmax),
                           color_scale_value(scale, 1.0f, vmin, vmax)};
  for (int i = 0; i < 3; ++i) {
    // Short: a log scale's low end is a thousandth ("1e-3", not "0.001") so three labels fit the bar.
    if (values[i] != 0.0f && std::abs(values[i]) < 0.01f) {
      const int exponent = static_cast<int>(std::floor(std::log10(std::abs(static_cast<double>(values[i])))));
      std::snprintf(buf, sizeof buf, "%.0fe%d", static_cast<double>(values[i]) / std::pow(10.0, exponent), exponent);
    } else {
      std::snprintf(buf, sizeof buf, "%.2g", static_cast<double>(values[i]));
    }
    const float tw = ImGui::CalcTextSize(buf).x;
    const float x = p.x + width * 0.5f * i - tw * 0.5f * i;  // left, centred, right-aligned
    dl->AddText(ImVec2(x, p.y + bar_h + 1), text, buf);
  }
  ImGui::Dummy(ImVec2(width, bar_h + ImGui::GetTextLineHeight() + 2));
}

void diverging_legend_at(Lang lang, ImVec2 p, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetFontSize() * 0.7f;
  const int steps = 48;
  for (int i = 0; i < steps; ++i) {
    const float t0 = static_cast<float>(i) / steps, t1 = static_cast<float>(i + 1) / steps;
    const Rgba c = colormap_sample(Colormap::diverging, (t0 + t1) * 0.5f);
    dl->AddRectFilled(ImVec2(p.x + width * t0, p.y), ImVec2(p.x + width * t1 + 0.5f, p.y + h), IM_COL32(c.r, c.g, c.b, 255));
  }
  dl->AddRect(p, ImVec2(p.x + width, p.y + h), ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float y = p.y + h + 2;
  auto put = [&](float anchor, const std::string& s) {  // anchor 0: left, 0.5: centred, 1: right-aligned
    const float tw = ImGui::CalcTextSize(s.c_str()).x;
    const float x = anchor == 0 ? p.x : anchor == 1 ? p.x + width - tw : p.x + (width - tw) * 0.5f;
    dl->AddText(ImVec2(x, y), text, s.c_str());
  };
  put(0, std::string(tr(lang, Str::cmp_legend_b_higher)) + " (–1)");
  put(0.5f, std::string(tr(lang, Str::cmp_legend_same)) + " (0)");
  put(1, std::string(tr(lang, Str::cmp_legend_a_higher)) + " (+1)");
}

void diverging_legend(Lang lang, float width) {
  diverging_legend_at(lang, ImGui::GetCursorScreenPos(), width);
  ImGui::Dummy(ImVec2(width, ImGui::GetFontSize() * 0.7f + 2 + ImGui::GetTextLineHeight()));
}

float diverging_legend_min_width(Lang lang) {
  return ImGui::CalcTextSize(tr(lang, Str::cmp_legend_b_higher)).x + ImGui::CalcTextSize(tr(lang, Str::cmp_legend_same)).x +
         ImGui::CalcTextSize(tr(lang, Str::cmp_legend_a_higher)).x + ImGui::CalcTextSize(" (–1) (0) (+1)").x +
         ImGui::GetFontSize() * 3;
}

ImU32 contrast_text_color(ImU32 background) {
  const float r = static_cast<float>((background >> IM_COL32_R_SHIFT) & 0xFF);
  const float g = static_cast<float>((background >> IM_COL32_G_SHIFT) & 0xFF);
  const float b = static_cast<float>((background >> IM_COL32_B_SHIFT) & 0xFF);
  const float luminance = 0.299f * r + 0.587f * g + 0.114f * b;
  return luminance > 140.0f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

namespace {

constexpr int kHatchDimAlpha = 90;  // the black laid over a switched-off head, out of 255

}  // namespace

void draw_hatch(ImDrawList* dl, ImVec2 p0, ImVec2 p1, float spacing) {
  const float w = p1.x - p0.x, h = p1.y - p0.y;
  if (w <= 0 || h <= 0) return;
  spacing = std::max(spacing, 4.0f);
  dl->PushClipRect(p0, p1, true);
  dl->AddRectFilled(p0, p1, IM_COL32(0, 0, 0, kHatchDimAlpha));
  // Lines from the bottom edge up and to the right, covering the whole rectangle.
  for (float d = 0; d < w + h; d += spacing) {
    const ImVec2 a(p0.x + d - h, p1.y), b(p0.x + d, p0.y);
    dl->AddLine(a, b, IM_COL32(0, 0, 0, 200), 3.0f);
    dl->AddLine(a, b, IM_COL32(255, 255, 255, 200), 1.2f);
  }
  dl->PopClipRect();
}

ImU32 hatch_shade(ImU32 colour) {
  const auto dim = [&](int shift) {
    const unsigned c = (colour >> shift) & 0xFFu;
    return (c * (255u - kHatchDimAlpha) + 127u) / 255u;
  };
  return IM_COL32(dim(IM_COL32_R_SHIFT), dim(IM_COL32_G_SHIFT), dim(IM_COL32_B_SHIFT), 255);
}

void draw_text_haloed(ImDrawList* dl, ImVec2 at, ImU32 colour, ImU32 halo, const char* text, float font_px) {
  ImFont* font = ImGui::GetFont();
  const float px = font_px > 0 ? font_px : ImGui::GetFontSize();
  const float d = std::max(1.0f, ui_scale());
  for (const ImVec2 o : {ImVec2(-d, 0), ImVec2(d, 0), ImVec2(0, -d), ImVec2(0, d), ImVec2(-d, -d), ImVec2(d, d),
                         ImVec2(-d, d), ImVec2(d, -d)})
    dl->AddText(font, px, ImVec2(at.x + o.x, at.y + o.y), halo, text);
  dl->AddText(font, px, at, colour, text);
}

void draw_cell_text(ImDrawList* dl, ImVec2 at, ImU32 cell, bool hatched, const char* text, float font_px) {
  if (!hatched) {
    dl->AddText(ImGui::GetFont(), font_px > 0 ? font_px : ImGui::GetFontSize(), at, contrast_text_color(cell), text);
    return;
  }
  const ImU32 shade = hatch_shade(cell);
  draw_text_haloed(dl, at, contrast_text_color(shade), shade, text, font_px);
}

float ui_text_width(std::string_view text) { return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x; }

void text_wrapped(std::string_view text) {
  const float width = ImGui::GetContentRegionAvail().x;
  std::string shown;
  for (size_t start = 0;;) {  // paragraph by paragraph: soft_wrap leaves text with newlines alone
    const size_t end = std::min(text.find('\n', start), text.size());
    shown += soft_wrap(text.substr(start, end - start), width, ui_text_width);
    if (end == text.size()) break;
    shown += '\n';
    start = end + 1;
  }
  // A line still too wide is one word longer than the line (soft_wrap keeps words whole).
  for (size_t start = 0; start <= shown.size();) {
    const size_t end = std::min(shown.find('\n', start), shown.size());
    if (ui_text_width(std::string_view(shown).substr(start, end - start)) > width) {
      ImGui::TextWrapped("%.*s", static_cast<int>(text.size()), text.data());
      return;
    }
    start = end + 1;
  }
  ImGui::TextUnformatted(shown.data(), shown.data() + shown.size());
}

void same_line_or_wrap(float width, float spacing) {
  ImGui::SameLine(0, spacing);
  if (width > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
}

float checkbox_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

float button_width(const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; }

}  // namespace attnviz
