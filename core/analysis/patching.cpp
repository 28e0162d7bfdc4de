// Activation patching: one corrupt run per head (or per layer and position) with one intervention
// (model/intervention.h), the metric read from the logits each time.
#include "analysis/patching.h"

#include <algorithm>
#include <cmath>

#include "analysis/coref_readout.h"
#include "base/enum_names.h"

namespace attnviz {

namespace {

constexpr EnumNames<PatchBy, 2> kPatchByNames{{{PatchBy::head, "head"}, {PatchBy::position, "position"}}};
constexpr EnumNames<PatchMetric, 2> kPatchMetricNames{
    {{PatchMetric::logit_diff, "logit_diff"}, {PatchMetric::log_prob_diff, "log_prob_diff"}}};

PatchFailure failure_of(PatchFailureKind kind) {
  PatchFailure f;
  f.kind = kind;
  return f;
}
PatchFailure failure_of(const NoAnswer& why) {
  PatchFailure f;
  f.kind = why.reason == NoAnswerReason::cancelled ? PatchFailureKind::cancelled : PatchFailureKind::no_answer;
  f.no_answer = why;
  return f;
}

// What the metric reads of one run's final hidden states, and what that run answers.
struct Reading {
  float metric = 0;
  std::string answer;  // the top token at the last position, or the referent's word
};

class Metric {
 public:
  Metric(const Model& model, const PatchResult& r, const ModelAnswer& corrupt)
      : model_(model), r_(r), corrupt_(corrupt) {}

  // The reading of `final`, a run of the text whose answer `on` is (its positions and candidates).
  AnswerResult<Reading> read(const Mat& final, const ModelAnswer& on) const {
    if (r_.metric == PatchMetric::logit_diff) {
      const int pos = on.predictions.front().position;
      auto logits = output_logits(model_, final.row(pos));
      if (!logits) return logits.why();
      Eigen::Index top = 0;
      logits->maxCoeff(&top);  // the first maximum: ties to the lower id, as answers order them
      return Reading{(*logits)(r_.answer_id) - (*logits)(r_.wrong_id), answer_token_text(model_, static_cast<int>(top))};
    }
    auto l = coref_candidate_logits(model_, final, on.example);
    if (!l) return l.why();
    const auto logit_at = [&](int position) { return position == on.example.candidate_a ? l->a : l->b; };
    const CorefPrediction chosen = coref_choose(on.example, l->a, l->b);
    return Reading{logit_at(r_.clean_referent) - logit_at(r_.corrupt_referent), chosen.referent_text};
  }
  AnswerResult<Reading> read_corrupt(const Mat& final) const { return read(final, corrupt_); }

