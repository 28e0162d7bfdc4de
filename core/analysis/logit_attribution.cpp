// Direct logit attribution: the residual at one position taken apart into the writes that sum to
// it (read from the trace, no forward runs), each carried through the linearised final norm.
#include "analysis/logit_attribution.h"

#include <cmath>

#include "analysis/answer.h"
#include "model/head_map.h"
#include "model/lean_layers.h"
#include "model/layer_source.h"

namespace attnviz {

namespace {

RowVec row_or_zeros(const Vec& v, int n) { return v.size() == n ? RowVec(v.transpose()) : RowVec::Zero(n); }

// The final norm linearised at `residual`: v -> its contribution to the normed vector, and the
// norm's own bias (zeros without one).
struct LinearNorm {
  bool centre = false;
  double scale = 1;
  RowVec gain, bias;  // (C)

  RowVec apply(const RowVec& v) const {
    RowVec out = v;
    if (centre) out.array() -= v.mean();
    return (out.array() * gain.array()).matrix() * static_cast<float>(scale);
  }
  // g with dot(apply(v), d) = v · g for every v: the map is linear, so a direction read after the
  // norm is one direction before it (centring moves the mean out of d ∘ gain).
  RowVec direction_before(const RowVec& d) const {
    RowVec g = (d.array() * gain.array()).matrix();
    if (centre) g.array() -= g.mean();
    return g * static_cast<float>(scale);
  }
};

LinearNorm linear_norm_at(const Model& model, const RowVec& residual) {
  const ModelConfig& c = model.config;
  LinearNorm n;
  const int C = c.d_model;
  n.gain = RowVec::Ones(C);
  n.bias = RowVec::Zero(C);
  if (!c.final_norm) return n;
  n.gain = row_or_zeros(model.weights.final_norm_w, C);
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < C; ++i) sum += residual(i);
  const double mean = sum / C;
  if (c.norm_kind == NormKind::layer_norm) {
    n.centre = true;
    for (int i = 0; i < C; ++i) sum_sq += (residual(i) - mean) * (residual(i) - mean);
    n.bias = row_or_zeros(model.weights.final_norm_b, C);
  } else {
    for (int i = 0; i < C; ++i) sum_sq += static_cast<double>(residual(i)) * residual(i);
  }
  n.scale = 1.0 / std::sqrt(sum_sq / C + static_cast<double>(c.ln_eps));
  return n;
}

// A sublayer's RMSNorm (Gemma's post_attention_norm / post_ffw_norm) at its output `out`, as one
// vector: normed = out ∘ scale, and so every part of out (a head's write) is that part ∘ scale.
RowVec sublayer_norm_scale(const RowVec& out, const Vec& w, float eps) {
  double sum_sq = 0;
  for (Eigen::Index i = 0; i < out.size(); ++i) sum_sq += static_cast<double>(out(i)) * out(i);
  const double inv = 1.0 / std::sqrt(sum_sq / static_cast<double>(out.size()) + static_cast<double>(eps));
  return (w.transpose().array() * static_cast<float>(inv)).matrix();
}

// The unembedding's rows and bias, as the output head reads them (tied: the token table, no bias).
struct Unembedding {
  const Model* model = nullptr;
  VocabTable table = VocabTable::tokens;  // its rows (model/vocab_table.h: floats, or decoded from the file)
  const Vec* b = nullptr;

  Eigen::Index rows() const { return static_cast<Eigen::Index>(vocab_table_rows(*model, table)); }
  // Row a minus row b: the answer's direction.
  Result<RowVec> difference(int a, int b) const {
    auto ra = vocab_table_row(*model, table, a);
    auto rb = vocab_table_row(*model, table, b);
    if (!ra || !rb) return make_error(!ra ? ra.error() : rb.error());
    return RowVec(*ra - *rb);
  }
};
Result<Unembedding> unembedding_of(const Model& model) {
  switch (model_output_head(model)) {
    case OutputHead::linear: return Unembedding{&model, VocabTable::output, &model.weights.output_b};
    case OutputHead::tied: return Unembedding{&model, VocabTable::tokens, nullptr};
    case OutputHead::bert_mlm:
      return make_error("direct logit attribution reads a language model's unembedding; a masked-LM head has a "
                        "non-linear transform before it");
    case OutputHead::none: break;
  }
  return make_error(no_answer_english(NoAnswer{NoAnswerReason::no_output_head, {}}));
}

double dot(const RowVec& a, const RowVec& b) {
  double s = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) s += static_cast<double>(a(i)) * b(i);
  return s;
}

}  // namespace

