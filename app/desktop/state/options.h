// The desktop app's command line: the initial sentence, model, session and view, the language,
// window size, the headless modes used by tests and benchmarks (--screenshot, --script,
// --bench-frames), and --version.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "shell/strings.h"

namespace attnviz {

struct AppOptions {
  std::string session;     // --session FILE: start from a saved session
  std::string text;        // --text: initial sentence
  std::string text_b;      // --text-b: sentence B of a pair (BERT checkpoints)
  std::string model;       // --model PATH: open a checkpoint folder, a model file or a demo (demo:coref) at launch
  std::string attention;   // --attention FILE: open an attention file at launch (no model)
  std::string view;        // --view heads|model|lines|compare|steps|stats
  std::string screenshot;  // --screenshot FILE: save the framebuffer after `frames` frames, then quit
  std::string layout_report;  // --layout-report FILE: with --screenshot, where each head's cells were drawn (JSON)
  int frames = 5;          // frames rendered after the newest result arrived, before the screenshot
  std::string script;      // --script FILE: run actions (see state/script.h), then quit
  int bench_frames = 0;    // --bench-frames N: render N frames, print frame-time statistics, quit
  int64_t max_trace_memory = 0;  // --max-trace-memory SIZE in bytes; 0: sized from the memory available at launch
  bool report_results = false;  // --report-results: print each new result's compute time (the status
                                // bar's figure) and the time of the frame that first shows it
  int width = 1280, height = 800;
  bool size_given = false;
  float scale = 0;          // --scale S: fonts and widgets S times their size (0: the monitor's content scale)  // --size: wins over the remembered window size
  bool remember = false;    // --remember: restore and save the remembered state even with --script/--screenshot
  Lang lang = Lang::en;
  bool lang_given = false;
  bool presentation = false;
  bool help = false;
  bool version = false;    // --version: print "attnviz X.Y.Z" and quit (no window)
  bool verbose = false;    // --version --verbose: also where the shipped demos were found
};

Result<AppOptions> app_options_parse(const std::vector<std::string>& args);
const char* app_usage();

// The language the system's locale asks for, as POSIX looks messages up: LC_ALL, else LC_MESSAGES,
// else LANG (null or empty: not set); Korean for a locale named ko ("ko_KR.UTF-8", "ko"), else
// English. A plain launch starts in it until the person picks a language (then remembered).
Lang lang_from_locale(const char* lc_all, const char* lc_messages, const char* lang);

}  // namespace attnviz
