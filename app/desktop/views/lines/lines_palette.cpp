// The heads' palette: bright enough to read on the app's dark background and on a white page.
#include "views/lines/lines_palette.h"

#include "state/app_state.h"

#include <cmath>

namespace attnviz {

namespace {

constexpr unsigned char kPalette[12][3] = {
    {70, 140, 255}, {255, 135, 30},  {50, 190, 80},  {235, 60, 75},  {165, 105, 245}, {240, 205, 45},
    {30, 205, 215}, {250, 115, 195}, {160, 210, 60}, {205, 145, 95}, {205, 205, 215}, {190, 50, 160},
};

// Hue h in [0, 1), saturation s, value v -> sRGB bytes.
Rgba hsv_color(float h, float s, float v) {
  const float f = h * 6.0f;
  const int sector = static_cast<int>(f) % 6;
  const float frac = f - std::floor(f);
  const float p = v * (1 - s), q = v * (1 - s * frac), t = v * (1 - s * (1 - frac));
  const float rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  auto byte = [](float x) { return static_cast<uint8_t>(std::lround(x * 255.0f)); };
  return Rgba{byte(rgb[sector][0]), byte(rgb[sector][1]), byte(rgb[sector][2]), 255};
}

}  // namespace

Rgba lines_head_color(int h) {
  if (h >= 0 && h < 12) return Rgba{kPalette[h][0], kPalette[h][1], kPalette[h][2], 255};
  return hsv_color(std::fmod(static_cast<float>(h) * 0.381966f, 1.0f), 0.65f, 0.95f);
}

std::vector<int> lines_drawn_heads(const AppState& app, int n_heads) {
  if (app_map_per_layer(app)) return {0};
  std::vector<int> shown;
  for (int h = 0; h < n_heads; ++h)
    if (lines_head_shown(app.lines, h)) shown.push_back(h);
  return shown;
}

Rgba lines_color(const AppState& app, int head) {
  return app_map_per_layer(app) ? Rgba{150, 150, 170, 255} : lines_head_color(head);
}

}  // namespace attnviz
