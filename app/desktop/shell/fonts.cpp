// Font discovery is fontconfig's job (app/font_find); this file only hands the file to ImGui.
#include "shell/fonts.h"

#include "font_find.h"

namespace attnviz {

std::string fonts_load(float size_px, float large_px, ImVector<ImWchar>& ranges, ImFont*& normal, ImFont*& large) {
  ImGuiIO& io = ImGui::GetIO();
  const auto path = font_find_path();
  if (!path) {
    normal = io.Fonts->AddFontDefault();
    large = nullptr;
    return "no Hangul font found (install fonts-nanum); Korean text will not render";
  }
  ImFontGlyphRangesBuilder builder;
  builder.AddRanges(io.Fonts->GetGlyphRangesKorean());
  builder.AddText("—–…√τ·→←↔↑↓×÷≤≥∞²ᵀ⁻¹‘’“”•◀▶▲▼✓∑Σ");
  builder.BuildRanges(&ranges);
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  normal = io.Fonts->AddFontFromFileTTF(path->c_str(), size_px, &cfg, ranges.Data);
  large = large_px > 0 ? io.Fonts->AddFontFromFileTTF(path->c_str(), large_px, &cfg, ranges.Data) : nullptr;
  if (!normal) {
    normal = io.Fonts->AddFontDefault();
    large = nullptr;
    return "could not load the font " + *path;
  }
  io.Fonts->Build();
  return {};
}

}  // namespace attnviz
