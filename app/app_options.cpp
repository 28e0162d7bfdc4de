// Hand-written parsing: few flags, each checked with a one-line message.
#include "app/app_options.h"

#include <charconv>

namespace attnviz {

namespace {
bool parse_int(const std::string& s, int lo, int hi, int& out) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}
}  // namespace

const char* app_usage() {
  return "usage: attnviz [--text SENTENCE] [--lang en|ko] [--size WxH] [--screenshot OUT.png [--frames N]]\n";
}

Result<AppOptions> app_options_parse(const std::vector<std::string>& args) {
  AppOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      o.help = true;
      continue;
    }
    if (i + 1 >= args.size()) return make_error("unknown option or missing value: " + a);
    const std::string& v = args[++i];
    if (a == "--screenshot") o.screenshot = v;
    else if (a == "--frames") {
      if (!parse_int(v, 1, 100000, o.frames)) return make_error("--frames needs a whole number from 1 to 100000");
    } else if (a == "--lang") {
      if (v != "en" && v != "ko") return make_error("--lang must be en or ko");
      o.lang = v == "ko" ? Lang::ko : Lang::en;
    } else if (a == "--text") o.text = v;
    else if (a == "--size") {
      const size_t x = v.find('x');
      if (x == std::string::npos || !parse_int(v.substr(0, x), 320, 8192, o.width) ||
          !parse_int(v.substr(x + 1), 240, 8192, o.height))
        return make_error("--size must look like 1280x800");
    } else return make_error("unknown option " + a);
  }
  return o;
}

}  // namespace attnviz
