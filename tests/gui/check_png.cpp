// GUI smoke check: the app's screenshot exists, has the expected size and is not blank (it shows
// many distinct colours: text, widgets and heatmaps). Usage: check_png FILE WIDTH HEIGHT (0 0: any size)
#include <cstdio>
#include <cstdlib>
#include <set>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#include <stb/stb_image.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: check_png FILE WIDTH HEIGHT\n");
    return 2;
  }
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load(argv[1], &w, &h, &n, 4);
  if (!px) {
    std::fprintf(stderr, "check_png: cannot read %s\n", argv[1]);
    return 1;
  }
  std::set<unsigned> colours;
  for (int i = 0; i < w * h; ++i)
    colours.insert(px[i * 4] << 16 | px[i * 4 + 1] << 8 | px[i * 4 + 2]);
  stbi_image_free(px);
  std::printf("check_png: %dx%d, %zu distinct colours\n", w, h, colours.size());
  const int want_w = std::atoi(argv[2]), want_h = std::atoi(argv[3]);  // 0 0: any size
  if (want_w > 0 && (w != want_w || h != want_h)) {
    std::fprintf(stderr, "check_png: expected %sx%s\n", argv[2], argv[3]);
    return 1;
  }
  if (colours.size() < 200) {
    std::fprintf(stderr, "check_png: the screenshot looks blank\n");
    return 1;
  }
  return 0;
}
