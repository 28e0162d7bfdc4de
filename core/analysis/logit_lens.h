// The logit lens (nostalgebraist 2020; the LLM Transparency Tool): the residual stream at one
// position read through the model's final norm and output head after every layer, as if the model
// stopped there — where its answer forms. And what one head writes there: the tokens its write
// promotes and suppresses through the final norm linearised at the residual (logit_attribution.h).
#pragma once
#include <vector>

#include "analysis/answer.h"
#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

struct LensRow {
  int after_layer = -1;         // -1: the embeddings (what enters layer 0); l: after layer l
  std::vector<TokenScore> top;  // the k likeliest tokens, p over the whole vocabulary
};

// One row for the embeddings and one after each layer, at `position` (a query row of a
// self-attention trace). The last row is the model's own prediction there. Errors: no output head,
// an attention file's trace, cross-attention, a position outside the input.
Result<std::vector<LensRow>> logit_lens_at(const Model& model, const Trace& trace, int position, int top_k = 5);

struct TokenPush {
  int id = -1;
  std::string text;  // as answer_token_text shows it
  float logit = 0;   // what the write adds to this token's logit
};
struct HeadWrite {
  std::vector<TokenPush> promoted;    // the k largest additions, largest first
  std::vector<TokenPush> suppressed;  // the k most negative, most negative first
};

// Head (layer, head)'s write at `position` (its z times its slice of W_O) as logits: a pre-norm
// language model's (residual_parts' conditions).
Result<HeadWrite> head_write_tokens(const Model& model, const Trace& trace, int layer, int head, int position, int k = 5);

}  // namespace attnviz
