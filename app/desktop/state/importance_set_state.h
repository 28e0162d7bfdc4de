// "Which heads matter" over a set of sentences (core/analysis/importance_set.h) in the app: the set
// (the coreference demo's held-out sentences, or a file of one sentence a line), the run off the UI
// thread on the shown model, its result, and the cell whose sentences are listed. Headless; the
// importance panel (widgets/importance_panel.cpp) draws it.
#pragma once
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/importance_set.h"
#include "io/presets.h"
#include "base/no_copy.h"
#include "shell/strings.h"
#include "state/background_job.h"

namespace attnviz {

struct AppState;

enum class ImportanceScope { sentence, set };

class ImportanceSetState : NoCopy {
 public:
  ~ImportanceSetState() {
    cancel = true;  // a run ends between heads: quitting does not wait for a whole set
    job.join();
  }

  ImportanceScope scope = ImportanceScope::sentence;
  std::vector<SetSentence> sentences;  // the set chosen
  std::string source;                  // where it came from: "demo", "pairs", "preset:<id>" or the file's path
  std::string file_path_edit = "sentences.txt";  // the panel's path field
  std::string error;                   // why the last load or run failed (the previous set stays)
  std::atomic<bool> cancel{false};
  BackgroundJob<Result<ImportanceSetGrid>> job;
  std::optional<ImportanceSetGrid> result;
  std::shared_ptr<const Model> result_model;  // the model it was measured on
  int cell_layer = -1, cell_head = -1;        // the clicked cell: the sentences it matters for are listed
};

// The set := the coreference demo's 1,560 held-out sentences (attnviz-cli sentences coref).
void importance_set_use_demo(AppState& app);
// The set := those sentences each followed by its minimal pair (the property word swapped for its
// partner of the other role), without repeats: the pairs a lecture compares, all at once.
void importance_set_use_minimal_pairs(AppState& app);
// The preset sets (assets/presets.json "sets") that fit the model shown: a set for a shipped demo
// while that demo is shown, a set for no model in particular always.
std::vector<const PresetSet*> importance_set_presets(const AppState& app);
// The set := a preset set's sentences (source "preset:<id>"). Errors: no preset set with that id.
Status importance_set_use_preset(AppState& app, const std::string& id);
// Where the chosen set came from, as the panel names it: the demo's held-out sentences, their pairs,
// a preset set's name in `lang`, or the file's path.
std::string importance_set_source_name(const AppState& app, Lang lang);
// The set := FILE's sentences (sentence_set_parse's rules). Errors name the file and change nothing.
Status importance_set_load_file(AppState& app, const std::string& path);
// Measures the set on the model of the shown trace, off the UI thread (ablation mode and mask as
// shown). Errors: no set, no trace, a run going.
Status importance_set_start(AppState& app);
// Installs a finished run; called once a frame.
void importance_set_poll(AppState& app);
// The shown result, when it was measured on the model now shown.
const ImportanceSetGrid* importance_set_shown(const AppState& app);

}  // namespace attnviz
