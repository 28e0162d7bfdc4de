// Strict reading of the presets file: every entry needs an id, both names and a text, every set an
// id, both names and its sentences; an unknown key, at the top or in an entry, is an error naming it.
#include "io/presets.h"

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/json.h"

namespace attnviz {

namespace {

constexpr std::string_view kPresetsFormat = "attnviz.presets/1";

// A field that must be a string when present; `required` ones must be present.
bool string_field(const nlohmann::json& e, const char* key, bool required, std::string& field) {
  auto it = e.find(key);
  if (it == e.end()) return !required;
  if (!it->is_string()) return false;
  field = it->get<std::string>();
  return true;
}

Status check_model(const std::string& model, const std::string& where) {
  if (!model.empty() && model.rfind("demo:", 0) != 0) return make_error("presets: " + where + ": model must name a shipped demo (demo:...)");
  return Ok{};
}

Result<std::vector<PresetSet>> sets_parse(const nlohmann::json& j) {
  std::vector<PresetSet> out;
  auto list = j.find("sets");
  if (list == j.end()) return out;
  if (!list->is_array()) return make_error("presets: 'sets' must be a list");
  for (const auto& e : *list) {
    const std::string where = "set " + std::to_string(out.size());
    if (!e.is_object()) return make_error("presets: " + where + " is not an object");
    if (Status s = json_keys_known(e, {"id", "name_en", "name_ko", "model", "sentences"}); !s) return make_error("presets: " + where + ": " + s.error());
    PresetSet set;
    if (!string_field(e, "id", true, set.id) || !string_field(e, "name_en", true, set.name_en) || !string_field(e, "name_ko", true, set.name_ko) ||
        !string_field(e, "model", false, set.model))
      return make_error("presets: " + where + " needs string fields id, name_en, name_ko");
    if (Status s = check_model(set.model, where); !s) return make_error(s.error());
    auto sentences = e.find("sentences");
    if (sentences == e.end() || !sentences->is_array() || sentences->empty())
      return make_error("presets: " + where + " (" + set.id + ") needs a non-empty 'sentences' list");
    for (const auto& text : *sentences) {
      if (!text.is_string() || text.get_ref<const std::string&>().empty())
        return make_error("presets: " + where + " (" + set.id + "): sentence " + std::to_string(set.sentences.size() + 1) + " is not a non-empty string");
      set.sentences.push_back(text.get<std::string>());
    }
    out.push_back(std::move(set));
  }
  return out;
}

}  // namespace

Result<PresetsFile> presets_parse(std::string_view json_text) {
  auto parsed = json_parse_strict(json_text, "the file");
  if (!parsed) return make_error("presets: " + parsed.error());
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return make_error("presets: not a JSON object");
  if (Status s = json_keys_known(j, {"format", "presets", "sets"}); !s) return make_error("presets: " + s.error());
  // The one version there is; a later one may mean something this reader does not know.
  if (auto format = j.find("format");
      format != j.end() && (!format->is_string() || format->get_ref<const std::string&>() != kPresetsFormat))
    return make_error("presets: 'format' must be '" + std::string(kPresetsFormat) + "'");
  auto list = j.find("presets");
  if (list == j.end() || !list->is_array()) return make_error("presets: no 'presets' list");
  std::vector<Preset> out;
  for (const auto& e : *list) {
    if (Status s = json_keys_known(e, {"id", "name_en", "name_ko", "text", "source", "model"}); !s)
      return make_error("presets: entry " + std::to_string(out.size()) + ": " + s.error());
    Preset p;
    if (!e.is_object() || !string_field(e, "id", true, p.id) || !string_field(e, "name_en", true, p.name_en) ||
        !string_field(e, "name_ko", true, p.name_ko) || !string_field(e, "text", true, p.text) || !string_field(e, "source", false, p.source) ||
        !string_field(e, "model", false, p.model))
      return make_error("presets: entry " + std::to_string(out.size()) + " needs string fields id, name_en, name_ko, text");
    if (Status s = check_model(p.model, "entry " + std::to_string(out.size())); !s) return make_error(s.error());
    out.push_back(std::move(p));
  }
  auto sets = sets_parse(j);
  if (!sets) return make_error(sets.error());
  return PresetsFile{std::move(out), std::move(*sets)};
}

Result<PresetsFile> presets_load(const std::string& path) {
  auto bytes = file_read_bytes(path, 1 << 20);
  if (!bytes) return make_error(bytes.error());
  return presets_parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

}  // namespace attnviz
