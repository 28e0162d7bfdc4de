// Re-running a model on an edited sentence by computing only what the edit can change. In a causal
// model a query sees no later key, so the rows before the first changed token are the same in
// every intermediate: they are copied from the previous trace and only the rows from there on are
// computed. What a keystroke in the sentence box costs with GPT-2 loaded. Nothing here is cached.
#pragma once
#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

// trace_run(model, input, control), reusing the leading rows `previous` already holds. Rows [0, p)
// are copied when, for the largest such p:
//   - previous is a complete self-attention trace of this model (config and source equal), with
//     the same switched-off heads, no mean ablation (it averages over every position), and the
//     same choice of keeping scores (kKeepScoresCells);
//   - rows [0, p) have bit-identical inputs: embedding rows (token and position) and mask cells;
//   - in both traces' masks no query before p sees a key at or after p (causal, and any window,
//     stride or custom cells on top of it; padding too, as long as the prefix ends before it).
// Otherwise (p = 0, cross-attention, a bidirectional model after an edit) it is trace_run.
// The result equals trace_run's to float rounding: GEMMs over fewer rows may round differently.
// Its reused_rows is p.
//
// The caller must pass the model that made `previous`, with the same weights: a trace records the
// model's config and source, not its weights, so a checkpoint retrained in place cannot be told
// apart (the sandbox's seed can: its word vectors change).
Result<Trace> trace_run_reusing(const Model& model, const TraceInput& input, const Trace& previous,
                                const TraceControl& control = {});

}  // namespace attnviz
