// Answers are read, never recomputed: the final hidden states come from a trace (or from
// trace_final_ablated), and only the output head runs here, on the rows it needs.
#include "analysis/answer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "base/enum_names.h"
#include "model/kernels.h"
#include "text/utf8.h"

namespace attnviz {

namespace {

constexpr EnumNames<AnswerKind, 3> kKinds{
    {{AnswerKind::coref, "coref"}, {AnswerKind::next_token, "next_token"}, {AnswerKind::masked, "masked"}}};

std::string token_name(const Model& model, int id) {
  if (model.tokenizer && id < model.tokenizer->vocab_size()) return model.tokenizer->piece(id);
  if (id >= 0 && static_cast<size_t>(id) < model.vocab.size()) return model.vocab[static_cast<size_t>(id)];
  return "#" + std::to_string(id);
}

// The token as a person reads it: a checkpoint's piece decoded (its leading space shown as ·, as
// the token chips do), a byte that is no character by itself as <XX>; a word model's word as is.
std::string token_text(const Model& model, int id) {
  if (!model.tokenizer || id >= model.tokenizer->vocab_size()) return token_name(model, id);
  const int ids[] = {id};
  std::string s = model.tokenizer->decode(ids);
  if (!utf8_is_valid(s)) {
    std::string hex;
    char buf[8];
    for (const unsigned char c : s) {
      std::snprintf(buf, sizeof buf, "<%02X>", c);
      hex += buf;
    }
    return hex;
  }
  if (!s.empty() && s.front() == ' ') s = "·" + s.substr(1);
  return s;
}

// Log-softmax over the vocabulary, in double so that probabilities near 1 keep their tail.
std::vector<double> log_softmax(const RowVec& logits) {
  const double top = logits.maxCoeff();
  double sum = 0;
  for (Eigen::Index i = 0; i < logits.size(); ++i) sum += std::exp(static_cast<double>(logits(i)) - top);
  const double log_z = top + std::log(sum);
  std::vector<double> out(static_cast<size_t>(logits.size()));
  for (Eigen::Index i = 0; i < logits.size(); ++i) out[static_cast<size_t>(i)] = logits(i) - log_z;
  return out;
}

Result<PositionAnswer> position_answer(const Model& model, const Mat& final, int position, int top_k) {
  auto logits = output_logits(model, final.row(position));
  if (!logits) return make_error(logits.error());
  const std::vector<double> lp = log_softmax(*logits);
  std::vector<int> order(lp.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min(order.size(), static_cast<size_t>(std::max(top_k, 1)));
  // Ties keep the lower id first, so the answer does not depend on the sort's whims.
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](int a, int b) {
    return lp[static_cast<size_t>(a)] > lp[static_cast<size_t>(b)] || (lp[static_cast<size_t>(a)] == lp[static_cast<size_t>(b)] && a < b);
  });
  PositionAnswer out;
  out.position = position;
  for (size_t i = 0; i < k; ++i)
    out.top.push_back(TokenScore{token_name(model, order[i]), token_text(model, order[i]), order[i],
                                 static_cast<float>(std::exp(lp[static_cast<size_t>(order[i])]))});
  return out;
}

// The last query row holding a real token (padding comes last).
int last_real_position(const Trace& trace) {
  int last = trace.n_queries() - 1;
  while (last > 0 && trace.queries[static_cast<size_t>(last)].pad) --last;
  return last;
}

std::vector<int> mask_positions(const Model& model, const Trace& trace) {
  std::vector<int> out;
  const auto mask_id = model.tokenizer ? model.tokenizer->id_of("[MASK]") : std::nullopt;
  if (!mask_id) return out;
  for (int i = 0; i < trace.n_queries(); ++i)
    if (trace.queries[static_cast<size_t>(i)].id == *mask_id) out.push_back(i);
  return out;
}

float coref_log_prob(const CorefPrediction& got, int referent) {
  const double p = got.referent == referent ? got.probability : 1.0 - static_cast<double>(got.probability);
  return static_cast<float>(std::log(std::max(p, 1e-30)));
}

Result<ModelAnswer> answer_at(const Model& model, const Trace& trace, const Mat& final, ModelAnswer out, int top_k) {
  out.predictions.clear();
  out.log_prob = 0;
  if (out.kind == AnswerKind::coref) {
    auto p = coref_answer_from_final(model, final, out.example);
    if (!p) return make_error(p.error());
    out.coref = *p;
    out.log_prob = coref_log_prob(*p, p->referent);
    return out;
  }
  const std::vector<int> positions =
      out.kind == AnswerKind::next_token ? std::vector<int>{last_real_position(trace)} : mask_positions(model, trace);
  for (int pos : positions) {
    auto a = position_answer(model, final, pos, top_k);
    if (!a) return make_error(a.error());
    out.log_prob += std::log(std::max(a->top.front().p, 1e-30f));
    out.predictions.push_back(std::move(*a));
  }
  return out;
}

}  // namespace

