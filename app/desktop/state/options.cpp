// Hand-written parsing: few flags, each checked with a one-line message.
#include "state/options.h"

#include <string_view>

#include "base/memory_available.h"
#include "base/parse_number.h"

namespace attnviz {

const char* app_usage() {
  return "usage: attnviz [--model DIR|FILE|DEMO | --attention FILE] [--session FILE] [--text SENTENCE] [--text-b SENTENCE]\n"
         "               [--view heads|model|arch|lines|compare|steps|stats|coref|train|translate]\n"
         "               [--lang en|ko] [--presentation] [--size WxH] [--scale S]\n"
         "               [--screenshot OUT.png [--frames N] [--layout-report OUT.json]] [--script ACTIONS.txt]\n"
         "               [--bench-frames N] [--report-results] [--remember] [--max-trace-memory SIZE]\n"
         "       attnviz --version [--verbose]\n"
         "DEMO: demo:coref, demo:induction or demo:coref/heads{NH}_dmodel{C} (--version --verbose lists them)\n"
         "SIZE: the most memory one trace may take, as 8G or 512M (powers of 1024); a longer input is refused,\n"
         "saying how many tokens fit (default: half of the memory available at launch, less 1G)\n"
         "A plain launch reopens where you left off ($XDG_STATE_HOME/attnviz/state.json); --session, --model,\n"
         "--attention, --script and --screenshot start without it unless --remember is given; a --script starts\n"
         "from the sandbox (its first line can be 'model coref'), so that it replays the same everywhere.\n"
         "keys: ←/→ head, ↑/↓ layer, space next step, F5 presentation mode, F11 full screen, Ctrl+S / Ctrl+O sessions,\n"
         "      Ctrl+Z / Ctrl+Shift+Z undo / redo; in a sentence box Shift+Space the built-in Korean (2-set) typing\n";
}

Result<AppOptions> app_options_parse(const std::vector<std::string>& args) {
  AppOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (a == "--presentation") {
      o.presentation = true;
      continue;
    }
    if (a == "--version") {
      o.version = true;
      continue;
    }
    if (a == "--verbose") {
      o.verbose = true;
      continue;
    }
    if (a == "--report-results") {
      o.report_results = true;
      continue;
    }
    if (a == "--remember") {
      o.remember = true;
      continue;
    }
    if (i + 1 >= args.size()) return make_error("unknown option or missing value: " + a);
    const std::string& v = args[++i];
    if (a == "--session") o.session = v;
    else if (a == "--text") o.text = v;
    else if (a == "--text-b") o.text_b = v;
    else if (a == "--model") o.model = v;
    else if (a == "--attention") o.attention = v;
    else if (a == "--view") o.view = v;
    else if (a == "--screenshot") o.screenshot = v;
    else if (a == "--layout-report") o.layout_report = v;
    else if (a == "--script") o.script = v;
    else if (a == "--frames") {
      if (!parse_int_in(v, 1, 100000, o.frames)) return make_error("--frames needs a whole number from 1 to 100000");
    } else if (a == "--bench-frames") {
      if (!parse_int_in(v, 1, 1000000, o.bench_frames)) return make_error("--bench-frames needs a whole number from 1 to 1000000");
    } else if (a == "--max-trace-memory") {
      auto size = memory_size_parse(v);
      if (!size) return make_error("--max-trace-memory " + size.error());
      o.max_trace_memory = *size;
    } else if (a == "--lang") {
      if (v != "en" && v != "ko") return make_error("--lang must be en or ko");
      o.lang = v == "ko" ? Lang::ko : Lang::en;
      o.lang_given = true;
    } else if (a == "--scale") {
      if (!parse_number(v, o.scale) || !(o.scale >= 1.0f && o.scale <= 4.0f))
        return make_error("--scale needs a number from 1 to 4 (the monitor's content scale when not given)");
    } else if (a == "--size") {
      const size_t x = v.find('x');
      if (x == std::string::npos || !parse_int_in(v.substr(0, x), 320, 8192, o.width) ||
          !parse_int_in(v.substr(x + 1), 240, 8192, o.height))
        return make_error("--size must look like 1280x800");
      o.size_given = true;
    } else {
      return make_error("unknown option " + a);
    }
  }
  if (o.verbose && !o.version) return make_error("--verbose goes with --version");
  if (!o.model.empty() && !o.attention.empty())
    return make_error("--model and --attention cannot be combined: an attention file is shown instead of a model");
  return o;
}

Lang lang_from_locale(const char* lc_all, const char* lc_messages, const char* lang) {
  for (const char* value : {lc_all, lc_messages, lang}) {
    if (!value || !*value) continue;
    const std::string_view name(value);
    return name.substr(0, 2) == "ko" && (name.size() == 2 || name[2] == '_' || name[2] == '.' || name[2] == '@') ? Lang::ko
                                                                                                              : Lang::en;
  }
  return Lang::en;
}

}  // namespace attnviz