Result<ResidualParts> residual_parts(const Model& model, const Trace& trace, int p) {
  const ModelConfig& c = model.config;
  if (trace.weights_only) return make_error(no_answer_english(NoAnswer{NoAnswerReason::no_model, {}}));
  if (trace.cross) return make_error("direct logit attribution reads self-attention, not cross-attention");
  if (c.norm != NormPlacement::pre)
    return make_error("direct logit attribution needs a pre-norm model, whose residual stream is the sum of what each "
                      "part writes; this model normalises after each sublayer (post-norm)");
  if (trace.ablation.any()) return make_error("direct logit attribution reads the full model: switch the heads back on");
  if (static_cast<int>(trace.layers.size()) != c.n_layers || trace.embed.cols() != c.d_model)
    return make_error(no_answer_english(NoAnswer{NoAnswerReason::other_model, {}}));
  if (p < 0 || p >= trace.n_queries()) return make_error("position " + std::to_string(p) + " is outside the input");
  const int C = c.d_model, HS = c.head_size();
  ResidualParts r;
  r.position = p;
  r.embeddings = trace.embed.row(p);
  r.biases = RowVec::Zero(C);
  for (int l = 0; l < c.n_layers; ++l) {
    auto layer = model_layer(model, l);
    if (!layer) return make_error(layer.error());
    const LayerWeights& w = **layer;
    // A lean trace (a long input) keeps the layer's input and heads: its other rows are recomputed.
    const bool lean = trace_layers_lean(trace);
    Result<LayerTrace> row_of_lean = lean ? trace_layer_rows(model, trace, l, p, 1) : Result<LayerTrace>(LayerTrace{});
    if (!row_of_lean) return make_error(row_of_lean.error());
    const LayerTrace& lt = lean ? *row_of_lean : trace.layers[static_cast<size_t>(l)];
    const Eigen::Index row = lean ? 0 : p;  // position p's row of lt
    // Gemma's sublayer norms scale what each sublayer writes, element by element, by a factor the
    // whole sublayer output sets: each part's write is its own output times that factor.
    const RowVec attn_scale = c.sublayer_norm ? sublayer_norm_scale(lt.attn.out.row(row), w.attn_out_norm_w, c.ln_eps)
                                              : RowVec::Ones(C);
    std::vector<RowVec> heads;
    for (int h = 0; h < c.n_heads; ++h) {
      const RowVec z = trace.layers[static_cast<size_t>(l)].attn.heads[static_cast<size_t>(h)].out.row(p);
      const RowVec write = z * w.attn.out_w.middleCols(static_cast<Eigen::Index>(h) * HS, HS).transpose();
      heads.push_back((write.array() * attn_scale.array()).matrix());
    }
    r.heads.push_back(std::move(heads));
    r.attn_scales.push_back(attn_scale);
    r.biases += (row_or_zeros(w.attn.out_b, C).array() * attn_scale.array()).matrix();
    if (lt.ffn_out.rows() > row) {
      const RowVec ffn_scale = c.sublayer_norm ? sublayer_norm_scale(lt.ffn_out.row(row), w.ffn_out_norm_w, c.ln_eps)
                                               : RowVec::Ones(C);
      const RowVec b2 = (row_or_zeros(w.ff2_b, C).array() * ffn_scale.array()).matrix();
      r.mlps.push_back((lt.ffn_out.row(row).array() * ffn_scale.array()).matrix() - b2);
      r.biases += b2;
    } else {
      r.mlps.push_back(RowVec::Zero(C));
    }
  }
  r.residual = trace.layers.back().out.row(p);
  return r;
}

Result<RowVec> residual_write_logits(const Model& model, const RowVec& write, const RowVec& residual) {
  auto u = unembedding_of(model);
  if (!u) return make_error(u.error());
  if (write.size() != model.config.d_model || residual.size() != model.config.d_model)
    return make_error(no_answer_english(NoAnswer{NoAnswerReason::other_model, {}}));
  const RowVec normed = linear_norm_at(model, residual).apply(write);
  return vocab_table_times(model, u->table, normed);
}

