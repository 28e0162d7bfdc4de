#include "analysis/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/logit_attribution.h"
#include "model/lean_layers.h"

namespace attnviz {

Result<std::vector<LensRow>> logit_lens_at(const Model& model, const Trace& trace, int position, int top_k) {
  if (trace.weights_only) return make_error(no_answer_english(NoAnswer{NoAnswerReason::no_model, {}}));
  if (trace.cross) return make_error("the logit lens reads self-attention, not cross-attention");
  if (static_cast<int>(trace.layers.size()) != model.config.n_layers || trace.embed.cols() != model.config.d_model)
    return make_error(no_answer_english(NoAnswer{NoAnswerReason::other_model, {}}));
  if (position < 0 || position >= trace.n_queries()) return make_error("position " + std::to_string(position) + " is outside the input");
  std::vector<LensRow> rows;
  for (int l = -1; l < model.config.n_layers; ++l) {
    const Mat& x = l < 0 ? trace.embed : trace_layer_output(trace, l);
    const Mat normed = trace_final_of(model, Mat(x.row(position)));
    auto logits = output_logits(model, normed.row(0));
    if (!logits) return make_error(logits.error());
    rows.push_back(LensRow{l, answer_top_tokens(model, *logits, top_k)});
  }
  return rows;
}

Result<HeadWrite> head_write_tokens(const Model& model, const Trace& trace, int layer, int head, int position, int k) {
  if (layer < 0 || layer >= model.config.n_layers || head < 0 || head >= model.config.n_heads)
    return make_error("the model has no layer " + std::to_string(layer) + " head " + std::to_string(head));
  auto parts = residual_parts(model, trace, position);
  if (!parts) return make_error(parts.error());
  auto logits = residual_write_logits(model, parts->heads[static_cast<size_t>(layer)][static_cast<size_t>(head)], parts->residual);
  if (!logits) return make_error(logits.error());
  std::vector<int> order(static_cast<size_t>(logits->size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return (*logits)(a) > (*logits)(b); });
  const size_t n = std::min(order.size(), static_cast<size_t>(std::max(k, 1)));
  HeadWrite w;
  for (size_t i = 0; i < n; ++i) {
    const int up = order[i], down = order[order.size() - 1 - i];
    w.promoted.push_back(TokenPush{up, answer_token_text(model, up), (*logits)(up)});
    w.suppressed.push_back(TokenPush{down, answer_token_text(model, down), (*logits)(down)});
  }
  return w;
}

}  // namespace attnviz
