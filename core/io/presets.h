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

// A set of sentences to measure together ("Which heads matter" over a set): the file's "sets" list.
struct PresetSet {
  std::string id;
  std::string name_en, name_ko;
  std::string model;                   // non-empty: the shipped demo the sentences are for ("demo:coref")
  std::vector<std::string> sentences;  // at least one, none empty
};

// The file's "presets" (sentences) and "sets", each read strictly; the file is read once.
struct PresetsFile {
  std::vector<Preset> presets;
  std::vector<PresetSet> sets;
};

Result<PresetsFile> presets_parse(std::string_view json_text);
Result<PresetsFile> presets_load(const std::string& path);

}  // namespace attnviz
