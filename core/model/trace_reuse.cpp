// trace_run_reusing: finds how many leading rows of a new trace the previous one already holds,
// then runs each layer on the other rows only. The norms, residuals and FFN are layer_forward's
// own (layer_forward_with); only attention differs, since the new queries read the old keys.
#include "model/trace_reuse.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "model/kernels.h"
#include "model/layer_source.h"

namespace attnviz {

namespace {

using Index = Eigen::Index;

// Whether `previous` was made the way `next` is about to be: the same model as far as a trace can
// tell, the same switched-off heads applied row by row, the same scores kept, complete layers.
bool same_run(const Model& model, const Trace& next, const Trace& previous) {
  const ModelConfig& c = model.config;
  if (previous.cross || next.cross || previous.layers.size() != static_cast<size_t>(c.n_layers)) return false;
  if (previous.model_source != model.source || config_to_json(previous.config) != config_to_json(c)) return false;
  if (previous.ablation.heads != next.ablation.heads) return false;
  // Mean ablation replaces a head's output in every row by its mean over all rows: an edit at the
  // end changes the rows before it too.
  if (next.ablation.any() && (next.ablation.mode != previous.ablation.mode || next.ablation.mode == AblationMode::mean))
    return false;
  return previous.maps_kept == next.maps_kept;
}

// The leading rows whose inputs are bit-identical in both traces: the embedding row (token and
// position, as this model embeds them) and the mask cells among those rows.
Index shared_input_rows(const Trace& next, const Trace& previous) {
  const Index n = std::min(next.embed.rows(), previous.embed.rows());
  const Mat &a = next.mask, &b = previous.mask;
  Index p = 0;
  while (p < n && next.embed.row(p) == previous.embed.row(p) && a.row(p).head(p + 1) == b.row(p).head(p + 1) &&
         a.col(p).head(p) == b.col(p).head(p))
    ++p;
  return p;
}

// The last key query row i of an additive mask (0 / -inf) sees; -1 when it sees none.
Index last_visible_key(const Mat& mask, Index i) {
  for (Index j = mask.cols() - 1; j >= 0; --j)
    if (std::isfinite(mask(i, j))) return j;
  return -1;
}

// The largest p <= limit such that no query before p sees a key at or after p, in either mask:
// then rows [0, p) of every intermediate depend on the inputs of rows [0, p) alone. Causal masks
// allow every p; a bidirectional one only p = T (nothing after the prefix).
Index closed_prefix(const Mat& a, const Mat& b, Index limit) {
  Index best = 0, reach = -1;  // reach: the furthest key any query before p sees
  for (Index p = 1; p <= limit; ++p) {
    reach = std::max({reach, last_visible_key(a, p - 1), last_visible_key(b, p - 1)});
    if (reach < p) best = p;
  }
  return best;
}

// Every row (T) only for the same input again; otherwise at most T - 1, so that at least the last
// row is computed: the layers form blocks of the new rows, and a block of an empty matrix at a
// non-zero offset is a null pointer plus an offset, undefined behaviour (clang's UBSan reports it).
// A causal input cut short at the end therefore recomputes its last row.
Index reusable_rows(const Model& model, const Trace& next, const Trace& previous) {
  if (!same_run(model, next, previous)) return 0;
  const Index T = next.n_queries(), shared = shared_input_rows(next, previous);
  if (shared == T && T == previous.n_queries()) return T;
  return closed_prefix(next.mask, previous.mask, std::min<Index>(shared, T - 1));
}

// Rows [0, p) of `old` above `fresh`: (p + fresh.rows(), cols). A field the layer does not have
// (the FFN of an attention-only layer) stays empty.
Mat rows_join(const Mat& old, Index p, const Mat& fresh) {
  if (old.cols() == 0) return {};
  Mat out(p + fresh.rows(), fresh.cols());
  out.topRows(p) = old.topRows(p);
  out.bottomRows(fresh.rows()) = fresh;
  return out;
}

// A (T, T) head matrix: the old rows' first p columns, `corner` (p, T - p) for the old rows
// against the new keys, and `fresh` (T - p, T) for the new rows.
Mat square_join(const Mat& old, Index p, const Mat& corner, const Mat& fresh) {
  const Index T = fresh.cols();
  Mat out(T, T);
  out.topLeftCorner(p, p) = old.topLeftCorner(p, p);
  out.topRightCorner(p, T - p) = corner;
  out.bottomRows(T - p) = fresh;
  return out;
}

// What every layer shares about the rows being computed.
struct NewRows {
  Index p = 0;              // rows [0, p) are the previous trace's
  Mat mask;                 // (T - p, T) the new rows of the additive mask
  MapsKept kept = MapsKept::all;  // the new trace's (and, by same_run, the previous one's)
};

// Head h over T = p + n rows. The new rows come from head_forward itself (their queries read the
// old keys); the old rows are copied, but for their scores against the new keys: their mask hides
// those cells (weight exactly 0), yet trace_run keeps the scores, so they are computed here.
HeadTrace head_extend(const AttentionWeights& w, const ModelConfig& c, int h, const HeadTrace& old, const NewRows& rows,
                      const Projections& fresh) {
  const int HS = c.head_size(), g = c.kv_group(h);
  const Mat q_new = fresh.q.middleCols(h * HS, HS);
  const Mat k_new = fresh.k.middleCols(g * HS, HS);
  const Index p = rows.p, T = p + q_new.rows();
  HeadTrace head = head_forward(w, c, h, q_new, rows_join(old.k, p, k_new),
                                rows_join(old.v, p, fresh.v.middleCols(g * HS, HS)), rows.mask, rows.kept);
  head.q = rows_join(old.q, p, q_new);
  if (c.positions == PositionEncoding::rotary) {  // (fresh may have no rows: a repeated input)
    head.q_unrotated = rows_join(old.q_unrotated, p, fresh.q_unrotated.middleCols(h * HS, HS));
    head.k_unrotated = rows_join(old.k_unrotated, p, fresh.k_unrotated.middleCols(g * HS, HS));
  }
  if (old.weights_kept.size() > 0)  // not formed on demand
    head.weights_kept = square_join(old.weights_kept, p, Mat::Zero(p, T - p), head.weights_kept);
  if (old.scores_raw.size() > 0) {  // same_run: the new trace keeps this head's scores too
    const Mat corner = head_raw_scores(w, c, h, old.q.topRows(p), k_new);
    const float scale = score_scale(c, head.score);
    Mat corner_scaled = corner * scale;
    scores_soft_cap(corner_scaled, c.attn_softcap);
    head.scores_scaled = square_join(old.scores_scaled, p, corner_scaled, head.scores_scaled);
    head.scores_raw = square_join(old.scores_raw, p, corner, head.scores_raw);
  }
  head.out = rows_join(old.out, p, head.out);
  return head;
}

// attention_forward for the new rows: their Q, K, V from attn_in (T - p, C) in one GEMM as there
// (rotated as positions p, p + 1, ...); the heads whole (T rows); concat and out for the new rows
// only, which is what the layer's residual adds them to. layer_join puts the old rows of concat
// and out back.
AttentionTrace attention_extend(const AttentionWeights& w, const ModelConfig& c, const AttentionTrace& old,
                                const NewRows& rows, const Mat& attn_in, const LayerAblation& ablate) {
  const int NH = c.n_heads, HS = c.head_size();
  const Index n = attn_in.rows(), T = rows.p + n;
  const int first = static_cast<int>(rows.p);
  const Projections fresh = attention_project(w, c, attn_in, attn_in, true, first, first);
  AttentionTrace t;
  t.heads.resize(static_cast<size_t>(NH));
  t.concat.resize(n, c.q_dim());
  // A head's work is mostly copying its T x T matrices; split heads over threads only when that
  // outweighs the fork and join (as attention_forward decides). A keystroke on 32 tokens does not.
  const bool heads_in_parallel = NH > 1 && T * (T + n * HS) >= (1 << 15);
#pragma omp parallel for schedule(dynamic, 1) if (heads_in_parallel)
  for (int h = 0; h < NH; ++h) {
    HeadTrace& head = t.heads[static_cast<size_t>(h)];
    head = head_extend(w, c, h, old.heads[static_cast<size_t>(h)], rows, fresh);
    t.concat.middleCols(h * HS, HS) = head.out.bottomRows(n);
  }
  attention_ablate(t, ablate, HS);  // zeros only (same_run): row by row, so the new rows alone do
  t.out = linear(t.concat, w.out_w, w.out_b);
  return t;
}

// One layer of the new trace: rows [0, p) of every (T, ·) matrix from the previous trace's layer,
// the rest from `fresh` (whose heads attention_extend already made whole).
LayerTrace layer_join(const LayerTrace& old, Index p, LayerTrace fresh) {
  LayerTrace t;
  t.x_in = rows_join(old.x_in, p, fresh.x_in);
  t.attn_in = rows_join(old.attn_in, p, fresh.attn_in);
  t.attn.heads = std::move(fresh.attn.heads);
  t.attn.concat = rows_join(old.attn.concat, p, fresh.attn.concat);
  t.attn.out = rows_join(old.attn.out, p, fresh.attn.out);
  t.resid1 = rows_join(old.resid1, p, fresh.resid1);
  t.ffn_in = rows_join(old.ffn_in, p, fresh.ffn_in);
  t.ffn_hidden = rows_join(old.ffn_hidden, p, fresh.ffn_hidden);
  t.ffn_out = rows_join(old.ffn_out, p, fresh.ffn_out);
  t.attn_normed = rows_join(old.attn_normed, p, fresh.attn_normed);
  t.ffn_normed = rows_join(old.ffn_normed, p, fresh.ffn_normed);
  t.out = rows_join(old.out, p, fresh.out);
  return t;
}

// trace_finish for the rows [p, T) of a prepared trace, the rows before p taken from previous.
Status finish_new_rows(const Model& model, Trace& t, const Trace& previous, Index p, const TraceControl& control) {
  const ModelConfig& c = model.config;
  const Index n = t.n_queries() - p;
  Mat x = t.embed.bottomRows(n);  // the new rows of the current layer's input
  t.layers.reserve(static_cast<size_t>(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) {
    if (control.cancel && control.cancel->load(std::memory_order_relaxed)) return make_error(kTraceCancelled);
    auto layer = model_layer(model, l);
    if (!layer) return make_error(layer.error());
    const LayerWeights& w = **layer;
    const LayerTrace& old = previous.layers[static_cast<size_t>(l)];
    const LayerAblation ablate = ablation_for_layer(t.ablation, l, c.n_heads);
    const ModelConfig lc = config_of_layer(c, l);
    const NewRows rows{p, trace_layer_mask(t, l).bottomRows(n), t.maps_kept};
    LayerTrace fresh = layer_forward_with(
        w, lc, x, [&](const Mat& attn_in) { return attention_extend(w.attn, lc, old.attn, rows, attn_in, ablate); });
    x = fresh.out;
    t.layers.push_back(layer_join(old, p, std::move(fresh)));
    if (control.layers_done) control.layers_done->fetch_add(1, std::memory_order_relaxed);
  }
  t.final = rows_join(previous.final, p, trace_final_of(model, x));
  return Ok{};
}

}  // namespace

Result<Trace> trace_run_reusing(const Model& model, const TraceInput& input, const Trace& previous,
                                const TraceControl& control) {
  // Cross-attention encodes its source before the layers: nothing of it is reused.
  if (!input.source_text.empty()) return trace_run(model, input, control);
  auto t = trace_prepare(model, input);
  if (!t) return t;
  const Index p = reusable_rows(model, *t, previous);
  Status s = Ok{};
  if (p == t->n_queries()) {  // the same input again: the same intermediates
    t->layers = previous.layers;
    t->final = previous.final;
    if (control.layers_done) control.layers_done->fetch_add(model.config.n_layers, std::memory_order_relaxed);
  } else {
    s = p > 0 ? finish_new_rows(model, *t, previous, p, control) : trace_finish(model, *t, control);
  }
  if (!s) return make_error(s.error());
  t->reused_rows = static_cast<int>(p);
  return t;
}

}  // namespace attnviz
