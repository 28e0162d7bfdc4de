// A saved session: the sentence(s), model config, seed and its generator, masks and what was
// selected, as JSON.
// Core knows the engine part; the app's own view settings travel as plain strings in `ui`, so
// core stays free of UI types. Reading is strict: unknown keys (but in `ui`, whose keys are the
// app's), wrong types, unknown versions, absurd nesting and invalid configs are errors, and nothing
// partial is returned.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/rng.h"
#include "model/config.h"

namespace attnviz {

inline constexpr int kSessionVersion = 1;

struct Session {
  std::string sentence;
  std::string source_sentence;
  bool cross = false;
  ModelConfig config;
  uint64_t seed = 1;
  // What draws the sandbox's weights from the seed. A file without "generator" was written before
  // there was a choice and reads as kRngUnrecorded, so it reopens to the weights it showed.
  RngGenerator generator = kRngNewest;
  MaskSpec mask;
  int layer = 0, head = 0, query = -1;       // selection
  std::map<std::string, std::string> ui;     // app settings: view, language, colour map, ...
};

std::string session_to_json(const Session& session);
Result<Session> session_from_json(std::string_view text);
Status session_save(const std::string& path, const Session& session);  // temporary file + rename
Result<Session> session_load(const std::string& path);

}  // namespace attnviz
