// Session JSON: {"format": "attnviz.session", "version": 1, "sentence": ..., "config": {...}, ...}.
// "generator" came later within version 1: it is optional, and its absence means the first one.
#include "io/session.h"

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "base/json.h"

namespace attnviz {

namespace {

constexpr int kMaxDepth = 32;                   // a session is 4 levels deep; more is not ours
constexpr uint64_t kMaxSessionBytes = 8 << 20;  // sentences are at most 1 MB; masks are small

Status read_string(const nlohmann::json& j, const char* key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (!it->is_string()) return make_error(std::string("'") + key + "' must be text");
  out = it->get<std::string>();
  return Ok{};
}

Status read_int(const nlohmann::json& j, const char* key, int lo, int hi, int& out) {
  auto it = j.find(key);
  if (it == j.end()) return Ok{};
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
    return make_error(std::string("'") + key + "' must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  out = static_cast<int>(it->get<int64_t>());
  return Ok{};
}

}  // namespace

std::string session_to_json(const Session& s) {
  nlohmann::ordered_json j;
  j["format"] = "attnviz.session";
  j["version"] = kSessionVersion;
  j["sentence"] = s.sentence;
  j["source_sentence"] = s.source_sentence;
  j["cross"] = s.cross;
  j["config"] = nlohmann::ordered_json::parse(config_to_json(s.config).dump());
  j["seed"] = s.seed;
  j["generator"] = rng_generator_name(s.generator);
  j["mask"] = nlohmann::ordered_json::parse(mask_to_json(s.mask).dump());
  j["selection"] = {{"layer", s.layer}, {"head", s.head}, {"query", s.query}};
  j["ui"] = s.ui;
  // A pasted sentence may hold bytes that are not UTF-8, which JSON cannot carry: they are written as
  // U+FFFD, as the tokenizer reads them, rather than failing the save (or the remembered state at exit).
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<Session> session_from_json(std::string_view text) {
  auto fail = [](const std::string& m) { return make_error("session: " + m); };
  if (text.size() > kMaxSessionBytes) return fail("the file is too large to be a session");
  JsonError e;
  auto parsed = json_parse_strict(text, "the file", kMaxDepth, &e);
  if (!parsed) {
    if (e.fault == JsonFault::too_deep) return fail("the file is nested too deeply to be a session");
    if (e.fault == JsonFault::syntax) return fail("the file is not valid JSON (truncated or damaged?)");
    return fail(parsed.error());
  }
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return fail("the file is not a JSON object");
  // find + is_string, not j.value(): value() throws when "format" holds an object or a number.
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != "attnviz.session")
    return fail("this is not an attnviz session file");
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) return fail("the file has no version");
  if (version->get<int64_t>() != kSessionVersion)
    return fail("version " + std::to_string(version->get<int64_t>()) + " is not supported (this attnviz reads version " +
                std::to_string(kSessionVersion) + ")");
  if (Status st = json_keys_known(j, {"format", "version", "sentence", "source_sentence", "cross", "config", "seed",
                                      "generator", "mask", "selection", "ui"});
      !st)
    return fail(st.error());
  Session s;
  for (Status st : {read_string(j, "sentence", s.sentence), read_string(j, "source_sentence", s.source_sentence)})
    if (!st) return fail(st.error());
  if (auto it = j.find("cross"); it != j.end()) {
    if (!it->is_boolean()) return fail("'cross' must be true or false");
    s.cross = it->get<bool>();
  }
  if (auto it = j.find("seed"); it != j.end()) {
    if (!it->is_number_unsigned()) return fail("'seed' must be a non-negative whole number");
    s.seed = it->get<uint64_t>();
  }
  s.generator = kRngUnrecorded;
  if (auto it = j.find("generator"); it != j.end()) {
    if (!it->is_string()) return fail("'generator' must be text");
    auto g = rng_generator_from_name(it->get_ref<const std::string&>());
    if (!g) return fail(g.error());
    s.generator = *g;
  }
  if (auto it = j.find("config"); it != j.end()) {
    auto c = config_from_json(*it);
    if (!c) return fail(c.error());
    s.config = std::move(*c);
  }
  if (auto it = j.find("mask"); it != j.end()) {
    auto m = mask_from_json(*it);
    if (!m) return fail(m.error());
    s.mask = std::move(*m);
  }
  if (auto it = j.find("selection"); it != j.end()) {
    if (!it->is_object()) return fail("'selection' must be an object");
    if (Status st = json_keys_known(*it, {"layer", "head", "query"}); !st) return fail("selection: " + st.error());
    for (Status st : {read_int(*it, "layer", 0, kMaxLayers, s.layer), read_int(*it, "head", 0, kMaxDModel, s.head),
                      read_int(*it, "query", -1, kMaxTokens, s.query)})
      if (!st) return fail(st.error());
  }
  if (auto it = j.find("ui"); it != j.end()) {
    if (!it->is_object()) return fail("'ui' must be an object of text values");
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return fail("'ui." + key + "' must be text");
      s.ui[key] = value.get<std::string>();
    }
  }
  return s;
}

Status session_save(const std::string& path, const Session& session) {
  return file_write_atomic(path, std::string_view(session_to_json(session)));
}

Result<Session> session_load(const std::string& path) {
  const auto parse = [](std::span<const uint8_t> b) {
    return session_from_json(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
  };
  return file_parse(path, parse, kMaxSessionBytes);
}

}  // namespace attnviz
