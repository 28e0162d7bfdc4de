// Attention files in the app: opening one (every view then shows its weights; no model runs),
// a second one as Compare's B, and opening whatever path is dropped on the window by what it is.
// A failed open changes nothing and says why in the status bar. No ImGui: unit-tested headless.
#pragma once
#include <string>

#include "base/result.h"
#include "state/views.h"

namespace attnviz {

struct AppState;

// Reads `path` (io/attention_file.h) and shows it as ModelSource::attention: the views show its
// weights, the sentence panel its tokens; switched-off heads are cleared (there is no model to
// switch them off in). Reports in the status bar, including rows that do not sum to 1.
Status app_open_attention(AppState& app, const std::string& path);
// A second attention file, shown as B in the Compare view while an attention file is A.
Status app_open_attention_b(AppState& app, const std::string& path);

// What a dropped (or typed) path is: a folder is a checkpoint or model folder, a .safetensors file
// holding attentions.0 an attention file, another .safetensors a model file, a .json a session.
enum class PathKind { model, attention, session, unknown };
PathKind path_kind(const std::string& path);
// Opens `path` as path_kind says (a model off the UI thread, as the Model panel's Open button).
// An unknown kind or a failure goes to the status bar and the previous state stays.
void app_open_path(AppState& app, const std::string& path);

// app_update's part for ModelSource::attention: installs the file's trace (the cross-attention
// when `cross` is on and the file has it) and B for the Compare view, without the worker.
void attention_update(AppState& app);

// True for the views that need the model itself (Q, K, V, its answer, training): on a trace read
// from an attention file they say why they are off.
bool view_needs_model(View view);

}  // namespace attnviz
