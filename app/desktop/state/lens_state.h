// The logit lens and direct logit attribution for the shown trace (core/analysis/logit_lens.h,
// logit_attribution.h), read at one position: the chosen query row, or the answer's (the last
// token). Computed off the UI thread when the trace or the position changes (one pass of the output
// head per layer over the whole vocabulary, and the attribution's parts: seconds for a large model),
// then kept; a head's write is computed on the click that asks for it. Headless; widgets/lens_panel
// draws it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/logit_attribution.h"
#include "analysis/logit_lens.h"
#include "state/keyed_job.h"

namespace attnviz {

struct AppState;

struct LensKey {
  uint64_t version = 0;  // the trace's
  int position = -1;
  friend bool operator==(const LensKey&, const LensKey&) = default;
};

struct LensResult {
  int position = -1;
  std::vector<LensRow> rows;                    // the embeddings, then after each layer
  std::string rows_error;                       // why there are none (English, from core)
  std::optional<LogitAttribution> attribution;  // the top token against the second
  std::string attribution_error;
};

struct LensState {
  KeyedJob<LensKey, LensResult> job;
  int cell_layer = -1, cell_head = -1;  // the head whose write is listed
  LensKey write_key;                    // what `write` was computed for
  std::optional<HeadWrite> write;
  std::string write_error;
};

// The position the lens reads: the chosen query row of trace A, else its last token.
int lens_position(const AppState& app);
// Starts computing for trace A at lens_position when that is not shown yet (once a frame).
void lens_refresh(AppState& app);
// The lens for trace A at lens_position, or null while it is computed (or without a trace).
const LensResult* lens_current(const AppState& app);
// The same, computed now if it must be (exports, scripts): null only without a trace.
const LensResult* lens_wait(AppState& app);
// The lens and the attribution grid on an exported page (the Statistics figure), when they are
// current for the shown trace; nothing otherwise.
struct FigurePage;
Status lens_page_part(FigurePage& page, const AppState& app);

// Chooses the head whose write is listed (-1, -1: none), and computes it.
void lens_choose_head(AppState& app, int layer, int head);
// The chosen head's write, when it was computed for the current trace and position.
const HeadWrite* lens_head_write(const AppState& app);

}  // namespace attnviz
