// Preset sentences (assets/presets.json): the examples teachers start from, with English and
// Korean names. Parsing only; the app decides what a preset does.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"

namespace attnviz {

struct Preset {
  std::string id;
  std::string name_en, name_ko;
  std::string text;         // the sentence (the target in cross-attention)
  std::string source;       // non-empty: a cross-attention pair
  std::string model;        // non-empty: the shipped demo the sentence is for ("demo:gather"), opened with it
};

Result<std::vector<Preset>> presets_parse(std::string_view json_text);
Result<std::vector<Preset>> presets_load(const std::string& path);

}  // namespace attnviz
