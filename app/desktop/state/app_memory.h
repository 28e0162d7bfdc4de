// The app remembers where the person left off: the session (sentences, model source, architecture,
// masks, heads switched off, view, layer/head, language, ...), the word toggles and the window
// size, in $XDG_STATE_HOME/attnviz/state.json (~/.local/state when unset), written atomically a
// few seconds after a change and at exit. A state file that cannot be read is set aside (renamed
// to state.json.corrupt) with a message in the status bar — never a crash, never a silent loss.
#pragma once
#include <string>

#include "base/result.h"

namespace attnviz {

struct AppState;

inline constexpr double kMemorySaveDelaySeconds = 2.0;
inline constexpr double kMemoryCheckSeconds = 0.5;  // how often the state is compared with the saved one

struct WindowSize {
  int width = 0, height = 0;  // 0: not remembered
};

std::string app_memory_file();

// The state as the file holds it, and back (strict: unknown keys are errors naming the known ones).
std::string app_memory_to_json(const AppState& app, WindowSize window);
// Applies a remembered state; on any error nothing changes.
Result<WindowSize> app_memory_apply(AppState& app, const std::string& json);

// At launch: applies the file when there is one. A file that cannot be used is renamed to
// state.json.corrupt and the status bar says why; the app then starts as it would without it.
WindowSize app_memory_restore(AppState& app);

// Saves when the state differs from the last saved one and has been still for kMemorySaveDelaySeconds
// (`force`: now, at exit). Errors go to the status bar once.
struct AppMemory {
  std::string saved;        // the JSON last written (or read)
  std::string pending;      // a changed state waiting to be written
  double pending_since = 0;
  double last_check = -1e9;
  bool reported_error = false;
};
void app_memory_tick(AppMemory& memory, AppState& app, WindowSize window, double now_seconds, bool force);

}  // namespace attnviz
