// What the Coreference view shows, read from a finished Trace: the pronoun's attention to each
// candidate noun in every head, which heads resolve "it", and the model's answer taken from the
// trace's final hidden states. No forward pass runs here, and no sentence is parsed (coref_make does).
#pragma once
#include <string_view>
#include <vector>

#include "analysis/answer.h"
#include "base/result.h"
#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

// A head resolves "it" when it puts at least this share of the pronoun's attention on the correct
// referent (and more than on the other candidate).
inline constexpr float kCorefResolveShare = 0.5f;

struct CorefHeadScore {
  int layer = 0, head = 0;
  float to_a = 0, to_b = 0;  // the pronoun's attention weight on candidate a / candidate b
  float to_property = 0;     // on the property word; 0 when the sentence has none
  bool resolves = false;     // referent known, to_referent > to_other and to_referent >= kCorefResolveShare
  bool reads_property = false;  // the sentence has a property word and to_property >= kCorefResolveShare:
                                // the head carries "tired" / "wide" into the pronoun, which in the shipped
                                // demo is what decides the answer (its importance grid shows it)
};

// Ok when the example has a pronoun and two candidates and the trace is a self-attention trace of
// the example's sentence: its first tokens are the example's tokens (padding may follow). Errors
// here and below are analysis/answer.h's NoAnswer codes.
AnswerResult<Ok> coref_check(const Trace& trace, const CorefExample& example);

// For a trace made by a checkpoint's tokenizer (subword pieces, [CLS] first): the example re-indexed
// onto the trace's tokens. Its tokens become the trace's sentence-A tokens, and the pronoun, the
// candidates, the referent and the property word point at the first piece covering each word, found
// by byte offsets. A word-level trace gives the example back unchanged.
CorefExample coref_align(const Trace& trace, const CorefExample& example);

// One score per head, layer by layer (index layer * NH + head); coref_check's errors otherwise.
AnswerResult<std::vector<CorefHeadScore>> coref_head_scores(const Trace& trace, const CorefExample& example);

// The index into `scores` of the head that separates the candidates best: with a known referent,
// the largest (to_referent - to_other); without one, the largest |to_a - to_b|. -1 when empty.
int coref_best_head(const std::vector<CorefHeadScore>& scores, const CorefExample& example);

// The model's answer read from the trace: the pronoun's row of `final` times the output projection,
// compared between the two candidates' words (softmax over the two, as coref_predict does). With
// the trace that trace_run makes without masks it equals coref_predict. Errors: no output
// projection or vocabulary, a trace not made by this model, a candidate word outside the vocabulary.
AnswerResult<CorefPrediction> coref_answer(const Model& model, const Trace& trace, const CorefExample& example);
// The same from final hidden states (T, C) of the example's sentence: e.g. with heads switched off.
AnswerResult<CorefPrediction> coref_answer_from_final(const Model& model, const Mat& final, const CorefExample& example);

// The two candidates' logits at the pronoun (their words' rows of the output projection, with its
// bias), what coref_answer_from_final chooses between: log p(a) − log p(b) among the two is a − b.
struct CorefLogits {
  float a = 0, b = 0;
};
AnswerResult<CorefLogits> coref_candidate_logits(const Model& model, const Mat& final, const CorefExample& example);

// coref_make(text) and coref_answer together, for a UI holding a trace of `text`: the example (its
// pronoun, candidates and property as token indices of the trace) and the model's answer.
struct CorefReadout {
  CorefExample example;
  CorefPrediction prediction;
};
AnswerResult<CorefReadout> coref_readout(const Model& model, const Trace& trace, std::string_view text);

}  // namespace attnviz