 private:
  const Model& model_;
  const PatchResult& r_;
  const ModelAnswer& corrupt_;
};

bool same_candidates(const CorefExample& a, const CorefExample& b) {
  return a.pronoun == b.pronoun && a.candidate_a == b.candidate_a && a.candidate_b == b.candidate_b;
}

}  // namespace

std::string_view name_of(PatchBy by) { return enum_name(kPatchByNames, by); }
std::string_view name_of(PatchMetric metric) { return enum_name(kPatchMetricNames, metric); }
std::optional<PatchBy> patch_by_from_name(std::string_view s) { return enum_from_name(kPatchByNames, s); }

std::string patch_failure_english(const PatchFailure& f) {
  switch (f.kind) {
    case PatchFailureKind::no_answer: return no_answer_english(f.no_answer);
    case PatchFailureKind::unsupported:
      return "patching reads a next-token model's logits or the coreference demo's answer at \"it\"; this model "
             "answers otherwise";
    case PatchFailureKind::different_lengths:
      return "the clean text has " + std::to_string(f.clean_tokens) + " tokens and the corrupt text " +
             std::to_string(f.corrupt_tokens) + ": patching needs texts of the same number of tokens";
    case PatchFailureKind::same_answer:
      if (!f.answer.empty()) return "both texts give the same answer ('" + f.answer + "'): there is nothing to patch";
      return "both texts give the same answer (the metric is " + std::to_string(f.metric) +
             " on each): there is nothing to patch";
    case PatchFailureKind::bad_token:
      return "token id " + std::to_string(f.token) + " is outside the model's vocabulary";
    case PatchFailureKind::ablated:
      return "patching compares the full model's runs: a text was run with heads switched off (switch them on)";
    case PatchFailureKind::cancelled: return kTraceCancelled;
  }
  return "cannot patch";
}

PatchOutcome<PatchResult> patch_run(const Model& model, const Trace& clean, std::string_view clean_text,
                                    const Trace& corrupt, std::string_view corrupt_text, PatchBy by,
                                    const PatchTokens& tokens, const std::atomic<bool>* cancel) {
  const ModelConfig& c = model.config;
  for (const Trace* t : {&clean, &corrupt}) {
    if (t->weights_only) return failure_of(NoAnswer{NoAnswerReason::no_model, {}});
    if (t->cross) return failure_of(NoAnswer{NoAnswerReason::cross_attention, {}});
    // Every head's z downstream of a switched-off head is that run's, not the model's: refused.
    if (t->ablation.any()) return failure_of(PatchFailureKind::ablated);
  }
  const Trace* cl = &clean;
  const Trace* co = &corrupt;
  if (cl->n_queries() != co->n_queries()) {
    PatchFailure f = failure_of(PatchFailureKind::different_lengths);
    f.clean_tokens = cl->n_queries();
    f.corrupt_tokens = co->n_queries();
    return f;
  }
  auto clean_answer = model_answer(model, *cl, clean_text, 1);
  if (!clean_answer) return failure_of(clean_answer.why());
  auto corrupt_answer = model_answer(model, *co, corrupt_text, 1);
  if (!corrupt_answer) return failure_of(corrupt_answer.why());
  const AnswerKind kind = clean_answer->kind;
  if ((kind != AnswerKind::next_token && kind != AnswerKind::coref) || corrupt_answer->kind != kind)
    return failure_of(PatchFailureKind::unsupported);

  PatchResult r;
  r.by = by;
  if (kind == AnswerKind::next_token) {
    r.metric = PatchMetric::logit_diff;
    r.answer_id = tokens.answer.value_or(clean_answer->predictions.front().top.front().id);
    r.wrong_id = tokens.wrong.value_or(corrupt_answer->predictions.front().top.front().id);
    auto probe = output_logits(model, cl->final.row(0));
    if (!probe) return failure_of(probe.why());
    for (int id : {r.answer_id, r.wrong_id})
      if (id < 0 || id >= probe->size()) {
        PatchFailure f = failure_of(PatchFailureKind::bad_token);
        f.token = id;
        return f;
      }
    r.answer_text = answer_token_text(model, r.answer_id);
    r.wrong_text = answer_token_text(model, r.wrong_id);
  } else {
    r.metric = PatchMetric::log_prob_diff;
    if (!same_candidates(clean_answer->example, corrupt_answer->example)) return failure_of(PatchFailureKind::unsupported);
    r.clean_referent = clean_answer->coref.referent;
    r.corrupt_referent = corrupt_answer->coref.referent;
    r.clean_referent_text = clean_answer->coref.referent_text;
    r.corrupt_referent_text = corrupt_answer->coref.referent_text;
  }
  const Metric metric(model, r, *corrupt_answer);
  auto m_clean = metric.read(cl->final, *clean_answer);
  if (!m_clean) return failure_of(m_clean.why());
  auto m_corrupt = metric.read_corrupt(co->final);
  if (!m_corrupt) return failure_of(m_corrupt.why());
  r.clean = m_clean->metric;
  r.corrupt = m_corrupt->metric;
  if (std::fabs(r.clean - r.corrupt) <= kPatchSameAnswer) {
    PatchFailure f = failure_of(PatchFailureKind::same_answer);
    f.metric = r.clean;
    if (r.answer_id >= 0 && r.answer_id == r.wrong_id) f.answer = r.answer_text;
    if (r.clean_referent >= 0 && r.clean_referent == r.corrupt_referent) f.answer = r.clean_referent_text;
    return f;
  }

  const int L = c.n_layers, T = co->n_queries();
  const int columns = by == PatchBy::head ? c.n_heads : T;
  r.effect.assign(static_cast<size_t>(L), std::vector<float>(static_cast<size_t>(columns), 0.0f));
  r.patched = r.effect;
  r.patched_answer.assign(static_cast<size_t>(L), std::vector<std::string>(static_cast<size_t>(columns)));
  const double span = static_cast<double>(r.clean) - r.corrupt;
  for (int l = 0; l < L; ++l)
    for (int j = 0; j < columns; ++j) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return failure_of(PatchFailureKind::cancelled);
      Interventions iv;
      if (by == PatchBy::head)
        iv.heads.push_back(HeadPatch{HeadRef{l, j}, cl->head(l, j).out});
      else
        iv.residual.push_back(ResidualPatch{l, j, cl->layers[static_cast<size_t>(l)].x_in.row(j)});
      auto final = trace_final_intervened(model, *co, iv);
      if (!final) return failure_of(NoAnswer{NoAnswerReason::other_model, {}});
      auto m = metric.read_corrupt(*final);
      if (!m) return failure_of(m.why());
      r.patched[static_cast<size_t>(l)][static_cast<size_t>(j)] = m->metric;
      r.effect[static_cast<size_t>(l)][static_cast<size_t>(j)] = static_cast<float>((m->metric - r.corrupt) / span);
      r.patched_answer[static_cast<size_t>(l)][static_cast<size_t>(j)] = std::move(m->answer);
    }
  return r;
}

Result<int> token_id_parse(const Model& model, std::string_view text) {
  if (!model.tokenizer) {
    for (size_t i = 0; i < model.vocab.size(); ++i)
      if (model.vocab[i] == text) return static_cast<int>(i);
    return make_error("'" + std::string(text) + "' is not a word of the model's vocabulary");
  }
  auto enc = model.tokenizer->encode(text);
  if (!enc) return make_error(enc.error());
  std::vector<const SubwordToken*> pieces;
  for (const SubwordToken& t : enc->tokens)
    if (!(t.special && t.begin == t.end)) pieces.push_back(&t);  // framing the tokenizer adds (BOS) is not the text's
  if (pieces.size() == 1) return pieces.front()->id;
  std::string names;
  for (const SubwordToken* t : pieces) names += (names.empty() ? "'" : ", '") + answer_token_text(model, t->id) + "'";
  return make_error("'" + std::string(text) + "' is " + std::to_string(pieces.size()) + " tokens, not one" +
                    (pieces.empty() ? std::string() : ": " + names) + " (write one token's text, its leading space included, or give its id)");
}

}  // namespace attnviz
