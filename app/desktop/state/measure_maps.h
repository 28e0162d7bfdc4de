// The maps the heatmap views draw when the measure is not the softmax weights: every head's
// value-norm map, or each layer's rollout (shared by its heads). Built once per trace and measure
// by app_update (never per frame), headless.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "analysis/measures.h"
#include "shell/strings.h"

namespace attnviz {

// The maps views ask for from a trace that forms them on demand (MapsKept::none, model/head_map.h):
// formed when first asked for and kept while asked for again, the least recently asked dropped once
// they pass kFormedMapsBytes (two maps are always kept). The UI thread's alone.
inline constexpr int64_t kFormedMapsBytes = int64_t{1} << 30;
class FormedMaps {
 public:
  // Head h of `layer` in `trace` (whose version is trace_version), with its first key set aside
  // (attention_first_key_aside) when first_aside.
  std::shared_ptr<const Mat> get(const Trace& trace, uint64_t trace_version, int layer, int head, bool first_aside);
  int held() const { return static_cast<int>(entries_.size()); }

 private:
  struct Entry {
    const Trace* trace = nullptr;
    int layer = 0, head = 0;
    bool first_aside = false;
    std::shared_ptr<const Mat> map;
  };
  uint64_t trace_version_ = 0;
  std::list<Entry> entries_;  // the most recently asked first
  int64_t bytes_ = 0;
};

struct MeasureMaps {
  AttentionMeasure measure = AttentionMeasure::weights;
  bool first_aside = false;    // the maps hold the measure with the first key set aside (weights, rollout)
  uint64_t trace_version = 0;  // the trace they were built from; 0: none
  uint64_t version = 0;        // bumped on every rebuild (textures follow it)
  std::vector<Mat> maps;       // [layer * NH + head]; empty for the plain weights or on error
  float vmax = 1.0f;           // the largest value: colours span [0, vmax]; 1 while there are no maps
  std::string error;           // why the measure cannot be shown (rollout of cross-attention)
  mutable FormedMaps formed;   // a trace that forms its maps on demand: the ones views asked for
};

// Rebuilds `maps` when the trace, its version, the measure or `first_aside` changed. `first_aside`
// (attention_first_key_aside) applies to the weights and the rollout, whose rows sum to 1.
void measure_maps_refresh(MeasureMaps& maps, AttentionMeasure measure, const Model* model, const Trace* trace,
                          uint64_t trace_version, bool first_aside = false);
// Why `measure` is not built for a trace that forms its maps on demand, naming the longest input offered.
std::string measure_on_demand_refusal(AttentionMeasure measure, const ModelConfig& config);
// Whether the first key can be set aside for a measure (its rows are distributions).
bool measure_sets_first_aside(AttentionMeasure measure);

// The measure's name in the UI's language (the Heads view's combo, the exported figures).
const char* measure_label(Lang lang, AttentionMeasure measure);

// The map a view shows for one head: the measure's, or the weights when the measure is the
// weights or could not be built.
// A map of `maps` or of the trace is pointed to, not owned (they must outlive the pointer); a formed
// one (a trace that forms its maps on demand) is shared with maps.formed.
std::shared_ptr<const Mat> measure_map_of(const MeasureMaps& maps, const Trace& trace, int layer, int head);

}  // namespace attnviz
