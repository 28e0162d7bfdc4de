// Reading and writing the remembered state: a session (io/session) plus what sessions do not hold.
#include "state/app_memory.h"

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/json.h"
#include "io/session.h"
#include "state/app_state.h"

namespace attnviz {

namespace {

constexpr const char* kFormat = "attnviz.state";
constexpr int kVersion = 1;

// An object's keys must all be known: the first unknown one is named, with the known ones.
Status keys_known(const nlohmann::json& j, const std::string& where, JsonKeys known) {
  if (Status s = json_keys_known(j, known); !s) return make_error(where + ": " + s.error());
  return Ok{};
}

Result<bool> bool_at(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return false;
  if (!j.at(key).is_boolean()) return make_error(where + "." + key + " must be true or false");
  return j.at(key).get<bool>();
}

}  // namespace

std::string app_memory_file() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
                                     : home && *home ? std::filesystem::path(home) / ".local" / "state"
                                                     : std::filesystem::temp_directory_path();
  return (base / "attnviz" / "state.json").string();
}

std::string app_memory_to_json(const AppState& app, WindowSize window) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["session"] = nlohmann::json::parse(session_to_json(app_capture_session(app)));
  j["words"] = {{"merge_pieces", app.word_view.merge_pieces}, {"hide_special", app.word_view.hide_special}};
  if (window.width > 0 && window.height > 0) j["window"] = {{"width", window.width}, {"height", window.height}};
  return j.dump(1);
}

Result<WindowSize> app_memory_apply(AppState& app, const std::string& text) {
  auto parsed = json_parse_strict(text, "the remembered state");
  if (!parsed) return make_error(parsed.error());
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return make_error("the remembered state is not a JSON object");
  if (Status s = keys_known(j, "state", {"format", "version", "session", "words", "window"}); !s) return make_error(s.error());
  if (!j.contains("format") || j["format"] != kFormat) return make_error("state: format must be \"attnviz.state\"");
  if (!j.contains("version") || j["version"] != kVersion) return make_error("state: version must be 1");
  if (!j.contains("session") || !j["session"].is_object()) return make_error("state: session must be an object");
  auto session = session_from_json(j["session"].dump());
  if (!session) return make_error("state: " + session.error());
  WordViewOptions words;
  if (j.contains("words")) {
    const nlohmann::json& w = j["words"];
    if (!w.is_object()) return make_error("state: words must be an object");
    if (Status s = keys_known(w, "state.words", {"merge_pieces", "hide_special"}); !s) return make_error(s.error());
    auto merge = bool_at(w, "merge_pieces", "state.words");
    auto hide = bool_at(w, "hide_special", "state.words");
    if (!merge) return make_error(merge.error());
    if (!hide) return make_error(hide.error());
    words = {*merge, *hide};
  }
  WindowSize window;
  if (j.contains("window")) {
    const nlohmann::json& w = j["window"];
    if (!w.is_object()) return make_error("state: window must be an object");
    if (Status s = keys_known(w, "state.window", {"width", "height"}); !s) return make_error(s.error());
    if (!w.contains("width") || !w.contains("height") || !w["width"].is_number_integer() || !w["height"].is_number_integer())
      return make_error("state.window needs whole-number width and height");
    window = {w["width"].get<int>(), w["height"].get<int>()};
    if (window.width < 320 || window.height < 240 || window.width > 16384 || window.height > 16384)
      return make_error("state.window: " + std::to_string(window.width) + "x" + std::to_string(window.height) +
                        " is not a window size (320x240 to 16384x16384)");
  }
  // Last check, first change: the session's model may fail to open, and then nothing changes.
  if (Status s = app_apply_session(app, *session); !s) return make_error(s.error());
  app.word_view = words;
  return window;
}

WindowSize app_memory_restore(AppState& app) {
  const std::string path = app_memory_file();
  if (!path_is_file(path)) return {};
  auto bytes = file_read_bytes(path, 1 << 24);
  Result<WindowSize> applied = bytes ? app_memory_apply(app, std::string(bytes->begin(), bytes->end()))
                                     : Result<WindowSize>(make_error(bytes.error()));
  if (applied) return *applied;
  const std::string aside = path + ".corrupt";
  std::error_code ec;
  std::filesystem::rename(path, aside, ec);
  app.status = tr_format(app.lang, Str::memory_set_aside, applied.error().c_str(), ec ? path.c_str() : aside.c_str());
  app.status_is_error = true;
  return {};
}

void app_memory_tick(AppMemory& m, AppState& app, WindowSize window, double now, bool force) {
  if (!force && now - m.last_check < kMemoryCheckSeconds) return;
  m.last_check = now;
  std::string json = app_memory_to_json(app, window);
  if (json == m.saved) {
    m.pending.clear();
    return;
  }
  if (json != m.pending) {  // changed again: wait until it has been still for a moment
    m.pending = std::move(json);
    m.pending_since = now;
  }
  if (!force && now - m.pending_since < kMemorySaveDelaySeconds) return;
  const std::filesystem::path file = app_memory_file();
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  Status s = ec ? Status(make_error("cannot create '" + file.parent_path().string() + "': " + ec.message()))
                : file_write_atomic(file.string(), std::string_view(m.pending));
  if (!s) {
    m.pending_since = now;  // try again after the delay, not every frame
    if (!m.reported_error) {
      app.status = tr_format(app.lang, Str::memory_save_failed, s.error().c_str());
      app.status_is_error = true;
      m.reported_error = true;
    }
    return;
  }
  m.saved = std::move(m.pending);
  m.pending.clear();
}

}  // namespace attnviz
