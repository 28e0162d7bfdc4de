// GUI pixel test: the app's screenshot of the Heads view shows, in every cell of every head, the
// colour the colour map gives the engine's weight for that cell. The trace is recomputed here with
// core from the same session file (or read from its attention file), so a wrong texture, layout,
// flip or colour would show.
// Usage: check_heads_pixels SCREENSHOT.png LAYOUT.json SESSION.json
#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#include <stb/stb_image.h>

#include "base/file_io.h"
#include "io/attention_file.h"
#include "io/model_open.h"
#include "io/session.h"
#include "model/model.h"
#include "model/trace.h"
#include "render/colormap.h"

using namespace attnviz;

namespace {

// Every drawn cell of the layout against the colour of trace t's weight; frees px.
int check(unsigned char* px, int W, int H, const nlohmann::json& layout, const Trace& t) {
  const auto cmap = colormap_from_name(layout["colormap"].get<std::string>());
  if (!cmap) return std::fprintf(stderr, "unknown colour map\n"), 1;
  int checked = 0, wrong = 0, heads = 0;
  for (const auto& d : layout["heads"]) {
    if (d.value("view", "heads") != "heads") continue;  // Compare's maps are not the trace's heads
    ++heads;
    const Mat& w = t.head(d["layer"].get<int>(), d["head"].get<int>()).weights_kept;
    if (d["rows"].get<int>() != w.rows() || d["cols"].get<int>() != w.cols())
      return std::fprintf(stderr, "head %d: drawn %dx%d, trace %ldx%ld\n", d["head"].get<int>(), d["rows"].get<int>(),
                          d["cols"].get<int>(), static_cast<long>(w.rows()), static_cast<long>(w.cols())), 1;
    const float x0 = d["x"].get<float>(), y0 = d["y"].get<float>(), cell = d["cell"].get<float>();
    // The part of the view that shows: a grid larger than the view (presentation mode) scrolls.
    const auto visible = d.value("visible", std::vector<float>{0, 0, static_cast<float>(W), static_cast<float>(H)});
    for (int r = 0; r < w.rows(); ++r)
      for (int c = 0; c < w.cols(); ++c) {
        // Sample near the lower-left corner: away from the diagonal mark on masked cells.
        const int x = static_cast<int>(x0 + cell * (c + 0.25f)), y = static_cast<int>(y0 + cell * (r + 0.75f));
        if (x < 0 || y < 0 || x >= W || y >= H) continue;
        if (x < visible[0] || y < visible[1] || x >= visible[2] || y >= visible[3]) continue;
        const unsigned char* p = px + (static_cast<size_t>(y) * W + x) * 4;
        const Rgba want = colormap_sample(*cmap, w(r, c));
        ++checked;
        if (std::abs(p[0] - want.r) > 2 || std::abs(p[1] - want.g) > 2 || std::abs(p[2] - want.b) > 2) {
          if (++wrong <= 5)
            std::fprintf(stderr, "head %d cell (%d, %d): pixel %d,%d,%d, expected %d,%d,%d for weight %.4f\n",
                         d["head"].get<int>(), r, c, p[0], p[1], p[2], want.r, want.g, want.b, w(r, c));
        }
      }
  }
  stbi_image_free(px);
  std::printf("check_heads_pixels: %d heads, %d cells checked, %d wrong\n", heads, checked, wrong);
  return heads == t.config.n_heads && checked > 0 && wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: check_heads_pixels SCREENSHOT.png LAYOUT.json SESSION.json\n");
    return 2;
  }
  int W = 0, H = 0, n = 0;
  unsigned char* px = stbi_load(argv[1], &W, &H, &n, 4);
  if (!px) return std::fprintf(stderr, "cannot read %s\n", argv[1]), 1;
  auto layout_bytes = file_read_bytes(argv[2]);
  auto session = session_load(argv[3]);
  if (!layout_bytes || !session) return std::fprintf(stderr, "cannot read the layout or session\n"), 1;
  const auto layout = nlohmann::json::parse(layout_bytes->begin(), layout_bytes->end());
  TraceInput in;
  in.text = session->sentence;
  in.mask = session->mask;
  // The session's model: the sandbox from its config and seed, or a checkpoint / model file; or no
  // model at all, an attention file's weights.
  Model model;
  const auto src = session->ui.find("model_source");
  if (src != session->ui.end() && src->second == "attention") {
    auto file = attention_file_read(session->ui.at("model_path"));
    if (!file) return std::fprintf(stderr, "%s\n", file.error().c_str()), 1;
    return check(px, W, H, layout, session->cross && file->cross_trace ? *file->cross_trace : file->trace);
  }
  if (src != session->ui.end() && src->second == "file") {
    auto opened = model_open(session->ui.at("model_path"));
    if (!opened) return std::fprintf(stderr, "%s\n", opened.error().c_str()), 1;
    model = std::move(*opened);
    if (auto b = session->ui.find("sentence_b"); b != session->ui.end()) in.text_b = b->second;
  } else {
    model = model_init_random(session->config, session->seed, session->generator);
  }
  auto trace = trace_run(model, in);
  if (!trace) return std::fprintf(stderr, "cannot recompute the trace\n"), 1;
  return check(px, W, H, layout, *trace);
}
