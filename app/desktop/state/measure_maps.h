// The maps the heatmap views draw when the measure is not the softmax weights: every head's
// value-norm map, or each layer's rollout (shared by its heads). Built once per trace and measure
// by app_update (never per frame), headless.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/measures.h"
#include "shell/strings.h"

namespace attnviz {

struct MeasureMaps {
  AttentionMeasure measure = AttentionMeasure::weights;
  bool first_aside = false;    // the maps hold the measure with the first key set aside (weights, rollout)
  uint64_t trace_version = 0;  // the trace they were built from; 0: none
  uint64_t version = 0;        // bumped on every rebuild (textures follow it)
  std::vector<Mat> maps;       // [layer * NH + head]; empty for the plain weights or on error
  float vmax = 1.0f;           // the largest value: colours span [0, vmax]; 1 while there are no maps
  std::string error;           // why the measure cannot be shown (rollout of cross-attention)
};

// Rebuilds `maps` when the trace, its version, the measure or `first_aside` changed. `first_aside`
// (attention_first_key_aside) applies to the weights and the rollout, whose rows sum to 1.
void measure_maps_refresh(MeasureMaps& maps, AttentionMeasure measure, const Model* model, const Trace* trace,
                          uint64_t trace_version, bool first_aside = false);
// Whether the first key can be set aside for a measure (its rows are distributions).
bool measure_sets_first_aside(AttentionMeasure measure);

// The measure's name in the UI's language (the Heads view's combo, the exported figures).
const char* measure_label(Lang lang, AttentionMeasure measure);

// The map a view shows for one head: the measure's, or the weights when the measure is the
// weights or could not be built.
const Mat& measure_map_of(const MeasureMaps& maps, const Trace& trace, int layer, int head);

}  // namespace attnviz
