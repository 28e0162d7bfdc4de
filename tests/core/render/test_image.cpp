// Image primitives (clipping, blending) and PNG encoding checked by decoding with stb_image.
#include <doctest/doctest.h>

#include <stb/stb_image.h>

#include <cstdio>
#include <string>

#include <unistd.h>

#include "base/file_io.h"
#include "render/image.h"

using namespace attnviz;

TEST_CASE("image: construction fills, set/at ignore out-of-range") {
  Image img(4, 3, Rgba{10, 20, 30, 40});
  REQUIRE(img.rgba.size() == 4u * 3u * 4u);
  CHECK(img.at(3, 2) == Rgba{10, 20, 30, 40});
  img.set(1, 2, Rgba{1, 2, 3, 4});
  CHECK(img.at(1, 2) == Rgba{1, 2, 3, 4});
  CHECK(img.rgba[(2 * 4 + 1) * 4 + 2] == 3);  // row-major from the top
  img.set(-1, 0, Rgba{});
  img.set(4, 0, Rgba{});
  img.set(0, 3, Rgba{});
  CHECK(img.at(-1, 0) == Rgba{0, 0, 0, 0});
  CHECK(img.at(0, 0) == Rgba{10, 20, 30, 40});
  CHECK(Image(-5, 3, Rgba{}).rgba.empty());
}

TEST_CASE("image: fill_rect clips to the image") {
  Image img(10, 8, Rgba{0, 0, 0, 255});
  img.fill_rect(-3, 6, 5, 100, Rgba{255, 0, 0, 255});  // covers x 0..1, y 6..7
  int red = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 10; ++x) red += img.at(x, y).r == 255;
  CHECK(red == 4);
  img.fill_rect(2147483000, 0, 2147483000, 5, Rgba{0, 255, 0, 255});  // no overflow, nothing drawn
  img.fill_rect(0, 0, -4, 5, Rgba{0, 255, 0, 255});
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 10; ++x) CHECK(img.at(x, y).g == 0);
}

TEST_CASE("image: blend mixes source over destination") {
  Image img(2, 1, Rgba{0, 0, 0, 255});
  img.blend(0, 0, Rgba{255, 255, 255, 255}, 0.5f);
  CHECK(img.at(0, 0) == Rgba{128, 128, 128, 255});  // 127.5 rounds up
  img.blend(1, 0, Rgba{200, 100, 50, 255}, 1.0f);
  CHECK(img.at(1, 0) == Rgba{200, 100, 50, 255});
  img.blend(1, 0, Rgba{0, 0, 0, 255}, 0.0f);   // alpha 0: untouched
  img.blend(1, 0, Rgba{0, 0, 0, 0}, 1.0f);     // transparent source: untouched
  CHECK(img.at(1, 0) == Rgba{200, 100, 50, 255});
  img.blend(5, 5, Rgba{}, 1.0f);               // clipped, no crash
  Image clear(1, 1, Rgba{0, 0, 0, 0});
  clear.blend(0, 0, Rgba{255, 0, 0, 255}, 0.25f);
  CHECK(clear.at(0, 0).a == 64);  // "over" onto transparent: alpha 0.25
}

TEST_CASE("image: PNG encode -> stb_image decode is exact") {
  Image img(7, 5, Rgba{});
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x)
      img.set(x, y, Rgba{static_cast<uint8_t>(x * 37), static_cast<uint8_t>(y * 51), static_cast<uint8_t>((x * y * 13) & 0xFF),
                         static_cast<uint8_t>(255 - x * y * 5)});
  auto png = png_encode(img);
  REQUIRE(png.ok());
  REQUIRE(png->size() > 8);
  CHECK((*png)[0] == 0x89);
  CHECK((*png)[1] == 'P');
  int w = 0, h = 0, channels = 0;
  stbi_uc* pixels = stbi_load_from_memory(png->data(), static_cast<int>(png->size()), &w, &h, &channels, 4);
  REQUIRE(pixels != nullptr);
  CHECK(w == 7);
  CHECK(h == 5);
  CHECK(channels == 4);
  CHECK(std::vector<uint8_t>(pixels, pixels + 7 * 5 * 4) == img.rgba);
  stbi_image_free(pixels);
}

TEST_CASE("image: empty image is an error, png_write writes what png_encode returns") {
  CHECK_FALSE(png_encode(Image{}).ok());
  Image broken(2, 2, Rgba{});
  broken.rgba.pop_back();
  CHECK_FALSE(png_encode(broken).ok());

  Image img(3, 2, Rgba{9, 8, 7, 255});
  const std::string path = "/tmp/attnviz_test_image_" + std::to_string(::getpid()) + ".png";
  REQUIRE(png_write(path, img).ok());
  auto bytes = file_read_bytes(path);
  REQUIRE(bytes.ok());
  CHECK(*bytes == *png_encode(img));
  std::remove(path.c_str());
  CHECK_FALSE(png_write("/nonexistent-dir/x.png", img).ok());
}