Result<LogitAttribution> logit_attribution(const Model& model, const Trace& trace, int answer_id, int wrong_id, int position) {
  auto u = unembedding_of(model);
  if (!u) return make_error(u.error());
  if (!trace.causal)
    return make_error("direct logit attribution reads the next token a language model predicts at the last position, "
                      "under the causal mask; this run has none (a language model applies it itself; --mask causal)");
  PositionAnswer pa;
  if (position < 0) {
    auto answer = model_answer(model, trace, {}, 2);
    if (!answer) return make_error(answer.error());
    pa = answer->predictions.front();
  } else {
    if (position >= trace.n_queries() || position >= trace.final.rows()) return make_error("position " + std::to_string(position) + " is outside the input");
    auto logits = output_logits(model, trace.final.row(position));
    if (!logits) return make_error(logits.error());
    pa.position = position;
    pa.top = answer_top_tokens(model, *logits, 2);
  }
  LogitAttribution a;
  a.position = pa.position;
  a.answer_id = answer_id >= 0 ? answer_id : pa.top.front().id;
  a.wrong_id = wrong_id >= 0 ? wrong_id : (pa.top.size() > 1 ? pa.top[1].id : -1);
  const Eigen::Index V = u->rows();
  for (int id : {a.answer_id, a.wrong_id})
    if (id < 0 || id >= V) return make_error("token id " + std::to_string(id) + " is outside the model's vocabulary");
  auto parts = residual_parts(model, trace, a.position);
  if (!parts) return make_error(parts.error());

  auto direction = u->difference(a.answer_id, a.wrong_id);
  if (!direction) return make_error(direction.error());
  const RowVec& d = *direction;
  const LinearNorm norm = linear_norm_at(model, parts->residual);
  const auto logit_of = [&](const RowVec& v) { return dot(norm.apply(v), d); };
  double total = 0;
  for (const auto& layer : parts->heads) {
    std::vector<float> row;
    for (const RowVec& v : layer) {
      const double x = logit_of(v);
      row.push_back(static_cast<float>(x));
      total += x;
    }
    a.heads.push_back(std::move(row));
  }
  for (const RowVec& v : parts->mlps) {
    const double x = logit_of(v);
    a.mlps.push_back(static_cast<float>(x));
    total += x;
  }
  const double embeddings = logit_of(parts->embeddings);
  double biases = logit_of(parts->biases) + dot(norm.bias, d);
  if (u->b && u->b->size() == V) biases += static_cast<double>((*u->b)(a.answer_id)) - (*u->b)(a.wrong_id);
  a.embeddings = static_cast<float>(embeddings);
  a.biases = static_cast<float>(biases);
  a.total = static_cast<float>(total + embeddings + biases);
  auto logits = output_logits_uncapped(model, trace.final.row(a.position));
  if (!logits) return make_error(logits.error());
  a.logit_diff = (*logits)(a.answer_id) - (*logits)(a.wrong_id);
  return a;
}

Result<std::vector<std::vector<RowVec>>> head_source_attribution(const Model& model, const Trace& trace, const LogitAttribution& a) {
  auto u = unembedding_of(model);
  if (!u) return make_error(u.error());
  auto parts = residual_parts(model, trace, a.position);  // the model's and the trace's checks, and the residual
  if (!parts) return make_error(parts.error());
  const Eigen::Index V = u->rows();
  for (int id : {a.answer_id, a.wrong_id})
    if (id < 0 || id >= V) return make_error("token id " + std::to_string(id) + " is outside the model's vocabulary");
  const ModelConfig& c = model.config;
  const int HS = c.head_size(), p = a.position;
  auto direction = u->difference(a.answer_id, a.wrong_id);
  if (!direction) return make_error(direction.error());
  const RowVec& d = *direction;
  // The answer's direction before the final norm, then in each head's value space (through its
  // slice of W_O): a key's share is its weight times its value dotted with that, O(HS) a key.
  const RowVec g = linear_norm_at(model, parts->residual).direction_before(d);
  std::vector<std::vector<RowVec>> out;
  for (int l = 0; l < c.n_layers; ++l) {
    auto layer = model_layer(model, l);
    if (!layer) return make_error(layer.error());
    const LayerWeights& w = **layer;
    std::vector<RowVec> heads;
    for (int h = 0; h < c.n_heads; ++h) {
      const HeadTrace& head = trace.layers[static_cast<size_t>(l)].attn.heads[static_cast<size_t>(h)];
      const RowVec gs = (g.array() * parts->attn_scales[static_cast<size_t>(l)].array()).matrix();
      const RowVec u = gs * w.attn.out_w.middleCols(static_cast<Eigen::Index>(h) * HS, HS);  // (HS)
      const Mat row = head_map_rows(trace, l, h, static_cast<int>(p), 1);  // query p's weights only
      RowVec split(head.v.rows());
      for (Eigen::Index j = 0; j < head.v.rows(); ++j) split(j) = static_cast<float>(row(0, j) * dot(head.v.row(j), u));
      heads.push_back(std::move(split));
    }
    out.push_back(std::move(heads));
  }
  return out;
}

}  // namespace attnviz
