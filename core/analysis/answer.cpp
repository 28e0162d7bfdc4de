// Answers are read, never recomputed: the final hidden states come from a trace (or from
// trace_final_ablated), and only the output head runs here, on the rows it needs.
#include "analysis/answer.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

#include "analysis/coref_readout.h"
#include "demos/gather_data.h"
#include "base/enum_names.h"
#include "model/attention.h"
#include "model/kernels.h"
#include "text/subword_display.h"

namespace attnviz {

namespace {

constexpr EnumNames<AnswerKind, 4> kKinds{{{AnswerKind::coref, "coref"},
                                           {AnswerKind::next_token, "next_token"},
                                           {AnswerKind::masked, "masked"},
                                           {AnswerKind::at_word, "at_word"}}};

constexpr EnumNames<NoAnswerReason, std::size(kNoAnswerReasons)> kReasonNames{{
    {NoAnswerReason::no_output_head, "no_output_head"},   {NoAnswerReason::no_model, "no_model"},
    {NoAnswerReason::cross_attention, "cross_attention"}, {NoAnswerReason::no_tokens, "no_tokens"},
    {NoAnswerReason::no_pronoun, "no_pronoun"},           {NoAnswerReason::no_its, "no_its"},
    {NoAnswerReason::no_candidates, "no_candidates"},
    {NoAnswerReason::unknown_word, "unknown_word"},       {NoAnswerReason::no_word_readout, "no_word_readout"},
    {NoAnswerReason::no_mask, "no_mask"},                 {NoAnswerReason::needs_causal, "needs_causal"},
    {NoAnswerReason::mask_not_trained, "mask_not_trained"},
    {NoAnswerReason::other_sentence, "other_sentence"},   {NoAnswerReason::other_model, "other_model"},
    {NoAnswerReason::cancelled, "cancelled"},             {NoAnswerReason::bad_weights, "bad_weights"}}};

std::string token_name(const Model& model, int id) {
  if (model.tokenizer && id < model.tokenizer->vocab_size()) return model.tokenizer->piece(id);
  if (id >= 0 && static_cast<size_t>(id) < model.vocab.size()) return model.vocab[static_cast<size_t>(id)];
  return "#" + std::to_string(id);
}

}  // namespace

std::string answer_token_text(const Model& model, int id) {
  if (!model.tokenizer || id >= model.tokenizer->vocab_size()) return token_name(model, id);
  const int ids[] = {id};
  return subword_visible_text(model.tokenizer->decode(ids));
}


namespace {

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

AnswerResult<PositionAnswer> position_answer(const Model& model, const Mat& final, int position, int top_k) {
  auto logits = output_logits(model, final.row(position));
  if (!logits) return logits.why();
  PositionAnswer out;
  out.position = position;
  out.top = answer_top_tokens(model, *logits, top_k);
  return out;
}

std::vector<int> mask_positions(const Model& model, const Trace& trace) {
  std::vector<int> out;
  const auto mask_id = model.tokenizer ? model.tokenizer->id_of("[MASK]") : std::nullopt;
  if (!mask_id) return out;
  for (int i = 0; i < trace.n_queries(); ++i)
    if (trace.queries[static_cast<size_t>(i)].id == *mask_id) out.push_back(i);
  return out;
}

// log p(referent) among the two candidates, from their logits in double: −softplus(l_other − l_referent).
// (1 − p from a float sigmoid lost its digits, and became 0 past a margin of about 17.)
float coref_log_prob(const CorefExample& e, const CorefLogits& l, int referent) {
  const double mine = referent == e.candidate_a ? l.a : l.b, other = referent == e.candidate_a ? l.b : l.a;
  const double x = other - mine;
  const double softplus = x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  return static_cast<float>(-softplus);
}

AnswerResult<ModelAnswer> answer_at(const Model& model, const Trace& trace, const Mat& final, ModelAnswer out, int top_k) {
  out.predictions.clear();
  out.log_prob = 0;
  if (out.kind == AnswerKind::coref) {
    auto l = coref_candidate_logits(model, final, out.example);
    if (!l) return l.why();
    out.coref = coref_choose(out.example, l->a, l->b);
    out.log_prob = coref_log_prob(out.example, *l, out.coref.referent);
    return out;
  }
  std::vector<int> positions;
  if (out.kind == AnswerKind::next_token) positions = {trace_last_real_query(trace)};
  else if (out.kind == AnswerKind::at_word) positions = {out.word};
  else positions = mask_positions(model, trace);
  for (int pos : positions) {
    auto a = position_answer(model, final, pos, top_k);
    if (!a) return a.why();
    out.log_prob += std::log(std::max(a->top.front().p, 1e-30f));
    out.predictions.push_back(std::move(*a));
  }
  return out;
}

}  // namespace

std::vector<TokenScore> answer_top_tokens(const Model& model, const RowVec& logits, int top_k) {
  const std::vector<double> lp = log_softmax(logits);
  std::vector<int> order(lp.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min(order.size(), static_cast<size_t>(std::max(top_k, 1)));
  // Ties keep the lower id first, so the answer does not depend on the sort's whims.
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](int a, int b) {
    return lp[static_cast<size_t>(a)] > lp[static_cast<size_t>(b)] || (lp[static_cast<size_t>(a)] == lp[static_cast<size_t>(b)] && a < b);
  });
  std::vector<TokenScore> top;
  for (size_t i = 0; i < k; ++i)
    top.push_back(TokenScore{token_name(model, order[i]), answer_token_text(model, order[i]), order[i],
                             static_cast<float>(std::exp(lp[static_cast<size_t>(order[i])]))});
  return top;
}

