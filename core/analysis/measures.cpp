// Value norms need one (Tk, HS)·(HS, C) product per head; rollout one (T, T) product per layer.
#include "analysis/measures.h"

#include "base/enum_names.h"
#include "model/head_map.h"
#include "model/lean_layers.h"
#include "model/layer_source.h"

namespace attnviz {

namespace {
constexpr EnumNames<AttentionMeasure, 3> kMeasures{{{AttentionMeasure::weights, "weights"},
                                                    {AttentionMeasure::value_norm, "value-norm"},
                                                    {AttentionMeasure::rollout, "rollout"}}};

Status check_head(const Trace& trace, int layer, int head) {
  if (layer < 0 || layer >= static_cast<int>(trace.layers.size()))
    return make_error("layer " + std::to_string(layer) + " is not in the trace");
  if (head < 0 || head >= static_cast<int>(trace.layers[static_cast<size_t>(layer)].attn.heads.size()))
    return make_error("head " + std::to_string(head) + " is not in layer " + std::to_string(layer));
  return Ok{};
}
}  // namespace

std::string_view name_of(AttentionMeasure m) { return enum_name(kMeasures, m); }
std::optional<AttentionMeasure> measure_from_name(std::string_view s) { return enum_from_name(kMeasures, s); }

Result<Vec> value_norms(const Model& model, const Trace& trace, int layer, int head) {
  if (Status s = check_head(trace, layer, head); !s) return make_error(s.error());
  const ModelConfig& c = model.config;
  if (static_cast<int>(model.weights.layers.size()) != static_cast<int>(trace.layers.size()) ||
      c.d_model != trace.config.d_model || c.n_heads != trace.config.n_heads)
    return make_error("the trace was not made by this model");
  const int HS = c.head_size();
  const Mat& v = trace.head(layer, head).v;  // (Tk, HS): x_j W_V^h + b_V^h
  auto weights = model_layer(model, layer);
  if (!weights) return make_error(weights.error());
  const WeightMat& out_w = (*weights)->attn.out_w;  // (C, C)
  const Mat moved = v * out_w.middleCols(head * HS, HS).transpose();              // (Tk, C)
  return Vec(moved.rowwise().norm());
}

Result<Mat> head_output_terms(const Model& model, const Trace& trace, int layer, int query) {
  if (Status s = check_head(trace, layer, 0); !s) return make_error(s.error());
  const ModelConfig& c = model.config;
  if (static_cast<int>(model.weights.layers.size()) != static_cast<int>(trace.layers.size()) ||
      c.d_model != trace.config.d_model || c.n_heads != trace.config.n_heads)
    return make_error("the trace was not made by this model");
  if (query < 0 || query >= trace.n_queries()) return make_error("no query " + std::to_string(query));
  const int HS = c.head_size();
  const Mat concat = trace_layer_concat_rows(trace, layer, query, 1);  // (1, NH·HS): kept, or the heads' outputs
  auto weights = model_layer(model, layer);
  if (!weights) return make_error(weights.error());
  const WeightMat& out_w = (*weights)->attn.out_w;  // (C, C)
  Mat terms(c.n_heads, c.d_model);
  for (int h = 0; h < c.n_heads; ++h)
    terms.row(h) = concat.row(0).segment(h * HS, HS) * out_w.middleCols(h * HS, HS).transpose();
  return terms;
}

Result<Mat> value_norm_map(const Model& model, const Trace& trace, int layer, int head) {
  auto norms = value_norms(model, trace, layer, head);
  if (!norms) return make_error(norms.error());
  const HeadMap w = head_map(trace, layer, head);
  return Mat(w->array().rowwise() * norms->transpose().array());
}

Result<std::vector<Mat>> attention_rollout(const Trace& trace) {
  if (trace.cross)
    return make_error("rollout is not defined for cross-attention: a layer's keys are the source, not its own "
                      "queries, so its maps cannot be chained");
  const Eigen::Index T = trace.n_queries();
  const int L = static_cast<int>(trace.layers.size());
  if (static_cast<double>(T) * T * T * L > kRolloutMaxProducts) {
    int fit = 1;
    while (static_cast<double>(fit + 1) * (fit + 1) * (fit + 1) * L <= kRolloutMaxProducts) ++fit;
    return make_error("rollout multiplies a " + std::to_string(T) + " x " + std::to_string(T) + " matrix by another in each of " +
                      std::to_string(L) + " layers, minutes of work at this length: it is offered up to " +
                      std::to_string(fit) + " tokens in this model");
  }
  std::vector<Mat> out;
  out.reserve(trace.layers.size());
  for (int l = 0; l < L; ++l) {
    const size_t NH = trace.layers[static_cast<size_t>(l)].attn.heads.size();
    Mat mean = Mat::Zero(T, T);
    for (size_t h = 0; h < NH; ++h) mean += *head_map(trace, l, static_cast<int>(h));  // one map at a time
    mean /= static_cast<float>(std::max<size_t>(NH, 1));
    Mat step = 0.5f * mean;
    step.diagonal().array() += 0.5f;
    out.push_back(out.empty() ? step : Mat(step * out.back()));
  }
  return out;
}

Result<Mat> measure_map(const Model& model, const Trace& trace, AttentionMeasure measure, int layer, int head,
                        const std::vector<Mat>* rollout) {
  if (Status s = check_head(trace, layer, head); !s) return make_error(s.error());
  switch (measure) {
    case AttentionMeasure::weights: return Mat(*head_map(trace, layer, head));
    case AttentionMeasure::value_norm: return value_norm_map(model, trace, layer, head);
    case AttentionMeasure::rollout: {
      if (rollout && rollout->size() == trace.layers.size()) return (*rollout)[static_cast<size_t>(layer)];
      auto r = attention_rollout(trace);
      if (!r) return make_error(r.error());
      return std::move((*r)[static_cast<size_t>(layer)]);
    }
  }
  return make_error("unknown measure");
}

Mat attention_first_key_aside(const Mat& w) {
  Mat out = w;
  if (w.cols() < 2) return out;
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    const float rest = w.row(i).tail(w.cols() - 1).sum();
    if (rest > 0.0f) out.row(i).tail(w.cols() - 1) /= rest;
    else out.row(i).tail(w.cols() - 1).setZero();
  }
  return out;
}

}  // namespace attnviz
