// What the model answers for a trace, read from its final hidden states through the model's output
// head: the coreference demo's referent for "it", the next token of a causal model (the induction
// demo, GPT-2) at the last position, or a BERT masked-LM head's tokens for each [MASK]. The answer's
// log-probability is what switching heads off is measured against (analysis/importance.h).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

// at_word: the gather demo's answer, read at one word of the sentence ("its"), over the vocabulary.
enum class AnswerKind { coref, next_token, masked, at_word };
std::string_view name_of(AnswerKind kind);  // "coref", "next_token", "masked", "at_word"

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
  int word = -1;                         // at_word: the token index answered at
  std::vector<PositionAnswer> predictions;  // next_token: the last position; masked: each [MASK];
                                            // at_word: the word the model answers at
  float log_prob = 0;  // of the answer: log p(referent) among the two candidates, or the sum over
                       // positions of log p(top token)
};

// Why there is no answer, as a code with the values its sentence needs: the app says it in its own
// language (app/desktop/state/answer_text.h), the CLI in English (no_answer_english). Every failure of
// the functions below, and of coref_readout.h's, is one of these.
enum class NoAnswerReason {
  no_output_head,   // a random sandbox; a BERT checkpoint without cls.predictions.*
  no_model,         // a trace read from an attention file: weights only, no model ran
  cross_attention,  // answers are read from self-attention
  no_tokens,        // an empty sentence
  no_pronoun,       // a coreference model, and no "it"
  no_its,           // the gather demo, and no "its" to answer at
  no_candidates,    // ...and not two candidate nouns before it
  unknown_word,     // a candidate noun outside the model's vocabulary (NoAnswer::word)
  no_word_readout,  // coreference needs an output layer onto a vocabulary of words (a checkpoint has none)
  no_mask,          // a masked-LM head, and no [MASK] in the sentence
  needs_causal,     // a next-token model traced without the causal mask
  mask_not_trained, // a model traced under a mask it was not trained with (the caller knows how it was
                    // trained: the coreference demo under the causal mask reads the next token, untaught)
  other_sentence,   // the trace is of another sentence (a newer one is being computed)
  other_model,      // the trace, or the hidden states, were not made by this model
  cancelled,        // stopped by its caller (a newer request)
  bad_weights,      // a table kept in its file's encoding decoded to a value that is not finite (NoAnswer::word:
                    // what the decoder said, naming the tensor and the row)
};
inline constexpr NoAnswerReason kNoAnswerReasons[] = {
    NoAnswerReason::no_output_head, NoAnswerReason::no_model,        NoAnswerReason::cross_attention,
    NoAnswerReason::no_tokens,      NoAnswerReason::no_pronoun,      NoAnswerReason::no_its,
    NoAnswerReason::no_candidates,
    NoAnswerReason::unknown_word,   NoAnswerReason::no_word_readout, NoAnswerReason::no_mask,
    NoAnswerReason::needs_causal,   NoAnswerReason::mask_not_trained, NoAnswerReason::other_sentence,
    NoAnswerReason::other_model,    NoAnswerReason::cancelled,        NoAnswerReason::bad_weights};
std::string_view name_of(NoAnswerReason reason);  // "no_output_head", ... (for tests and scripts)

struct NoAnswer {
  NoAnswerReason reason = NoAnswerReason::other_model;
  std::string word;  // unknown_word: the word the vocabulary lacks; bad_weights: the decoder's message; else empty
  bool operator==(const NoAnswer&) const = default;
};

// The reason as one English line, the words the app's English table uses for it (its test says so).
std::string no_answer_english(const NoAnswer& why);

// A Result whose error is a NoAnswer: why() is the code for a UI to say in its language, error()
// the English line (for the CLI, and for callers that only pass an error on).
template <class T>
class AnswerResult : public Result<T> {
 public:
  AnswerResult(T value) : Result<T>(std::move(value)) {}  // NOLINT: implicit on purpose
  AnswerResult(NoAnswer why) : Result<T>(make_error(no_answer_english(why))), why_(std::move(why)) {}  // NOLINT
  AnswerResult(NoAnswerReason reason) : AnswerResult(NoAnswer{reason, {}}) {}  // NOLINT
  const NoAnswer& why() const { return why_; }  // meaningful when !ok()

 private:
  NoAnswer why_;
};

// Picks the kind from the model and the trace: a causal trace with an output head -> next_token;
// a word-level model with its own output layer and a sentence with "it" and two candidates ->
// coref; a BERT masked-LM head -> masked (the sentence must hold [MASK]). `text` is the trace's
// sentence. Its errors say why the model cannot answer.
AnswerResult<ModelAnswer> model_answer(const Model& model, const Trace& trace, std::string_view text, int top_k = 5);

// The same kind of answer from other final hidden states of the same input (heads switched off):
// the positions, example and k are `reference`'s.
AnswerResult<ModelAnswer> model_answer_from_final(const Model& model, const Trace& trace, const Mat& final,
                                                  const ModelAnswer& reference, int top_k = 5);

// What other final hidden states of the same input (heads switched off) make of reference's own
// choice: its log-probability (the same referent, or the same top token at each position, summed)
// and whether their own choice differs. One pass of the output head per position.
struct AnswerShift {
  float log_prob = 0;
  bool changed = false;
};
AnswerResult<AnswerShift> answer_shift(const Model& model, const Mat& final, const ModelAnswer& reference);

// A vocabulary token as a person reads it: a checkpoint's piece decoded with its leading space shown
// as · ("·street"), a byte that is no character by itself as <XX>; a word model's word as is.
std::string answer_token_text(const Model& model, int id);

// The k likeliest tokens of scores over the vocabulary (V), p by softmax over all of them, best first;
// ties keep the lower id first. What an answer lists at a position, and the logit lens at each layer.
std::vector<TokenScore> answer_top_tokens(const Model& model, const RowVec& logits, int k);

// Scores over the vocabulary (V) for one final hidden state through the model's output head, soft-
// capped as the model caps them (config.logit_softcap, Gemma 2).
AnswerResult<RowVec> output_logits(const Model& model, const RowVec& hidden);
// The same before the cap (equal when the model has none): what direct logit attribution adds up.
AnswerResult<RowVec> output_logits_uncapped(const Model& model, const RowVec& hidden);

}  // namespace attnviz
