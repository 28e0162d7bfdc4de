// importance_grid: the answer is taken once from the full model, then each head alone is switched
// off and the same answer's log-probability read again.
#include "analysis/importance.h"

#include <algorithm>

namespace attnviz {

bool importance_changes_answer(const ImportanceGrid& grid) {
  return std::any_of(grid.flips.begin(), grid.flips.end(), [](const std::vector<bool>& layer) {
    return std::find(layer.begin(), layer.end(), true) != layer.end();
  });
}

// trace_final_ablated fails only on a trace this model did not make (or cross-attention, which
// model_answer has refused by then), and a head outside the model, which the loops never ask for.
AnswerResult<ImportanceGrid> importance_grid(const Model& model, const Trace& base, std::string_view text,
                                             AblationMode mode, const std::atomic<bool>* cancel) {
  const ModelConfig& c = model.config;
  if (base.weights_only) return NoAnswerReason::no_model;
  if (base.cross) return NoAnswerReason::cross_attention;
  // The full model's own trace: the one given when nothing in it is switched off.
  Trace full_owned;
  const Trace* full = &base;
  if (base.ablation.any()) {
    auto f = trace_final_ablated(model, base, Ablation{});
    if (!f) return NoAnswerReason::other_model;
    full_owned.queries = base.queries;
    full_owned.keys = base.keys;
    full_owned.causal = base.causal;
    full_owned.final = std::move(*f);
    full = &full_owned;
  }
  auto answer = model_answer(model, *full, text, 1);
  if (!answer) return answer.why();
  ImportanceGrid g;
  g.answer = std::move(*answer);
  g.mode = mode;
  g.drop.assign(static_cast<size_t>(c.n_layers), std::vector<float>(static_cast<size_t>(c.n_heads), 0.0f));
  g.flips.assign(static_cast<size_t>(c.n_layers), std::vector<bool>(static_cast<size_t>(c.n_heads), false));
  float best = 0;
  for (int l = 0; l < c.n_layers; ++l)
    for (int h = 0; h < c.n_heads; ++h) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return NoAnswerReason::cancelled;
      Ablation one;
      one.mode = mode;
      one.heads = {HeadRef{l, h}};
      auto final = trace_final_ablated(model, base, one);
      if (!final) return NoAnswerReason::other_model;
      auto shift = answer_shift(model, *final, g.answer);
      if (!shift) return shift.why();
      const float drop = g.answer.log_prob - shift->log_prob;
      g.drop[static_cast<size_t>(l)][static_cast<size_t>(h)] = drop;
      g.flips[static_cast<size_t>(l)][static_cast<size_t>(h)] = shift->changed;
      if (g.best_layer < 0 || drop > best) {
        best = drop;
        g.best_layer = l;
        g.best_head = h;
      }
    }
  return g;
}

}  // namespace attnviz
