// The trainer's forward pass over several examples at once: their rows stacked into one (ΣT, C)
// matrix, so that each weight product (projections, FFN, output) runs once for all of them while
// positions, masks and attention stay per example. A shard of a batch runs this way (train.cpp);
// the backward pass reads the same segments (attention_backward_segments).
#pragma once
#include <vector>

#include "base/result.h"
#include "model/layer.h"
#include "model/model.h"
#include "train/backward.h"
#include "train/fused_heads.h"
#include "train/train.h"

namespace attnviz {

struct StackedExamples {
  std::vector<RowSegment> segments;  // example e: rows [first, first + rows), queries and keys alike
  std::vector<int> ids;              // every row's token id
  std::vector<Mat> masks;            // example e's (T, T) mask
};

struct StackedForward {
  StackedExamples stacked;
  Mat x0;                          // (ΣT, C) embeddings + positions
  std::vector<LayerTrace> layers;  // attn.heads[e·NH + h]: example e's head h; the last over out_rows only
  // With narrow heads (fused_heads_fit), layer l's heads are in fused[l] instead, and attn.heads is empty.
  std::vector<FusedHeads> fused;
  // The last layer's output rows: out_rows[i] is the stacked row that output row i is, and
  // out_segments[e] example e's output rows (q_first, q_rows) and its stacked rows as keys (k_first,
  // k_rows). With every row, out_rows is 0, 1, ... and out_segments is stacked.segments.
  std::vector<Eigen::Index> out_rows;
  std::vector<RowSegment> out_segments;
  Mat last_kv_in;                  // (ΣT, C) what the last layer's keys and values read, when its
                                   // queries are fewer than the rows; empty otherwise
  Mat last;                        // (out rows, C) last layer's output (the final norm's input)
  Mat final;                       // (out rows, C)
  Mat logits;                      // (out rows, V)
};

// Why the example cannot be trained on by this model (ids, targets, length), or Ok.
Status train_example_check(const Model& model, const TrainExample& example);

// examples[0, count). Errors: what the model cannot train (training covers LayerNorm layers with
// added positions), or train_example_check's for the first example it cannot take (without the
// example's index: batch_loss_grads adds it).
Result<StackedForward> stacked_forward(const Model& model, const TrainExample* examples, size_t count,
                                       OutputRows rows = OutputRows::targets);

}  // namespace attnviz
