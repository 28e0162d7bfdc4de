// Activation patching in the app (core/analysis/patching.h): sentence A is the clean run, sentence B
// (Compare's second sentence, the Coreference view's minimal pair) the corrupt one, and the grid says
// how much of A's answer each head's output, or each layer's input at each position, brings back into
// B. The run goes off the UI thread on the shown model, both sentences traced again with every head
// on; a newer pair of sentences cancels it and starts again. Headless; widgets/patching_panel draws it.
#pragma once
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/patching.h"
#include "base/no_copy.h"
#include "shell/strings.h"
#include "state/background_job.h"

namespace attnviz {

struct AppState;

// What a run measures: the model, the two sentences, the mask they are traced under, by what.
struct PatchingRequest {
  std::shared_ptr<const Model> model;
  std::string clean, corrupt;
  MaskSpec mask;
  PatchBy by = PatchBy::head;
  int64_t max_memory = 0;
  friend bool operator==(const PatchingRequest&, const PatchingRequest&) = default;
};

struct PatchingRun {
  PatchingRequest request;
  std::optional<PatchResult> result;
  std::optional<PatchFailure> failure;   // why there is no result...
  std::string trace_error;               // ...or a sentence that could not be traced (English, from core)
  std::vector<std::string> clean_tokens, corrupt_tokens;  // the columns of the by-position grid
};

class PatchingState : NoCopy {
 public:
  ~PatchingState() {
    cancel = true;  // a run stops between patched runs
    job.join();
  }
  PatchBy by = PatchBy::head;        // what the panel asks for (sessions do not keep it)
  std::atomic<bool> cancel{false};
  BackgroundJob<PatchingRun> job;
  std::optional<PatchingRequest> running;  // what the job is measuring
  std::optional<PatchingRun> shown;        // the newest finished run
  int cell_row = -1, cell_column = -1;     // the clicked cell
};

// The run the app's state asks for now: A and B as the shown model traces them. Empty without B
// (Compare's sentence-B mode), without a model that ran, or for an attention file.
std::optional<PatchingRequest> patching_wanted(const AppState& app);
// Keeps a finished run (once a frame from app_update, whether or not the panel is drawn).
void patching_take(AppState& app);
// Takes a finished run and starts the wanted one when the shown run is not it (cancelling a run
// for older sentences). Called each frame the panel is drawn, and by scripts.
void patching_update(AppState& app);
// The shown run when it answers the wanted request; null otherwise (being measured, or none).
const PatchingRun* patching_current(const AppState& app);
// The shown run on an exported page (the Coreference and Compare figures): its metric and the grid of
// effects on the diverging scale (panel "patching"); nothing when no run answers the current pair.
struct FigurePage;
Status patching_page_part(FigurePage& page, const AppState& app);

// Why a run has no result, in the UI's language (a sentence that could not be traced: core's English).
std::string patching_failure_text(const PatchingRun& run, Lang lang);

}  // namespace attnviz
