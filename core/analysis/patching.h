// Activation patching between a clean and a corrupt text of equal length (issue 43 A; the IOI and
// ROME papers' causal tracing): the corrupt run, with one head's output z, or the residual stream
// entering one layer at one position, replaced by the clean run's and everything downstream
// recomputed — how much of the clean answer that one piece brings back.
//
// The metric m is read from logits in float: a language model's logit(answer) − logit(wrong) at
// the last position; the coreference demo's log p(clean referent) − log p(corrupt referent) at
// "it", each referent the model's own answer (a position) on its text (p among the two candidates,
// so the difference of their logits). effect = (m(patched) − m(corrupt)) / (m(clean) − m(corrupt)):
// 1 brings the clean answer's margin back whole, 0 changes nothing.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/answer.h"
#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

enum class PatchBy { head, position };
enum class PatchMetric { logit_diff, log_prob_diff };
std::string_view name_of(PatchBy by);          // "head", "position"
std::string_view name_of(PatchMetric metric);  // "logit_diff", "log_prob_diff"
std::optional<PatchBy> patch_by_from_name(std::string_view s);

// Why a patching run cannot be made, as a code for the app to say in its language.
enum class PatchFailureKind {
  no_answer,          // the model gives no answer on one of the texts (NoAnswer says why)
  unsupported,        // an answer patching does not read: a masked-LM head, the gather demo's four words
  different_lengths,  // the texts' token counts differ
  same_answer,        // m(clean) and m(corrupt) are equal within kPatchSameAnswer: nothing to patch
  bad_token,          // --answer / --wrong outside the vocabulary
  ablated,            // a trace made with heads switched off
  cancelled,
};
struct PatchFailure {
  PatchFailureKind kind = PatchFailureKind::no_answer;
  NoAnswer no_answer;                       // no_answer
  int clean_tokens = 0, corrupt_tokens = 0; // different_lengths
  float metric = 0;                         // same_answer: m of both
  std::string answer;                       // same_answer: the answer both give, when it is one token or referent
  int token = -1;                           // bad_token
};
std::string patch_failure_english(const PatchFailure& f);
inline constexpr float kPatchSameAnswer = 1e-6f;

// A language model's answer and wrong token; unset: the clean run's top token and the corrupt
// run's (ties to the lower id). Ignored for the coreference demo, whose metric is positional.
struct PatchTokens {
  std::optional<int> answer, wrong;
};

struct PatchResult {
  PatchMetric metric = PatchMetric::logit_diff;
  PatchBy by = PatchBy::head;
  float clean = 0, corrupt = 0;          // m(clean), m(corrupt)
  int answer_id = -1, wrong_id = -1;     // logit_diff: the tokens compared
  std::string answer_text, wrong_text;   // as they read ("·street")
  int clean_referent = -1, corrupt_referent = -1;  // log_prob_diff: token positions
  std::string clean_referent_text, corrupt_referent_text;
  std::vector<std::vector<float>> effect;   // by head [L][NH], by position [L][T]
  std::vector<std::vector<float>> patched;  // m(patched), the same shape
  std::vector<std::vector<std::string>> patched_answer;  // what each patched run answers: its top token at the
                                                         // last position, or the referent's word
};

// The value of a PatchFailure-or-result.
template <class T>
class PatchOutcome {
 public:
  PatchOutcome(T value) : value_(std::move(value)) {}                // NOLINT: implicit on purpose
  PatchOutcome(PatchFailure failure) : failure_(std::move(failure)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return &*value_; }
  const PatchFailure& failure() const { return failure_; }
  std::string error() const { return patch_failure_english(failure_); }

 private:
  std::optional<T> value_;
  PatchFailure failure_;
};

// clean and corrupt: traces of the two texts by `model`, nothing switched off (else `ablated`). `clean_text` and `corrupt_text` are their
// sentences (the coreference demo finds "it" and the candidates in them). A set `cancel` stops between runs.
PatchOutcome<PatchResult> patch_run(const Model& model, const Trace& clean, std::string_view clean_text,
                                    const Trace& corrupt, std::string_view corrupt_text, PatchBy by,
                                    const PatchTokens& tokens = {}, const std::atomic<bool>* cancel = nullptr);

// "TOK" as the CLI takes it: the text of exactly one vocabulary token, its leading space included
// (" street"). A checkpoint's tokenizer must spell the text as one token (framing such as BOS not
// counted); a word model's vocabulary must hold the word. The error names the pieces it became.
Result<int> token_id_parse(const Model& model, std::string_view text);

}  // namespace attnviz
