// The desktop app's command line (--screenshot, --frames, --lang, --text, window size).
#pragma once
#include <string>
#include <vector>

#include "app/strings.h"
#include "core/result.h"

namespace attnviz {

struct AppOptions {
  std::string screenshot;  // save the framebuffer here after `frames` frames, then quit
  int frames = 5;          // frames to render (after the first result arrived) before the screenshot
  int width = 1280, height = 800;
  Lang lang = Lang::en;
  std::string text;        // initial sentence (default: the animal sentence)
  bool help = false;
};

Result<AppOptions> app_options_parse(const std::vector<std::string>& args);
const char* app_usage();

}  // namespace attnviz
