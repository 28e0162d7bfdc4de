// Generation in the app, one token at a time, for a causal checkpoint with an output head: each
// finished trace's answer (the next-token distribution, computed by the worker) gives the most
// probable token, whose id is appended to the sequence; the worker then recomputes from the ids,
// reusing the prefix's rows. The sentence box shows the prompt plus the new tokens' text. A slider
// over the generated positions picks the query row every view shows. No drawing here.
#pragma once
#include <string>
#include <vector>

namespace attnviz {

struct AppState;

struct GenerationState {
  int count = 8;            // tokens one press of Generate appends
  int remaining = 0;        // still to append (the views keep updating meanwhile)
  int prompt_tokens = -1;   // tokens before the first generated one; -1: nothing generated
  std::vector<int> ids;     // prompt ids, then the generated ones: what the trace is made from
  std::string prompt_text;  // the sentence when generation began
  std::string sentence;     // the sentence as generation left it: any other edit starts over
  bool follow = false;      // while generating: each new token's row becomes the shown query
};

// True for a causal model with an output head and its own tokenizer (a checkpoint).
bool app_can_generate(const AppState& app);
// Appends `tokens` tokens, one per finished trace; false (and nothing starts) when the model cannot.
bool app_generate(AppState& app, int tokens);
// Called by app_update after a result is installed: appends the next token when one is due.
void generation_poll(AppState& app);
// The token ids the next trace is made from while generated tokens are shown; empty otherwise
// (then the sentence is tokenized as usual).
const std::vector<int>& app_generation_ids(AppState& app);
// The number of generated tokens the current trace holds (0 when none).
int app_generated_tokens(const AppState& app);

}  // namespace attnviz
