// The next token is the answer the worker already computed for the trace (state/compute_worker),
// so generating costs one reused-prefix trace per token and never blocks a frame. Tokens are kept
// as ids: their text, tokenized again, could split differently (a lone byte of a character).
#include "state/generation.h"

#include <algorithm>

#include "state/answer_text.h"
#include "state/app_state.h"

namespace attnviz {

namespace {

// An edit of the sentence (or another model) ends the generated run: the text is tokenized again.
void forget_if_edited(AppState& app) {
  GenerationState& g = app.generation;
  if (g.prompt_tokens >= 0 && (app.sentence != g.sentence || !app_can_generate(app))) {
    g.prompt_tokens = -1;
    g.ids.clear();
    g.remaining = 0;
  }
}

}  // namespace

bool app_can_generate(const AppState& app) {
  return app.source != ModelSource::sandbox && app.model && app.model->tokenizer && app.model->config.causal &&
         model_output_head(*app.model) != OutputHead::none;
}

bool app_generate(AppState& app, int tokens) {
  if (!app_can_generate(app) || tokens < 1 || !app.trace) return false;
  forget_if_edited(app);
  GenerationState& g = app.generation;
  if (g.prompt_tokens < 0) {
    g.ids.clear();
    for (const TraceToken& t : app.trace->queries) g.ids.push_back(t.id);
    g.prompt_tokens = static_cast<int>(g.ids.size());
    g.prompt_text = app.sentence;
    g.sentence = app.sentence;
  }
  g.remaining = tokens;
  g.follow = true;
  return true;
}

void generation_poll(AppState& app) {
  forget_if_edited(app);
  GenerationState& g = app.generation;
  // The newest edit answered (app_computing also counts the tokens still due, so ask the worker).
  const bool answered = app.shown_id == app.posted_id && !app.worker.busy() && !app.model_loader.busy();
  if (g.follow && answered && !app.dirty && app.trace && app.trace->n_queries() == static_cast<int>(g.ids.size())) {
    app.query = app.trace->n_queries() - 1;  // the newest token's row
    g.follow = g.remaining > 0;
  }
  if (g.remaining <= 0 || app.dirty || !answered || !app.trace) return;
  if (!app.answer || app.answer->kind != AnswerKind::next_token || app.answer->predictions.empty() ||
      app.answer->predictions.back().top.empty()) {
    g.remaining = 0;  // no next-token answer (an error on the way): stop, saying why
    app.status = tr_format(app.lang, Str::gen_stopped,
                           app.answer_error ? no_answer_text(*app.answer_error, app.lang).c_str() : tr(app.lang, Str::gen_no_next_token));
    app.status_is_error = true;
    return;
  }
  g.ids.push_back(app.answer->predictions.back().top.front().id);
  const std::vector<int> generated(g.ids.begin() + g.prompt_tokens, g.ids.end());
  app.sentence = g.prompt_text + app.model->tokenizer->decode(generated);
  g.sentence = app.sentence;
  --g.remaining;
  app.dirty = true;
}

const std::vector<int>& app_generation_ids(AppState& app) {
  forget_if_edited(app);
  return app.generation.ids;
}

int app_generated_tokens(const AppState& app) {
  const GenerationState& g = app.generation;
  if (g.prompt_tokens < 0 || !app.trace) return 0;
  return std::max(0, app.trace->n_queries() - g.prompt_tokens);
}

}  // namespace attnviz
