// Which heads matter: for every head, the drop in the log-probability of the model's own answer
// (analysis/answer.h) when that head alone is switched off. One forward per head, each starting at
// the head's layer (the layers before it cannot change).
#pragma once
#include <atomic>
#include <vector>

#include "analysis/answer.h"
#include "base/result.h"
#include "model/ablation.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

struct ImportanceGrid {
  ModelAnswer answer;                     // what the full model answers (nothing switched off)
  AblationMode mode = AblationMode::zero;
  std::vector<std::vector<float>> drop;   // [L][NH]: log p(answer) - log p(answer | head off); > 0 hurts
  std::vector<std::vector<bool>> flips;   // [L][NH]: with that head off the answer changes
  int best_layer = -1, best_head = -1;    // the largest drop
};

// `base` is a trace of `text` with no head switched off (its own ablation is ignored: the grid is
// measured against the full model). A set `cancel` stops between heads (NoAnswerReason::cancelled);
// the other errors are model_answer's.
AnswerResult<ImportanceGrid> importance_grid(const Model& model, const Trace& base, std::string_view text,
                                             AblationMode mode = AblationMode::zero,
                                             const std::atomic<bool>* cancel = nullptr);

// Whether switching some single head off changes the answer (a flip anywhere in the grid). When
// none does, the model resolves its answer redundantly: no one head decides it.
bool importance_changes_answer(const ImportanceGrid& grid);

}  // namespace attnviz