std::string_view name_of(AnswerKind kind) { return enum_name(kKinds, kind); }
std::string_view name_of(NoAnswerReason reason) { return enum_name(kReasonNames, reason); }

std::string no_answer_english(const NoAnswer& why) {
  switch (why.reason) {
    // Short enough for the app's answer line at 1280 pixels, in either language.
    case NoAnswerReason::no_output_head:
      return "the model has no output head (a random sandbox has none; BERT needs cls.predictions.*)";
    case NoAnswerReason::no_model: return "an attention file holds only the weights, and there is no model to answer";
    case NoAnswerReason::cross_attention: return "the model's answer is read from self-attention, not cross-attention";
    case NoAnswerReason::no_tokens: return "the sentence has no tokens: type some words";
    case NoAnswerReason::no_pronoun:
      return "the sentence has no pronoun \"it\" for the model to resolve (a model that predicts the next token "
             "answers under the causal mask)";
    case NoAnswerReason::no_its: return "the sentence has no \"its\": the model names its four words there";
    case NoAnswerReason::no_candidates: return "the sentence needs two candidate nouns the model knows (see its vocabulary)";
    case NoAnswerReason::unknown_word: return "the model does not know the word '" + why.word + "'";
    case NoAnswerReason::no_word_readout:
      return "the model has no output projection onto a vocabulary: it cannot name a word";
    case NoAnswerReason::no_mask: return "type [MASK] where the model should fill in a word: its masked-LM head answers there";
    case NoAnswerReason::needs_causal: return "this model predicts the next token only under the causal mask: switch it on";
    case NoAnswerReason::mask_not_trained:
      return "the model was not trained with this mask, so what it answers under it means nothing: switch the mask off";
    case NoAnswerReason::other_sentence: return "the trace is of another sentence";
    case NoAnswerReason::other_model: return "the trace was not made by this model";
    case NoAnswerReason::cancelled: return kTraceCancelled;
    case NoAnswerReason::bad_weights: return "the model's file holds a weight that is not a number: " + why.word;
  }
  return "no answer";
}

AnswerResult<RowVec> output_logits(const Model& model, const RowVec& h) {
  auto out = output_logits_uncapped(model, h);
  if (!out || model.config.logit_softcap <= 0.0f) return out;
  for (Eigen::Index i = 0; i < out->size(); ++i) (*out)(i) = soft_cap((*out)(i), model.config.logit_softcap);
  return out;
}

