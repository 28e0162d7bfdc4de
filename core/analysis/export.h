// Read-only views of a Trace for export: JSON (tokens, config, per layer and head weights and
// statistics, final hidden states), CSV of one head, and the heatmap grid of one layer for PNG.
// Used by the CLI and the app alike; nothing here recomputes attention.
#pragma once
#include <string>

#include "base/result.h"
#include "model/trace.h"
#include "render/heatmap.h"

namespace attnviz {

struct JsonExportOptions {
  bool weights = true;       // every head's (Tq, Tk) weights
  bool hidden = true;        // final hidden states (Tq, C)
  int top_k = 3;             // strongest keys per query and head (0: none)
};

// The JSON text of a trace; floats are written as the shortest text that reads back exactly.
std::string trace_to_json(const Trace& trace, const MaskSpec& mask, const JsonExportOptions& options = {});

// One head's weights as CSV: a header row of key tokens, then one row per query token.
Result<std::string> trace_head_csv(const Trace& trace, int layer, int head);

// A layer's heads as a grid spec; it points into the trace, which must outlive it.
Result<HeatmapGridSpec> trace_layer_grid(const Trace& trace, int layer);

// Layer and head numbers are checked in one place, with the valid range in the message.
Status trace_check_layer_head(const Trace& trace, int layer, int head);

}  // namespace attnviz
