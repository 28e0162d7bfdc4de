// Read-only views of a Trace for export: JSON (tokens, config, per layer and head weights and
// statistics, final hidden states), CSV of one head, and the heatmap grid of one layer for PNG.
// Used by the CLI and the app alike; nothing here recomputes attention.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/trace.h"
#include "render/heatmap.h"

namespace attnviz {

struct JsonExportOptions {
  bool weights = true;       // every head's (Tq, Tk) weights
  bool hidden = true;        // final hidden states (Tq, C)
  int top_k = 3;             // strongest keys per query and head (0: none)
  // Derived measures (analysis/measures.h), written when given: "value_norm" beside each head's
  // weights ([L][NH] maps), "rollout" on each layer ([L] maps).
  const std::vector<std::vector<Mat>>* value_norm = nullptr;
  const std::vector<Mat>* rollout = nullptr;
};

// The JSON text of a trace; floats are written as the shortest text that reads back exactly.
std::string trace_to_json(const Trace& trace, const MaskSpec& mask, const JsonExportOptions& options = {});

// One head's weights as CSV: a header row of key tokens, then one row per query token. `map`, when
// given, is written instead of the weights (a measure's (Tq, Tk) map of that head).
Result<std::string> trace_head_csv(const Trace& trace, int layer, int head, const Mat* map = nullptr);

// A layer's heads as a grid spec; it points into the trace, which must outlive it. `maps` (one per
// head, outliving the spec too) replace the weights, scaled to their largest value and captioned
// with `measure`.
Result<HeatmapGridSpec> trace_layer_grid(const Trace& trace, int layer, const std::vector<Mat>* maps = nullptr,
                                         std::string_view measure = {});

// One CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

// Layer and head numbers are checked in one place, with the valid range in the message.
Status trace_check_layer_head(const Trace& trace, int layer, int head);

}  // namespace attnviz
