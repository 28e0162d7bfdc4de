// The sampler draws one uniform per step from its own stream (base/rng.h), so a seed fixes the
// tokens whatever the thread count.
#include "analysis/generate.h"

#include <cmath>

#include "base/rng.h"
#include "model/trace_reuse.h"

namespace attnviz {

namespace {

// Index into `top` of the token sampled from softmax(log p / τ) over the listed tokens: with p the
// model's own probabilities, p^(1/τ) renormalised is softmax(logits / τ) over that pool.
size_t sample(const std::vector<TokenScore>& top, float temperature, Rng& rng) {
  std::vector<double> w(top.size());
  double total = 0;
  for (size_t i = 0; i < top.size(); ++i) {
    w[i] = std::pow(static_cast<double>(std::max(top[i].p, 1e-30f)), 1.0 / temperature);
    total += w[i];
  }
  double u = rng.uniform() * total;
  for (size_t i = 0; i < w.size(); ++i) {
    if (u < w[i]) return i;
    u -= w[i];
  }
  return w.size() - 1;
}

}  // namespace

Result<Generation> generate(const Model& model, std::string_view prompt, const GenerateOptions& o,
                            const TraceControl& control) {
  if (o.tokens < 1 || o.tokens > kMaxGenerateTokens)
    return make_error("the number of new tokens must be between 1 and " + std::to_string(kMaxGenerateTokens));
  if (!(o.temperature >= 0.0f) || o.temperature > 100.0f) return make_error("the temperature must be between 0 and 100");
  if (o.top_k < 1) return make_error("top-k must be at least 1");
  if (!model.config.causal) return make_error("generation needs a causal model (GPT-2, Llama, Mistral, Qwen2, Pythia)");
  TraceInput in;
  in.text = std::string(prompt);
  in.max_memory = o.max_memory;
  auto trace = trace_run(model, in, control);
  if (!trace) return make_error(trace.error());
  Generation g;
  for (const TraceToken& t : trace->queries) g.prompt_ids.push_back(t.id);
  if (g.prompt_ids.empty() || g.prompt_ids.front() < 0)
    return make_error("generation needs a checkpoint with its own tokenizer (token ids)");
  g.ids = g.prompt_ids;
  Rng rng(o.seed);
  in.text.clear();
  for (int step = 0; step < o.tokens; ++step) {
    auto answer = model_answer(model, *trace, prompt, o.top_k);
    if (!answer) return make_error(answer.error());
    if (answer->kind != AnswerKind::next_token || answer->predictions.empty())
      return make_error("the model does not predict a next token");
    const std::vector<TokenScore>& top = answer->predictions.back().top;
    const size_t pick = o.temperature > 0.0f ? sample(top, o.temperature, rng) : 0;
    g.ids.push_back(top[pick].id);
    in.token_ids = g.ids;
    auto next = trace_run_reusing(model, in, *trace, control);
    if (!next) return make_error(next.error());
    g.reused_rows += next->reused_rows;
    trace = std::move(next);
    g.steps.push_back({trace->n_queries() - 1, top[pick], top});
  }
  g.trace = std::move(*trace);
  return g;
}

}  // namespace attnviz
