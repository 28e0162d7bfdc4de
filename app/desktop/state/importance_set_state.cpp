#include "state/importance_set_state.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "base/file_io.h"
#include "demos/coref_demo.h"
#include "state/app_state.h"
#include "state/model_source.h"

namespace attnviz {

void importance_set_use_demo(AppState& app) {
  ImportanceSetState& s = app.importance_set;
  s.sentences.clear();
  const CorefSplit split = coref_generate(kCorefDemoSeed);
  int line = 0;
  for (const CorefExample& e : split.heldout) s.sentences.push_back(SetSentence{++line, e.text});
  s.source = "demo";
  s.error.clear();
  s.scope = ImportanceScope::set;
}

void importance_set_use_minimal_pairs(AppState& app) {
  ImportanceSetState& s = app.importance_set;
  s.sentences.clear();
  std::set<std::string> seen;
  int line = 0;
  for (const CorefExample& e : coref_generate(kCorefDemoSeed).heldout)
    for (const std::string& text : {e.text, coref_minimal_pair(coref_make(e.text))})
      if (!text.empty() && seen.insert(text).second) s.sentences.push_back(SetSentence{++line, text});
  s.source = "pairs";
  s.error.clear();
  s.scope = ImportanceScope::set;
}

std::vector<const PresetSet*> importance_set_presets(const AppState& app) {
  std::vector<const PresetSet*> out;
  const std::string shown = std::string("demo:") + source_id(app.source);
  for (const PresetSet& set : app.preset_sets)
    if (set.model.empty() || set.model == shown) out.push_back(&set);
  return out;
}

Status importance_set_use_preset(AppState& app, const std::string& id) {
  const auto it = std::find_if(app.preset_sets.begin(), app.preset_sets.end(), [&](const PresetSet& p) { return p.id == id; });
  if (it == app.preset_sets.end()) return make_error("no preset set '" + id + "' (presets.json has " + std::to_string(app.preset_sets.size()) + ")");
  ImportanceSetState& s = app.importance_set;
  s.sentences.clear();
  int line = 0;
  for (const std::string& text : it->sentences) s.sentences.push_back(SetSentence{++line, text});
  s.source = "preset:" + id;
  s.error.clear();
  s.scope = ImportanceScope::set;
  return Ok{};
}

std::string importance_set_source_name(const AppState& app, Lang lang) {
  const std::string& source = app.importance_set.source;
  if (source == "demo") return tr(lang, Str::imp_set_demo_name);
  if (source == "pairs") return tr(lang, Str::imp_set_pairs_name);
  if (source.rfind("preset:", 0) == 0)
    for (const PresetSet& p : app.preset_sets)
      if ("preset:" + p.id == source) return lang == Lang::ko ? p.name_ko : p.name_en;
  return source;
}

Status importance_set_load_file(AppState& app, const std::string& path) {
  ImportanceSetState& s = app.importance_set;
  auto bytes = file_read_bytes(path, uint64_t{16} << 20);
  if (!bytes) return make_error(bytes.error());
  auto sentences = sentence_set_parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!sentences) return make_error(path + ": " + sentences.error());
  s.sentences = std::move(*sentences);
  s.source = path;
  s.error.clear();
  s.scope = ImportanceScope::set;
  return Ok{};
}

Status importance_set_start(AppState& app) {
  ImportanceSetState& s = app.importance_set;
  if (s.sentences.empty()) return make_error("no set of sentences chosen (the demo's held-out sentences, or a file)");
  if (!app.trace || !app.trace_model) return make_error("no model has run yet");
  if (s.job.busy()) return make_error("the set is being measured");
  ImportanceSetInput in;
  in.mask = app.mask;
  in.mode = app.ablation.mode;
  in.max_memory = app.trace_max_memory;
  in.cancel = &s.cancel;
  s.cancel = false;
  s.error.clear();
  s.cell_layer = s.cell_head = -1;
  std::shared_ptr<const Model> model = app.trace_model;
  s.result_model = model;
  s.job.start([model, sentences = s.sentences, in] { return importance_set(*model, sentences, in); });
  return Ok{};
}

void importance_set_poll(AppState& app) {
  ImportanceSetState& s = app.importance_set;
  auto done = s.job.poll();
  if (!done) return;
  if (*done) {
    s.result = std::move(**done);
  } else {
    s.error = done->error();
    s.result.reset();
  }
}

const ImportanceSetGrid* importance_set_shown(const AppState& app) {
  const ImportanceSetState& s = app.importance_set;
  if (!s.result || s.result_model != app.trace_model) return nullptr;
  return &*s.result;
}

}  // namespace attnviz
