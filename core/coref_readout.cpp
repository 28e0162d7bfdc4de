// The answer is two logits of one row: output_w[word] · final[pronoun] + output_b[word] for each
// candidate's word, then a softmax over just those two — the same rule as coref_predict, which
// runs its own forward pass instead of reusing a trace.
#include "core/coref_readout.h"

#include <cmath>
#include <string>

namespace attnviz {

namespace {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

// The vocabulary id coref_predict would use for a word: lowercased, else [UNK] (else 0).
int vocab_id(const Model& model, std::string_view word) {
  const std::string want = ascii_lower(word);
  int unk = 0;
  for (size_t i = 0; i < model.vocab.size(); ++i) {
    if (model.vocab[i] == want) return static_cast<int>(i);
    if (model.vocab[i] == "[UNK]") unk = static_cast<int>(i);
  }
  return unk;
}

}  // namespace

Result<CorefReadout> coref_readout(const Model& model, const Trace& trace, std::string_view text) {
  CorefReadout r;
  r.example = coref_make(text);
  const CorefExample& e = r.example;
  if (e.tokens.empty()) return make_error("the sentence has no tokens");
  if (e.pronoun < 0) return make_error("the sentence has no pronoun \"it\"");
  if (e.candidate_a < 0 || e.candidate_b < 0)
    return make_error("the sentence needs two candidate nouns the model knows (see its vocabulary)");
  if (trace.cross || trace.n_queries() != static_cast<int>(e.tokens.size()) || trace.final.rows() != trace.n_queries())
    return make_error("the trace is not of this sentence");
  for (size_t i = 0; i < e.tokens.size(); ++i)
    if (trace.queries[i].text != e.tokens[i].text) return make_error("the trace is not of this sentence");
  const Mat& w = model.weights.output_w;  // (V, C)
  if (w.rows() == 0 || w.rows() != static_cast<Eigen::Index>(model.vocab.size()) || w.cols() != trace.final.cols() ||
      model.weights.output_b.size() != w.rows())
    return make_error("the model has no output projection to its vocabulary");
  const auto logit = [&](int token) {
    const int id = vocab_id(model, e.tokens[static_cast<size_t>(token)].text);
    return w.row(id).dot(trace.final.row(e.pronoun)) + model.weights.output_b(id);
  };
  const float la = logit(e.candidate_a), lb = logit(e.candidate_b);
  CorefPrediction& p = r.prediction;
  p.pronoun = e.pronoun;
  p.referent = la >= lb ? e.candidate_a : e.candidate_b;
  p.referent_text = e.tokens[static_cast<size_t>(p.referent)].text;
  p.probability = 1.0f / (1.0f + std::exp(-std::abs(la - lb)));
  return r;
}

}  // namespace attnviz
