// Generation one token at a time for a causal model with an output head (GPT-2, Llama, Mistral,
// Qwen2, Pythia, the induction demo): each step reads the next-token distribution at the last
// position, picks a token (greedy, or sampled at a temperature from the k most probable), appends
// its id and runs the trace again reusing the prefix's rows (model/trace_reuse.h), so a step costs
// the new row's work, not the whole sentence's. Nothing here decides how a token is shown.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/answer.h"
#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

struct GenerateOptions {
  int tokens = 20;           // how many new tokens
  float temperature = 0.0f;  // 0: greedy (the most probable token); > 0: sample softmax(logits / τ)
  int top_k = 5;             // tokens listed per step; at τ > 0 also the pool sampled from
  uint64_t seed = 1;         // the sampler's stream: the same seed gives the same tokens
  int64_t max_memory = 0;    // each step's trace's limit (TraceInput::max_memory)
};
inline constexpr int kMaxGenerateTokens = 1024;

struct GeneratedStep {
  int position = -1;              // the new token's row in the final trace
  TokenScore chosen;              // the token appended, with its probability (τ = 1)
  std::vector<TokenScore> top;    // the k most probable at this step, best first
};

struct Generation {
  std::vector<int> prompt_ids;       // the prompt as the tokenizer made it (framing included)
  std::vector<GeneratedStep> steps;  // one per new token
  std::vector<int> ids;              // prompt ids, then every new id
  Trace trace;                       // the trace of the whole sequence
  int reused_rows = 0;               // rows taken from the previous step's trace, summed over steps
};

// Errors: not a causal model with an output head, an empty prompt, options out of range, a
// sequence longer than the model's positions, a cancelled trace (control).
Result<Generation> generate(const Model& model, std::string_view prompt, const GenerateOptions& options,
                            const TraceControl& control = {});

}  // namespace attnviz