AnswerResult<RowVec> output_logits_uncapped(const Model& model, const RowVec& h) {
  const ModelWeights& w = model.weights;
  if (h.size() != model.config.d_model) return NoAnswerReason::other_model;  // not a hidden state of this model
  switch (model_output_head(model)) {
    case OutputHead::none: return NoAnswerReason::no_output_head;
    case OutputHead::linear: {
      auto out = vocab_table_times(model, VocabTable::output, h);  // tile by tile when kept encoded
      if (!out) return NoAnswer{NoAnswerReason::bad_weights, out.error()};
      if (w.output_b.size() == out->size()) *out += w.output_b.transpose();
      return std::move(*out);
    }
    case OutputHead::tied: {
      auto out = vocab_table_times(model, VocabTable::tokens, h);
      if (!out) return NoAnswer{NoAnswerReason::bad_weights, out.error()};
      return std::move(*out);
    }
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
  return NoAnswerReason::no_output_head;  // a head this file does not know reads nothing
}

AnswerResult<ModelAnswer> model_answer(const Model& model, const Trace& trace, std::string_view text, int top_k) {
  const OutputHead head = model_output_head(model);
  if (trace.weights_only) return NoAnswerReason::no_model;
  if (trace.final.rows() != trace.n_queries() || trace.final.cols() != model.config.d_model)
    return NoAnswerReason::other_model;
  if (trace.cross) return NoAnswerReason::cross_attention;
  ModelAnswer a;
  if (head == OutputHead::none) return NoAnswerReason::no_output_head;
  if (trace.causal && head != OutputHead::bert_mlm) {
    a.kind = AnswerKind::next_token;
  } else if (head == OutputHead::linear && !model.tokenizer && gather_answer_id(model.vocab, 0) >= 0) {
    a.kind = AnswerKind::at_word;  // the gather demo: "its" names its four words
    a.word = gather_make(text).query;
    if (a.word < 0 || a.word >= trace.n_queries()) return NoAnswerReason::no_its;
  } else if (head == OutputHead::linear && !model.tokenizer) {
    a.kind = AnswerKind::coref;
    a.example = coref_make(text);
    if (a.example.pronoun < 0) return NoAnswerReason::no_pronoun;
    if (a.example.candidate_a < 0 || a.example.candidate_b < 0) return NoAnswerReason::no_candidates;
    if (auto s = coref_check(trace, a.example); !s) return s.why();
  } else if (head == OutputHead::bert_mlm) {
    a.kind = AnswerKind::masked;
    if (mask_positions(model, trace).empty()) return NoAnswerReason::no_mask;
  } else {
    return NoAnswerReason::needs_causal;
  }
  return answer_at(model, trace, trace.final, std::move(a), top_k);
}

AnswerResult<ModelAnswer> model_answer_from_final(const Model& model, const Trace& trace, const Mat& final,
                                                  const ModelAnswer& reference, int top_k) {
  if (final.rows() != trace.n_queries() || final.cols() != model.config.d_model) return NoAnswerReason::other_model;
  return answer_at(model, trace, final, reference, top_k);
}

AnswerResult<AnswerShift> answer_shift(const Model& model, const Mat& final, const ModelAnswer& reference) {
  AnswerShift out;
  if (reference.kind == AnswerKind::coref) {
    auto l = coref_candidate_logits(model, final, reference.example);
    if (!l) return l.why();
    out.log_prob = coref_log_prob(reference.example, *l, reference.coref.referent);
    out.changed = coref_choose(reference.example, l->a, l->b).referent != reference.coref.referent;
    return out;
  }
  for (const PositionAnswer& pa : reference.predictions) {
    if (pa.position < 0 || pa.position >= final.rows() || pa.top.empty()) return NoAnswerReason::other_model;
    auto logits = output_logits(model, final.row(pa.position));
    if (!logits) return logits.why();
    const std::vector<double> lp = log_softmax(*logits);
    out.log_prob += static_cast<float>(lp[static_cast<size_t>(pa.top.front().id)]);
    // The new top token, ties to the lower id as position_answer orders them.
    const auto best = std::max_element(lp.begin(), lp.end());
    out.changed = out.changed || best - lp.begin() != pa.top.front().id;
  }
  return out;
}

}  // namespace attnviz
