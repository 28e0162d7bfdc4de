// Reading and writing the recent-models list (a JSON array of strings).
#include "state/recent_models.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/json.h"

namespace attnviz {

std::string recent_models_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
                                     : home && *home ? std::filesystem::path(home) / ".config"
                                                     : std::filesystem::temp_directory_path();
  return (base / "attnviz" / "recent_models.json").string();
}

std::vector<std::string> recent_models_load() {
  std::vector<std::string> out;
  auto bytes = file_read_bytes(recent_models_file(), 1 << 20);
  if (!bytes) return out;
  // A damaged list is forgotten rather than reported: it is only a convenience.
  const auto j = json_parse_strict(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
                                   "the recent-models list");
  if (!j || !j->is_array()) return out;
  for (const auto& e : *j)
    if (e.is_string() && out.size() < kMaxRecentModels) out.push_back(e.get<std::string>());
  return out;
}

Status recent_models_add(std::vector<std::string>& recent, const std::string& path) {
  recent.erase(std::remove(recent.begin(), recent.end(), path), recent.end());
  recent.insert(recent.begin(), path);
  if (recent.size() > kMaxRecentModels) recent.resize(kMaxRecentModels);
  const std::filesystem::path file = recent_models_file();
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return make_error("cannot create '" + file.parent_path().string() + "': " + ec.message());
  // A path that is not UTF-8 cannot be written as JSON text: stored with U+FFFD, it fails to open by name later.
  return file_write_atomic(file.string(), nlohmann::json(recent).dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace attnviz
