// Colour maps: exact endpoints, interpolation between anchors, clamping, NaN and monotone luminance.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "render/colormap.h"

using namespace attnviz;

TEST_CASE("colormap: endpoints are the anchor colours") {
  CHECK(colormap_sample(Colormap::viridis, 0.0f) == Rgba{0x44, 0x01, 0x54, 255});
  CHECK(colormap_sample(Colormap::viridis, 1.0f) == Rgba{0xFD, 0xE7, 0x25, 255});
  CHECK(colormap_sample(Colormap::magma, 0.0f) == Rgba{0x00, 0x00, 0x04, 255});
  CHECK(colormap_sample(Colormap::magma, 1.0f) == Rgba{0xFC, 0xFD, 0xBF, 255});
  CHECK(colormap_sample(Colormap::high_contrast, 0.0f) == Rgba{255, 255, 255, 255});
  CHECK(colormap_sample(Colormap::high_contrast, 1.0f) == Rgba{0, 0, 0, 255});
  CHECK(colormap_sample(Colormap::high_contrast, 0.5f) == Rgba{128, 128, 128, 255});  // 127.5 rounds up
}

TEST_CASE("colormap: linear interpolation between anchors") {
  // Halfway between viridis anchors 0 (#440154) and 1 (#472D7B).
  CHECK(colormap_sample(Colormap::viridis, 0.0625f) == Rgba{70, 23, 104, 255});
  // Exactly on anchor 4 (#21918C).
  CHECK(colormap_sample(Colormap::viridis, 0.5f) == Rgba{0x21, 0x91, 0x8C, 255});
}

TEST_CASE("colormap: out-of-range values clamp, NaN is mid grey") {
  for (Colormap m : {Colormap::viridis, Colormap::magma, Colormap::high_contrast}) {
    CHECK(colormap_sample(m, -3.0f) == colormap_sample(m, 0.0f));
    CHECK(colormap_sample(m, 7.0f) == colormap_sample(m, 1.0f));
    CHECK(colormap_sample(m, std::numeric_limits<float>::infinity()) == colormap_sample(m, 1.0f));
    CHECK(colormap_sample(m, std::numeric_limits<float>::quiet_NaN()) == Rgba{128, 128, 128, 255});
  }
}

TEST_CASE("colormap: luminance rises monotonically (falls for high_contrast)") {
  float prev_v = -1.0f, prev_m = -1.0f, prev_h = 2.0f;
  for (int i = 0; i <= 100; ++i) {
    const float t = static_cast<float>(i) / 100.0f;
    const float v = rgba_luminance(colormap_sample(Colormap::viridis, t));
    const float m = rgba_luminance(colormap_sample(Colormap::magma, t));
    const float h = rgba_luminance(colormap_sample(Colormap::high_contrast, t));
    CHECK(v > prev_v);
    CHECK(m > prev_m);
    CHECK(h < prev_h);
    prev_v = v;
    prev_m = m;
    prev_h = h;
  }
  CHECK(rgba_luminance(colormap_sample(Colormap::viridis, 0.0f)) == doctest::Approx(0.0832).epsilon(0.01));
  CHECK(rgba_luminance(colormap_sample(Colormap::viridis, 1.0f)) == doctest::Approx(0.8695).epsilon(0.01));
}

TEST_CASE("colormap: names round trip") {
  for (Colormap m : {Colormap::viridis, Colormap::magma, Colormap::high_contrast}) {
    auto back = colormap_from_name(name_of(m));
    REQUIRE(back.has_value());
    CHECK(*back == m);
  }
  CHECK(name_of(Colormap::high_contrast) == "high_contrast");
  CHECK_FALSE(colormap_from_name("jet").has_value());
  CHECK_FALSE(colormap_from_name("").has_value());
}

TEST_CASE("colormap: diverging is white at the middle, blue below and red above, symmetric in lightness") {
  CHECK(colormap_sample(Colormap::diverging, 0.5f) == Rgba{0xF7, 0xF7, 0xF7, 255});
  const Rgba lo = colormap_sample(Colormap::diverging, 0.0f), hi = colormap_sample(Colormap::diverging, 1.0f);
  CHECK(lo.b > lo.r);
  CHECK(hi.r > hi.b);
  for (float d : {0.1f, 0.25f, 0.4f}) {
    const float below = rgba_luminance(colormap_sample(Colormap::diverging, 0.5f - d));
    const float above = rgba_luminance(colormap_sample(Colormap::diverging, 0.5f + d));
    CHECK(below < rgba_luminance(colormap_sample(Colormap::diverging, 0.5f)));
    CHECK(above < rgba_luminance(colormap_sample(Colormap::diverging, 0.5f)));
    CHECK(std::abs(below - above) < 40.0f);
  }
  CHECK(colormap_from_name("diverging") == Colormap::diverging);
}

TEST_CASE("colormap: linear, log and power scales, each with its inverse for the legend") {
  const ColorScaleSpec linear, log{.kind = ColorScale::log}, power{.kind = ColorScale::power, .gamma = 0.5f};
  CHECK(color_scale_position(linear, 0.25f, 0.0f, 1.0f) == 0.25f);
  CHECK(color_scale_position(power, 0.25f, 0.0f, 1.0f) == doctest::Approx(0.5f));
  // Log: three decades below vmax; at or below the floor, the lowest colour.
  CHECK(color_scale_position(log, 1.0f, 0.0f, 1.0f) == doctest::Approx(1.0f));
  CHECK(color_scale_position(log, 0.01f, 0.0f, 1.0f) == doctest::Approx(1.0f / 3.0f));
  CHECK(color_scale_position(log, 0.001f, 0.0f, 1.0f) == 0.0f);
  CHECK(color_scale_position(log, 0.0f, 0.0f, 1.0f) == 0.0f);
  CHECK(color_scale_position(log, 2.0f, 0.0f, 2.0f) == doctest::Approx(1.0f));  // relative to vmax
  CHECK(std::isnan(color_scale_position(log, std::numeric_limits<float>::quiet_NaN(), 0.0f, 1.0f)));
  for (const ColorScaleSpec& s : {linear, log, power})
    for (float t : {0.0f, 0.2f, 0.5f, 0.9f, 1.0f})
      CHECK(color_scale_position(s, color_scale_value(s, t, 0.0f, 1.0f), 0.0f, 1.0f) == doctest::Approx(t).epsilon(1e-5));
  CHECK(color_scale_value(log, 0.0f, 0.0f, 1.0f) == doctest::Approx(0.001f));
  CHECK(color_scale_value(log, 0.5f, 0.0f, 1.0f) == doctest::Approx(std::sqrt(0.001f)));
  CHECK(name_of(ColorScale::log) == "log");
  CHECK(color_scale_from_name("power") == ColorScale::power);
  CHECK_FALSE(color_scale_from_name("logarithmic"));
}
