// File → Open local model…: the GGUF models already on this machine (Ollama's store, LM Studio's
// folders, llama.cpp's cache; core/io/local_models.h), scanned when the window opens or on Rescan —
// folder listings and small manifests, never on a keystroke — and opened off the UI thread like the
// Model panel's Open button. Headless: the window is widgets/local_models_window.
#pragma once
#include <string>
#include <string_view>

#include "io/local_models.h"

namespace attnviz {

struct AppState;

struct LocalModelsWindow {
  bool shown = false;   // the window is open
  bool scanned = false; // `scan` holds a scan (the window opened at least once)
  LocalModelScan scan;
  LocalModelPlaces places;  // where the last scan looked
  int selected = -1;        // the highlighted row
};

// Opens the window and scans the stores the environment names.
void local_models_show(AppState& app);
void local_models_rescan(LocalModelsWindow& window);

// What model_open takes for an entry: "ollama:NAME" for Ollama's (its name, which the model panel,
// the recent list and a saved session then show), otherwise the file.
std::string local_model_open_path(const LocalModel& model);

// Opens entry i (off the UI thread) and closes the window; false when there is no such entry.
bool local_models_open(AppState& app, size_t i);
// The entry shown as `name` (a script's way to click it); -1 when none.
int local_models_find_name(const LocalModelsWindow& window, std::string_view name);

}  // namespace attnviz
