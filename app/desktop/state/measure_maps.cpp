// Rollout is one (T, T) product per layer; value norms one (Tk, HS)·(HS, C) product per head.
#include "state/measure_maps.h"

namespace attnviz {

bool measure_sets_first_aside(AttentionMeasure measure) { return measure != AttentionMeasure::value_norm; }

void measure_maps_refresh(MeasureMaps& m, AttentionMeasure measure, const Model* model, const Trace* trace,
                          uint64_t trace_version, bool first_aside) {
  first_aside = first_aside && measure_sets_first_aside(measure);
  if (m.measure == measure && m.trace_version == trace_version && m.first_aside == first_aside) return;
  m.measure = measure;
  m.first_aside = first_aside;
  m.trace_version = trace_version;
  m.maps.clear();
  m.error.clear();
  m.vmax = 1.0f;
  ++m.version;
  if (!trace) return;
  const int L = static_cast<int>(trace->layers.size()), NH = trace->config.n_heads;
  if (measure == AttentionMeasure::weights) {
    if (!first_aside) return;
    m.maps.reserve(static_cast<size_t>(L * NH));
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < NH; ++h) m.maps.push_back(attention_first_key_aside(trace->head(l, h).weights));
    return;
  }
  if (!model && !trace->weights_only) return;  // the model's first result is not in yet
  if (!model && measure == AttentionMeasure::value_norm) {  // rollout needs only the weights
    m.error = "value-norm needs the model's values and W_O; an attention file holds only the weights";
    return;
  }
  std::vector<Mat> maps;
  maps.reserve(static_cast<size_t>(L * NH));
  if (measure == AttentionMeasure::rollout) {
    auto r = attention_rollout(*trace);
    if (!r) {
      m.error = r.error();
      return;
    }
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < NH; ++h)
        maps.push_back(first_aside ? attention_first_key_aside((*r)[static_cast<size_t>(l)]) : (*r)[static_cast<size_t>(l)]);
  } else {
    float top = 0;
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < NH; ++h) {
        auto map = value_norm_map(*model, *trace, l, h);
        if (!map) {
          m.error = map.error();
          return;
        }
        if (map->size() > 0) top = std::max(top, map->maxCoeff());
        maps.push_back(std::move(*map));
      }
    m.vmax = top > 0 ? top : 1.0f;
  }
  m.maps = std::move(maps);
}

const Mat& measure_map_of(const MeasureMaps& m, const Trace& trace, int layer, int head) {
  const size_t i = static_cast<size_t>(layer * trace.config.n_heads + head);
  return i < m.maps.size() ? m.maps[i] : trace.head(layer, head).weights;
}

const char* measure_label(Lang lang, AttentionMeasure m) {
  switch (m) {
    case AttentionMeasure::weights: return tr(lang, Str::measure_weights);
    case AttentionMeasure::value_norm: return tr(lang, Str::measure_value_norm);
    case AttentionMeasure::rollout: return tr(lang, Str::measure_rollout);
  }
  return "?";
}

}  // namespace attnviz
