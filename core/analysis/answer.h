// What the model answers for a trace, read from its final hidden states through the model's output
// head: the coreference demo's referent for "it", the next token of a causal model (the induction
// demo, GPT-2) at the last position, or a BERT masked-LM head's tokens for each [MASK]. The answer's
// log-probability is what switching heads off is measured against (analysis/importance.h).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analysis/coref_readout.h"
#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

enum class AnswerKind { coref, next_token, masked };
std::string_view name_of(AnswerKind kind);  // "coref", "next_token", "masked"

struct TokenScore {
  std::string token;  // the vocabulary entry (a checkpoint's piece, as "Ġcat")
  std::string text;   // what it reads as: "·cat" (· the space it carries), "<E2>" for a lone byte
  int id = -1;
  float p = 0;        // softmax over the whole vocabulary
};

struct PositionAnswer {
  int position = -1;            // the query row read
  std::vector<TokenScore> top;  // the k most probable tokens, best first
};

struct ModelAnswer {
  AnswerKind kind = AnswerKind::coref;
  CorefExample example;                  // coref: "it", the candidates (token indices of the trace)
  CorefPrediction coref;                 // coref: the chosen referent, p among the two candidates
  std::vector<PositionAnswer> predictions;  // next_token: the last position; masked: each [MASK]
  float log_prob = 0;  // of the answer: log p(referent) among the two candidates, or the sum over
                       // positions of log p(top token)
};

// Why model_answer has no answer, for the cases a person meets: its error texts, named so that the
// app can say them in its own language (app/desktop/state/answer_text.h).
inline constexpr std::string_view kNoAnswerNoOutputHead =
    "the model has no output head (a random sandbox has none; BERT needs cls.predictions.*)";
inline constexpr std::string_view kNoAnswerCrossAttention =
    "the model's answer is read from self-attention, not cross-attention";
inline constexpr std::string_view kNoAnswerNoPronoun =
    "the sentence has no pronoun \"it\" for the model to resolve (a model that predicts the next token answers "
    "under the causal mask)";
inline constexpr std::string_view kNoAnswerNoCandidates =
    "the sentence needs two candidate nouns the model knows (see its vocabulary)";
inline constexpr std::string_view kNoAnswerNoMask =
    "type [MASK] where the model should fill in a word: its masked-LM head answers there";
inline constexpr std::string_view kNoAnswerNeedsCausal =
    "this model predicts the next token only under the causal mask: switch it on";

// Picks the kind from the model and the trace: a causal trace with an output head -> next_token;
// a word-level model with its own output layer and a sentence with "it" and two candidates ->
// coref; a BERT masked-LM head -> masked (the sentence must hold [MASK]). `text` is the trace's
// sentence. The errors say why the model cannot answer.
Result<ModelAnswer> model_answer(const Model& model, const Trace& trace, std::string_view text, int top_k = 5);

// The same kind of answer from other final hidden states of the same input (heads switched off):
// the positions, example and k are `reference`'s.
Result<ModelAnswer> model_answer_from_final(const Model& model, const Trace& trace, const Mat& final,
                                            const ModelAnswer& reference, int top_k = 5);

// What other final hidden states of the same input (heads switched off) make of reference's own
// choice: its log-probability (the same referent, or the same top token at each position, summed)
// and whether their own choice differs. One pass of the output head per position.
struct AnswerShift {
  float log_prob = 0;
  bool changed = false;
};
Result<AnswerShift> answer_shift(const Model& model, const Mat& final, const ModelAnswer& reference);

// Scores over the vocabulary (V) for one final hidden state through the model's output head.
Result<RowVec> output_logits(const Model& model, const RowVec& hidden);

}  // namespace attnviz
