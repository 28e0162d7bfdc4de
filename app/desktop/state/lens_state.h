// The logit lens and direct logit attribution for the shown trace (core/analysis/logit_lens.h,
// logit_attribution.h), read at one position: the chosen query row, or the answer's (the last
// token). Computed on the UI thread when the trace or the position changes (one pass of the output
// head per layer, and the attribution's parts), then kept. Headless; widgets/lens_panel draws it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/logit_attribution.h"
#include "analysis/logit_lens.h"

namespace attnviz {

struct AppState;

struct LensState {
  // Cache key: the trace's version and the position read.
  uint64_t version = 0;
  int position = -1;
  bool cached = false;
  std::vector<LensRow> rows;              // the embeddings, then after each layer
  std::string rows_error;                 // why there are none (English, from core)
  std::optional<LogitAttribution> attribution;  // the top token against the second
  std::string attribution_error;
  int cell_layer = -1, cell_head = -1;    // the head whose write is listed
  std::optional<HeadWrite> write;
  std::string write_error;
};

// The position the lens reads: the chosen query row of trace A, else its last token.
int lens_position(const AppState& app);
// Recomputes when trace A or the position changed; the head's write when the chosen cell changed.
void lens_refresh(AppState& app);
// The lens and the attribution grid on an exported page (the Statistics figure), when they are
// current for the shown trace (the panel computed them); nothing otherwise.
struct FigurePage;
Status lens_page_part(FigurePage& page, const AppState& app);

// Chooses the head whose write is listed (-1, -1: none).
void lens_choose_head(AppState& app, int layer, int head);

}  // namespace attnviz
