// Reads the Coreference view's numbers off a Trace. The answer uses only the pronoun's row of the
// final hidden states and two rows of the output projection, so the view can ask for it on every
// new trace even for large models (coref_predict would run the whole forward pass again).
#include "analysis/coref_readout.h"
#include "base/ascii.h"
#include "model/head_map.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace attnviz {

namespace {

// The word's row in the vocabulary, found as embed_tokens finds it (exact, then lowercase); -1: none.
int vocab_index(const Model& model, const std::string& word) {
  const std::string lower = ascii_lower(word);
  int found = -1;
  for (size_t i = 0; i < model.vocab.size(); ++i) {
    if (model.vocab[i] == word) return static_cast<int>(i);
    if (found < 0 && model.vocab[i] == lower) found = static_cast<int>(i);
  }
  return found;
}

float weight_at(const Mat& w, int q, int k) { return k >= 0 ? w(q, k) : 0.0f; }

}  // namespace

CorefExample coref_align(const Trace& trace, const CorefExample& e) {
  const bool subwords = std::any_of(trace.queries.begin(), trace.queries.end(), [](const TraceToken& t) { return t.id >= 0; });
  if (!subwords || trace.cross) return e;
  CorefExample out = e;
  out.tokens.clear();
  for (const TraceToken& t : trace.queries) {
    if (t.segment != 0 || t.pad) break;  // sentence A only (B and padding follow it)
    out.tokens.push_back(Token{t.text, t.begin, t.end, t.kind});
  }
  // The first piece covering the word's first byte (GPT-2's pieces start with the space before it).
  auto piece_of = [&](int word) {
    if (word < 0) return -1;
    const size_t at = e.tokens[static_cast<size_t>(word)].begin;
    for (size_t i = 0; i < out.tokens.size(); ++i) {
      const Token& t = out.tokens[i];
      if (t.kind != TokenKind::special && t.begin <= at && at < t.end) return static_cast<int>(i);
    }
    return -1;
  };
  out.pronoun = piece_of(e.pronoun);
  out.candidate_a = piece_of(e.candidate_a);
  out.candidate_b = piece_of(e.candidate_b);
  out.referent = piece_of(e.referent);
  out.property = piece_of(e.property);
  return out;
}

AnswerResult<Ok> coref_check(const Trace& trace, const CorefExample& e) {
  if (e.tokens.empty()) return NoAnswerReason::no_tokens;
  if (e.pronoun < 0) return NoAnswerReason::no_pronoun;
  if (e.candidate_a < 0 || e.candidate_b < 0) return NoAnswerReason::no_candidates;
  if (trace.cross) return NoAnswerReason::cross_attention;
  if (trace.n_queries() < static_cast<int>(e.tokens.size()) || trace.n_keys() < static_cast<int>(e.tokens.size()))
    return NoAnswerReason::other_sentence;
  for (size_t i = 0; i < e.tokens.size(); ++i)
    if (trace.queries[i].text != e.tokens[i].text) return NoAnswerReason::other_sentence;
  return Ok{};
}

AnswerResult<std::vector<CorefHeadScore>> coref_head_scores(const Trace& trace, const CorefExample& e) {
  if (auto s = coref_check(trace, e); !s) return s.why();
  std::vector<CorefHeadScore> out;
  for (size_t l = 0; l < trace.layers.size(); ++l) {
    const auto& heads = trace.layers[l].attn.heads;
    for (size_t h = 0; h < heads.size(); ++h) {
      const HeadMap map = head_map(trace, static_cast<int>(l), static_cast<int>(h));
      const Mat& w = *map;
      CorefHeadScore s;
      s.layer = static_cast<int>(l);
      s.head = static_cast<int>(h);
      s.to_a = weight_at(w, e.pronoun, e.candidate_a);
      s.to_b = weight_at(w, e.pronoun, e.candidate_b);
      s.to_property = weight_at(w, e.pronoun, e.property);
      s.reads_property = e.property >= 0 && s.to_property >= kCorefResolveShare;
      if (e.referent >= 0) {
        const float to_ref = e.referent == e.candidate_a ? s.to_a : s.to_b;
        const float to_other = e.referent == e.candidate_a ? s.to_b : s.to_a;
        s.resolves = to_ref > to_other && to_ref >= kCorefResolveShare;
      }
      out.push_back(s);
    }
  }
  return out;
}

int coref_best_head(const std::vector<CorefHeadScore>& scores, const CorefExample& e) {
  int best = -1;
  float best_margin = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    const CorefHeadScore& s = scores[i];
    float margin = std::abs(s.to_a - s.to_b);
    if (e.referent >= 0) margin = e.referent == e.candidate_a ? s.to_a - s.to_b : s.to_b - s.to_a;
    if (best < 0 || margin > best_margin) {
      best = static_cast<int>(i);
      best_margin = margin;
    }
  }
  return best;
}

AnswerResult<CorefPrediction> coref_answer(const Model& model, const Trace& trace, const CorefExample& e) {
  if (auto s = coref_check(trace, e); !s) return s.why();
  return coref_answer_from_final(model, trace.final, e);
}

AnswerResult<CorefLogits> coref_candidate_logits(const Model& model, const Mat& final, const CorefExample& e) {
  const WeightMat& out_w = model.weights.output_w;
  const Vec& out_b = model.weights.output_b;
  if (out_w.rows() == 0 || model.vocab.empty() || static_cast<size_t>(out_w.rows()) != model.vocab.size())
    return NoAnswerReason::no_word_readout;
  if (e.pronoun < 0) return NoAnswerReason::no_pronoun;
  if (e.candidate_a < 0 || e.candidate_b < 0) return NoAnswerReason::no_candidates;
  if (final.cols() != out_w.cols() || final.rows() <= e.pronoun) return NoAnswerReason::other_model;
  const std::string& word_a = e.tokens[static_cast<size_t>(e.candidate_a)].text;
  const std::string& word_b = e.tokens[static_cast<size_t>(e.candidate_b)].text;
  const int id_a = vocab_index(model, word_a), id_b = vocab_index(model, word_b);
  if (id_a < 0) return NoAnswer{NoAnswerReason::unknown_word, word_a};
  if (id_b < 0) return NoAnswer{NoAnswerReason::unknown_word, word_b};
  const auto row = final.row(e.pronoun);
  const float bias_a = out_b.size() > id_a ? out_b(id_a) : 0.0f, bias_b = out_b.size() > id_b ? out_b(id_b) : 0.0f;
  return CorefLogits{row.dot(out_w.row(id_a)) + bias_a, row.dot(out_w.row(id_b)) + bias_b};
}

AnswerResult<CorefPrediction> coref_answer_from_final(const Model& model, const Mat& final, const CorefExample& e) {
  auto logits = coref_candidate_logits(model, final, e);
  if (!logits) return logits.why();
  return coref_choose(e, logits->a, logits->b);
}

AnswerResult<CorefReadout> coref_readout(const Model& model, const Trace& trace, std::string_view text) {
  CorefReadout r;
  r.example = coref_make(text);
  if (auto s = coref_check(trace, r.example); !s) return s.why();
  auto p = coref_answer(model, trace, r.example);
  if (!p) return p.why();
  r.prediction = std::move(*p);
  return r;
}

}  // namespace attnviz
