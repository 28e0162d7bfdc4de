// The folders and files the user opened models from, newest first, kept between launches in
// $XDG_CONFIG_HOME/attnviz/recent_models.json (~/.config when unset). A missing or unreadable list
// is simply empty: remembering paths must never stop the app.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"

namespace attnviz {

inline constexpr size_t kMaxRecentModels = 8;

std::string recent_models_file();  // the JSON file's path
std::vector<std::string> recent_models_load();
// Puts `path` first (removing an older entry of it), keeps kMaxRecentModels, and writes the file.
Status recent_models_add(std::vector<std::string>& recent, const std::string& path);

}  // namespace attnviz