std::string_view name_of(AnswerKind kind) { return enum_name(kKinds, kind); }

Result<RowVec> output_logits(const Model& model, const RowVec& h) {
  const ModelWeights& w = model.weights;
  if (h.size() != model.config.d_model) return make_error("the hidden state does not have d_model values");
  switch (model_output_head(model)) {
    case OutputHead::none:
      // Short enough for the app's answer line at 1280 pixels, in either language.
      return make_error(std::string(kNoAnswerNoOutputHead));
    case OutputHead::linear: {
      RowVec out = h * w.output_w.transpose();
      if (w.output_b.size() == out.size()) out += w.output_b.transpose();
      return out;
    }
    case OutputHead::tied: return RowVec(h * w.tok_embed.transpose());
    case OutputHead::bert_mlm: {
      Mat x = h * w.mlm_dense_w.transpose();
      x.row(0) += w.mlm_dense_b.transpose();
      activation_apply(x, model.config.activation);
      x = layer_norm(x, w.mlm_norm_w, w.mlm_norm_b, model.config.ln_eps);
      RowVec out = x.row(0) * w.tok_embed.transpose();
      out += w.output_b.transpose();
      return out;
    }
  }
  return make_error("unknown output head");
}

Result<ModelAnswer> model_answer(const Model& model, const Trace& trace, std::string_view text, int top_k) {
  const OutputHead head = model_output_head(model);
  if (trace.final.rows() != trace.n_queries() || trace.final.cols() != model.config.d_model)
    return make_error("the trace was not made by this model");
  if (trace.cross) return make_error(std::string(kNoAnswerCrossAttention));
  ModelAnswer a;
  if (head == OutputHead::none) return make_error(output_logits(model, RowVec::Zero(model.config.d_model)).error());
  if (trace.causal && head != OutputHead::bert_mlm) {
    a.kind = AnswerKind::next_token;
  } else if (head == OutputHead::linear && !model.tokenizer) {
    a.kind = AnswerKind::coref;
    a.example = coref_make(text);
    if (a.example.pronoun < 0)
      return make_error(std::string(kNoAnswerNoPronoun));
    if (a.example.candidate_a < 0 || a.example.candidate_b < 0)
      return make_error(std::string(kNoAnswerNoCandidates));
    if (Status s = coref_check(trace, a.example); !s) return make_error(s.error());
  } else if (head == OutputHead::bert_mlm) {
    a.kind = AnswerKind::masked;
    if (mask_positions(model, trace).empty())
      return make_error(std::string(kNoAnswerNoMask));
  } else {
    return make_error(std::string(kNoAnswerNeedsCausal));
  }
  return answer_at(model, trace, trace.final, std::move(a), top_k);
}

Result<ModelAnswer> model_answer_from_final(const Model& model, const Trace& trace, const Mat& final,
                                            const ModelAnswer& reference, int top_k) {
  if (final.rows() != trace.n_queries() || final.cols() != model.config.d_model)
    return make_error("the hidden states do not belong to this trace");
  return answer_at(model, trace, final, reference, top_k);
}

Result<AnswerShift> answer_shift(const Model& model, const Mat& final, const ModelAnswer& reference) {
  AnswerShift out;
  if (reference.kind == AnswerKind::coref) {
    auto p = coref_answer_from_final(model, final, reference.example);
    if (!p) return make_error(p.error());
    out.log_prob = coref_log_prob(*p, reference.coref.referent);
    out.changed = p->referent != reference.coref.referent;
    return out;
  }
  for (const PositionAnswer& pa : reference.predictions) {
    if (pa.position < 0 || pa.position >= final.rows() || pa.top.empty())
      return make_error("the hidden states do not belong to this answer");
    auto logits = output_logits(model, final.row(pa.position));
    if (!logits) return make_error(logits.error());
    const std::vector<double> lp = log_softmax(*logits);
    out.log_prob += static_cast<float>(lp[static_cast<size_t>(pa.top.front().id)]);
    // The new top token, ties to the lower id as position_answer orders them.
    const auto best = std::max_element(lp.begin(), lp.end());
    out.changed = out.changed || best - lp.begin() != pa.top.front().id;
  }
  return out;
}

}  // namespace attnviz
