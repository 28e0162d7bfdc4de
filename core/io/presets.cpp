// Strict reading of the presets file: every entry needs an id, both names and a text.
#include "io/presets.h"

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "io/json.h"

namespace attnviz {

Result<std::vector<Preset>> presets_parse(std::string_view json_text) {
  auto parsed = json_parse_strict(json_text, "the file");
  if (!parsed) return make_error("presets: " + parsed.error());
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return make_error("presets: not a JSON object");
  auto list = j.find("presets");
  if (list == j.end() || !list->is_array()) return make_error("presets: no 'presets' list");
  std::vector<Preset> out;
  for (const auto& e : *list) {
    auto str = [&](const char* key, bool required, std::string& field) -> bool {
      auto it = e.find(key);
      if (it == e.end()) return !required;
      if (!it->is_string()) return false;
      field = it->get<std::string>();
      return true;
    };
    Preset p;
    if (!e.is_object() || !str("id", true, p.id) || !str("name_en", true, p.name_en) || !str("name_ko", true, p.name_ko) ||
        !str("text", true, p.text) || !str("source", false, p.source))
      return make_error("presets: entry " + std::to_string(out.size()) + " needs string fields id, name_en, name_ko, text");
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<Preset>> presets_load(const std::string& path) {
  auto bytes = file_read_bytes(path, 1 << 20);
  if (!bytes) return make_error(bytes.error());
  return presets_parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

}  // namespace attnviz
