// The trainer's forward pass: examples' rows stacked, so that each weight product (projections, FFN,
// output) runs once for a shard; positions, masks and attention per example.
#include "train/stacked_forward.h"

#include <algorithm>
#include <string>
#include <utility>

#include "model/embed.h"
#include "model/kernels.h"
#include "model/mask.h"
#include "model/products.h"

namespace attnviz {

namespace {

Status check_trainable(const Model& model) {
  const ModelConfig& c = model.config;
  if (model.weights.tok_embed.rows() == 0 || model.weights.output_w.rows() == 0)
    return make_error("training needs a model with a vocabulary, token embeddings and an output projection");
  // The backward passes cover the 2017 layer (LayerNorm, plain FFN, one K/V per head, added
  // positions); the later families' parts are for reading checkpoints, not for training.
  if (c.positions == PositionEncoding::rotary || c.norm_kind != NormKind::layer_norm || c.gated_ffn ||
      c.parallel_residual || c.kv_heads() != c.n_heads || c.sliding_window > 0 || c.position_padding_idx >= 0 ||
      c.embed_norm || c.type_vocab > 0 || c.head_dim > 0 || c.qk_norm || c.sublayer_norm || c.attn_softcap > 0 ||
      c.logit_softcap > 0 || c.scaled_dot_scale > 0 || c.embed_multiplier != 1.0f)
    return make_error("training supports LayerNorm layers with added positions only (no rotary positions, RMSNorm, "
                      "gated FFN, parallel residual, grouped key/value heads, sliding window, embedding norm, "
                      "segment embeddings, or Qwen3's and Gemma's head widths, norms, scales and soft caps)");
  return Ok{};
}

// Example s's head h at heads[s·NH + h] (attention_backward_segments reads them so). Queries are
// rows of xq, keys and values rows of xkv (the same matrix in self-attention), as the segments say.
AttentionTrace attention_forward_stacked(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                                         bool self_attention, const std::vector<RowSegment>& segments,
                                         const std::vector<Mat>& masks) {
  const int NH = c.n_heads, HS = c.head_size();
  const Projections p = attention_project(w, c, xq, xkv, self_attention, 0, 0, Products::portable);
  AttentionTrace t;
  t.heads.reserve(segments.size() * static_cast<size_t>(NH));
  t.concat.resize(xq.rows(), c.d_model);
  for (size_t s = 0; s < segments.size(); ++s) {
    const RowSegment& seg = segments[s];
    for (int h = 0; h < NH; ++h) {
      // An example without a query row (no target, last layer) still has its heads, empty: the
      // backward finds every example's at its place. No block is taken of a matrix without rows.
      Mat q = seg.q_rows > 0 ? Mat(p.q.block(seg.q_first, h * HS, seg.q_rows, HS)) : Mat(0, HS);
      // The backward reads the weights, not the scores: dot-product heads need not keep them.
      t.heads.push_back(head_forward(w, c, h, std::move(q), p.k.block(seg.k_first, h * HS, seg.k_rows, HS),
                                     p.v.block(seg.k_first, h * HS, seg.k_rows, HS), masks[s], MapsKept::weights));
      if (seg.q_rows > 0) t.concat.block(seg.q_first, h * HS, seg.q_rows, HS) = t.heads.back().out;
    }
  }
  t.out = linear(t.concat, w.out_w, w.out_b, Products::portable);
  return t;
}

// One layer's attention over the segments: narrow heads all at once (kept in f.fused), others one
// example and head at a time.
AttentionTrace attend_stacked(const AttentionWeights& w, const ModelConfig& c, const Mat& xq, const Mat& xkv,
                              bool self_attention, const std::vector<RowSegment>& segments,
                              const std::vector<Mat>& masks, StackedForward& f) {
  if (!fused_heads_fit(c)) return attention_forward_stacked(w, c, xq, xkv, self_attention, segments, masks);
  f.fused.emplace_back();
  return fused_heads_forward(w, c, xq, xkv, self_attention, segments, masks, f.fused.back());
}

// Fills f.out_rows and f.out_segments: every row, or each example's rows with a target.
void choose_output_rows(StackedForward& f, const TrainExample* examples, OutputRows rows) {
  for (size_t e = 0; e < f.stacked.segments.size(); ++e) {
    const RowSegment& seg = f.stacked.segments[e];
    RowSegment out{static_cast<Eigen::Index>(f.out_rows.size()), 0, seg.k_first, seg.k_rows};
    for (Eigen::Index t = 0; t < seg.q_rows; ++t)
      if (rows == OutputRows::all || examples[e].targets[static_cast<size_t>(t)] >= 0) {
        f.out_rows.push_back(seg.q_first + t);
        ++out.q_rows;
      }
    f.out_segments.push_back(out);
  }
}

// The last layer over f.out_rows only, its keys and values over every row of x.
LayerTrace last_layer_narrowed(const LayerWeights& w, const ModelConfig& c, const Mat& x, StackedForward& f) {
  f.last_kv_in = c.norm == NormPlacement::pre ? layer_norm(x, w.norm1_w, w.norm1_b, c.ln_eps) : x;
  const auto n = static_cast<Eigen::Index>(f.out_rows.size());
  Mat xq(n, x.cols());
  for (Eigen::Index i = 0; i < n; ++i) xq.row(i) = x.row(f.out_rows[static_cast<size_t>(i)]);
  std::vector<Mat> masks;  // each example's mask, its query rows narrowed alike
  masks.reserve(f.out_segments.size());
  for (size_t e = 0; e < f.out_segments.size(); ++e) {
    const RowSegment& seg = f.out_segments[e];
    Mat m(seg.q_rows, seg.k_rows);
    for (Eigen::Index i = 0; i < seg.q_rows; ++i)
      m.row(i) = f.stacked.masks[e].row(f.out_rows[static_cast<size_t>(seg.q_first + i)] - seg.k_first);
    masks.push_back(std::move(m));
  }
  return layer_forward_with(w, c, xq, [&](const Mat& attn_in) {
    return attend_stacked(w.attn, c, attn_in, f.last_kv_in, false, f.out_segments, masks, f);
  }, Products::portable);
}

}  // namespace

Status train_example_check(const Model& model, const TrainExample& ex) {
  const int T = static_cast<int>(ex.ids.size()), V = static_cast<int>(model.vocab.size());
  if (T == 0 || static_cast<int>(ex.targets.size()) != T) return make_error("ids and targets must have the same, non-zero length");
  if (T > kMaxTokens) return make_error("the example is too long");
  if (model.config.positions == PositionEncoding::learned && T > model.weights.pos_embed.rows())
    return make_error("the example is longer than the learned positions");
  for (int t = 0; t < T; ++t)
    if (ex.ids[static_cast<size_t>(t)] < 0 || ex.ids[static_cast<size_t>(t)] >= V || ex.targets[static_cast<size_t>(t)] >= V)
      return make_error("token id out of the vocabulary's range at position " + std::to_string(t));
  return Ok{};
}

Result<StackedForward> stacked_forward(const Model& model, const TrainExample* examples, size_t count, OutputRows rows) {
  const ModelConfig& c = model.config;
  if (Status s = check_trainable(model); !s) return make_error(s.error());
  StackedForward f;
  StackedExamples& st = f.stacked;
  Eigen::Index rows_total = 0;
  for (size_t e = 0; e < count; ++e) {
    if (Status s = train_example_check(model, examples[e]); !s) return make_error(s.error());
    const auto T = static_cast<Eigen::Index>(examples[e].ids.size());
    st.segments.push_back(RowSegment{rows_total, T, rows_total, T});
    st.ids.insert(st.ids.end(), examples[e].ids.begin(), examples[e].ids.end());
    st.masks.push_back(mask_build(examples[e].mask, static_cast<int>(T), static_cast<int>(T), static_cast<int>(T)));
    rows_total += T;
  }
  f.x0.resize(rows_total, c.d_model);
  for (Eigen::Index r = 0; r < rows_total; ++r) f.x0.row(r) = model.weights.tok_embed.row(st.ids[static_cast<size_t>(r)]);
  // One table for every example: a position's row does not depend on how many rows are asked for.
  Mat sinusoids;
  if (c.positions == PositionEncoding::sinusoidal) {
    Eigen::Index longest = 0;
    for (const RowSegment& seg : st.segments) longest = std::max(longest, seg.q_rows);
    sinusoids = positions_sinusoidal(static_cast<int>(longest), c.d_model);
  }
  for (const RowSegment& seg : st.segments) {
    if (c.positions == PositionEncoding::sinusoidal)
      f.x0.middleRows(seg.q_first, seg.q_rows) += sinusoids.topRows(seg.q_rows);
    if (c.positions == PositionEncoding::learned)
      f.x0.middleRows(seg.q_first, seg.q_rows) += model.weights.pos_embed.topRows(seg.q_rows);
  }
  // Without layers, or without a single target (the loss is 0), every row: no matrices without rows.
  const bool any_target = std::any_of(examples, examples + count, [](const TrainExample& ex) {
    return std::any_of(ex.targets.begin(), ex.targets.end(), [](int t) { return t >= 0; });
  });
  choose_output_rows(f, examples, c.n_layers > 0 && any_target ? rows : OutputRows::all);
  const bool narrowed = static_cast<Eigen::Index>(f.out_rows.size()) < rows_total;
  const Mat* x = &f.x0;
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& w = model.weights.layers[static_cast<size_t>(l)];
    if (narrowed && l + 1 == c.n_layers)
      f.layers.push_back(last_layer_narrowed(w, c, *x, f));
    else
      f.layers.push_back(layer_forward_with(w, c, *x, [&](const Mat& attn_in) {
        return attend_stacked(w.attn, c, attn_in, attn_in, true, st.segments, st.masks, f);
      }, Products::portable));
    x = &f.layers.back().out;
  }
  f.last = *x;
  f.final = c.final_norm ? layer_norm(f.last, model.weights.final_norm_w, model.weights.final_norm_b, c.ln_eps) : f.last;
  f.logits = linear(f.final, model.weights.output_w, model.weights.output_b, Products::portable);
  return f;
}

}  // namespace attnviz
