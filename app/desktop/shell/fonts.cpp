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
  // Latin, Hangul's compatibility jamo, the replacement character and the symbols our strings use,
  // oversampled twice horizontally (sub-pixel positioning for Latin text); then the 11,172 Hangul
  // syllables merged into the same font once each: they are most of the atlas, and at these sizes
  // the second sample does not show (ImGui's advice for large CJK ranges). Same advances, same layout.
  ImFontGlyphRangesBuilder builder;
  builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
  static const ImWchar kJamoAndReplacement[] = {0x3131, 0x3163, 0xFFFD, 0xFFFD, 0};
  builder.AddRanges(kJamoAndReplacement);
  builder.AddText("—–…√τα·→←↔↑↓×÷≤≥∞²ᵀ⁻¹‘’“”•◀▶▲▼◆★○∑Σ");
  builder.BuildRanges(&ranges);
  static const ImWchar kSyllables[] = {0xAC00, 0xD7A3, 0};
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  ImFontConfig syllables;
  syllables.OversampleH = 1;
  syllables.OversampleV = 1;
  syllables.MergeMode = true;
  auto add = [&](float px) {
    ImFont* f = io.Fonts->AddFontFromFileTTF(path->c_str(), px, &cfg, ranges.Data);
    if (f) io.Fonts->AddFontFromFileTTF(path->c_str(), px, &syllables, kSyllables);
    return f;
  };
  normal = add(size_px);
  large = large_px > 0 ? add(large_px) : nullptr;
  if (!normal) {
    normal = io.Fonts->AddFontDefault();
    large = nullptr;
    return "could not load the font " + *path;
  }
  io.Fonts->Build();
  return {};
}

}  // namespace attnviz
