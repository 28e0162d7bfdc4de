// Rollout is one (T, T) product per layer; value norms one (Tk, HS)·(HS, C) product per head.
#include "state/measure_maps.h"

#include "model/head_map.h"

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
  if (trace_forms_maps(*trace)) {  // formed per head when asked (FormedMaps), never all at once
    if (measure != AttentionMeasure::weights) m.error = measure_on_demand_refusal(measure, trace->config);
    return;
  }
  if (measure == AttentionMeasure::weights) {
    if (!first_aside) return;
    m.maps.reserve(static_cast<size_t>(L * NH));
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < NH; ++h) m.maps.push_back(attention_first_key_aside(trace->head(l, h).weights_kept));
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

std::shared_ptr<const Mat> measure_map_of(const MeasureMaps& m, const Trace& trace, int layer, int head) {
  const size_t i = static_cast<size_t>(layer * trace.config.n_heads + head);
  if (i < m.maps.size()) return std::shared_ptr<const Mat>(std::shared_ptr<const Mat>(), &m.maps[i]);  // not owned
  if (trace_forms_maps(trace)) return m.formed.get(trace, m.trace_version, layer, head, m.first_aside);
  return head_map_shared(trace, layer, head);
}

std::shared_ptr<const Mat> FormedMaps::get(const Trace& trace, uint64_t trace_version, int layer, int head,
                                           bool first_aside) {
  if (trace_version != trace_version_) {
    entries_.clear();
    bytes_ = 0;
    trace_version_ = trace_version;
  }
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->trace == &trace && it->layer == layer && it->head == head && it->first_aside == first_aside) {
      entries_.splice(entries_.begin(), entries_, it);  // the most recently asked
      return it->map;
    }
  Mat map = *head_map(trace, layer, head);
  if (first_aside) map = attention_first_key_aside(map);
  const int64_t size = static_cast<int64_t>(map.size()) * static_cast<int64_t>(sizeof(float));
  entries_.push_front(Entry{&trace, layer, head, first_aside, std::make_shared<const Mat>(std::move(map))});
  bytes_ += size;
  while (entries_.size() > 2 && bytes_ > kFormedMapsBytes) {  // a caller may still hold one: shared
    bytes_ -= static_cast<int64_t>(entries_.back().map->size()) * static_cast<int64_t>(sizeof(float));
    entries_.pop_back();
  }
  return entries_.front().map;
}

std::string measure_on_demand_refusal(AttentionMeasure measure, const ModelConfig& c) {
  // The longest input whose trace keeps its maps, as trace_maps_kept decides it.
  int64_t fit = 1;
  while (fit < kMaxTokens && trace_maps_kept(c, fit + 1, fit + 1) != MapsKept::none) ++fit;
  return std::string(measure == AttentionMeasure::rollout ? "rollout" : "value-norm") +
         " is built for every head at once, which this input's maps are too many for: they are formed one head at a "
         "time as views ask. It is offered up to " + std::to_string(fit) + " tokens in this model";
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
