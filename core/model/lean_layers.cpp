#include "model/lean_layers.h"

#include "model/ablation.h"
#include "model/attention.h"
#include "model/kernels.h"
#include "model/layer.h"
#include "model/layer_source.h"

namespace attnviz {

bool trace_layers_lean(const Trace& t) {
  return t.maps_kept == MapsKept::none && !t.layers.empty() && t.layers.front().attn.concat.size() == 0 &&
         !t.weights_only;
}

void layer_trace_release(LayerTrace& t, bool keep_out) {
  for (Mat* m : {&t.attn_in, &t.resid1, &t.ffn_in, &t.ffn_hidden, &t.ffn_out, &t.attn_normed, &t.ffn_normed,
                 &t.attn.concat, &t.attn.out})
    m->resize(0, 0);
  if (!keep_out) t.out.resize(0, 0);
  for (HeadTrace& h : t.attn.heads) {
    h.q_unrotated.resize(0, 0);
    h.k_unrotated.resize(0, 0);
  }
}

const Mat& trace_layer_output(const Trace& t, int l) {
  const auto next = static_cast<size_t>(l) + 1;
  return next < t.layers.size() ? t.layers[next].x_in : t.layers[static_cast<size_t>(l)].out;
}

Mat trace_layer_concat_rows(const Trace& t, int l, int first, int n) {
  const AttentionTrace& a = t.layers[static_cast<size_t>(l)].attn;
  if (a.concat.size() > 0) return a.concat.middleRows(first, n);
  const int NH = static_cast<int>(a.heads.size()), HS = t.config.head_size();
  const LayerAblation ablate = ablation_for_layer(t.ablation, l, NH);
  Mat out(n, static_cast<Eigen::Index>(NH) * HS);
  for (int h = 0; h < NH; ++h) {
    const Mat& z = a.heads[static_cast<size_t>(h)].out;
    auto block = out.middleCols(static_cast<Eigen::Index>(h) * HS, HS);
    const bool off = static_cast<size_t>(h) < ablate.off.size() && ablate.off[static_cast<size_t>(h)];
    if (!off) block = z.middleRows(first, n);
    else if (ablate.mode == AblationMode::zero || z.rows() == 0) block.setZero();
    else block.rowwise() = RowVec(z.colwise().mean());  // the mean over every position, as ablation_apply
  }
  return out;
}

Result<LayerTrace> trace_layer_rows(const Model& model, const Trace& t, int l, int first, int n) {
  auto weights = model_layer(model, l);
  if (!weights) return make_error(weights.error());
  const LayerWeights& w = **weights;
  const Mat concat = trace_layer_concat_rows(t, l, first, n);
  return layer_forward_with(w, config_of_layer(t.config, l), t.layers[static_cast<size_t>(l)].x_in.middleRows(first, n),
                            [&](const Mat&) {
                              AttentionTrace a;
                              a.concat = concat;
                              a.out = linear(a.concat, w.attn.out_w, w.attn.out_b);
                              return a;
                            });
}

Result<LayerTrace> trace_layer_for_lecture(const Model& model, const Trace& t, int l, int h) {
  const LayerTrace& kept = t.layers[static_cast<size_t>(l)];
  if (!trace_layers_lean(t)) return kept;
  auto weights = model_layer(model, l);
  if (!weights) return make_error(weights.error());
  const LayerWeights& w = **weights;
  const ModelConfig c = config_of_layer(t.config, l);
  LayerTrace out;
  out.x_in = kept.x_in;
  out.attn_in = c.norm == NormPlacement::pre ? norm_apply(kept.x_in, w.norm1_w, w.norm1_b, c) : kept.x_in;
  out.attn.concat = trace_layer_concat_rows(t, l, 0, t.n_queries());
  out.attn.out = linear(out.attn.concat, w.attn.out_w, w.attn.out_b);
  out.attn.heads.resize(kept.attn.heads.size());
  HeadTrace& head = out.attn.heads[static_cast<size_t>(h)];
  head = kept.attn.heads[static_cast<size_t>(h)];
  if (c.positions == PositionEncoding::rotary) {  // Q and K before the rotation: projected again
    const Projections p = attention_project(w.attn, c, out.attn_in, t.cross ? t.memory : out.attn_in, !t.cross);
    const int HS = c.head_size(), g = c.kv_group(h);
    head.q_unrotated = p.q_unrotated.middleCols(static_cast<Eigen::Index>(h) * HS, HS);
    head.k_unrotated = p.k_unrotated.middleCols(static_cast<Eigen::Index>(g) * HS, HS);
  }
  return out;
}

}  // namespace attnviz
