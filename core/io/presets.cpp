// Strict reading of the presets file: every entry needs an id, both names and a text; an unknown
// key, at the top or in an entry, is an error naming it.
#include "io/presets.h"

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/json.h"

namespace attnviz {

namespace {

constexpr std::string_view kPresetsFormat = "attnviz.presets/1";

}  // namespace

Result<std::vector<Preset>> presets_parse(std::string_view json_text) {
  auto parsed = json_parse_strict(json_text, "the file");
  if (!parsed) return make_error("presets: " + parsed.error());
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return make_error("presets: not a JSON object");
  if (Status s = json_keys_known(j, {"format", "presets"}); !s) return make_error("presets: " + s.error());
  // The one version there is; a later one may mean something this reader does not know.
  if (auto format = j.find("format");
      format != j.end() && (!format->is_string() || format->get_ref<const std::string&>() != kPresetsFormat))
    return make_error("presets: 'format' must be '" + std::string(kPresetsFormat) + "'");
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
    if (Status s = json_keys_known(e, {"id", "name_en", "name_ko", "text", "source", "model"}); !s)
      return make_error("presets: entry " + std::to_string(out.size()) + ": " + s.error());
    Preset p;
    if (!e.is_object() || !str("id", true, p.id) || !str("name_en", true, p.name_en) || !str("name_ko", true, p.name_ko) ||
        !str("text", true, p.text) || !str("source", false, p.source) || !str("model", false, p.model))
      return make_error("presets: entry " + std::to_string(out.size()) + " needs string fields id, name_en, name_ko, text");
    if (!p.model.empty() && p.model.rfind("demo:", 0) != 0)
      return make_error("presets: entry " + std::to_string(out.size()) + ": model must name a shipped demo (demo:...)");
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
