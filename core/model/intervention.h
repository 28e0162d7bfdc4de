// Interventions on one forward pass, the one list that switching heads off, activation patching
// and its tests share (DESIGN.md, "One forward with interventions"): heads switched off (Ablation),
// a head's output z replaced by another run's at every position (patching by head), and the
// residual stream entering a layer replaced at one position (patching by position). analysis/
// asks for runs with such a list; it never re-implements a layer.
#pragma once
#include <vector>

#include "base/result.h"
#include "base/tensor.h"
#include "model/ablation.h"
#include "model/config.h"

namespace attnviz {

struct HeadPatch {
  HeadRef head;
  Mat z;  // (T, HS) the head's output as another run formed it (weights · V, b_V inside), before W_O
};

struct ResidualPatch {
  int layer = 0;     // the residual stream entering this layer (layer 0: the embeddings)
  int position = 0;  // the token position replaced
  RowVec x;          // (C) what it is replaced by
};

struct Interventions {
  Ablation ablation;                     // heads switched off
  std::vector<HeadPatch> heads;          // heads whose output is replaced
  std::vector<ResidualPatch> residual;   // residual rows replaced
};

// Ok when every head and layer is inside the config, every patch has T rows (HS columns) or a
// position inside T, and no head or residual row is patched twice; the message names the first
// that is not.
Status interventions_validate(const Interventions& iv, const ModelConfig& config, int n_tokens);

// Layer `layer`'s share for attention_forward: its switched-off heads and its patched heads (the
// patches point into `iv`, which must outlive the result).
LayerAblation interventions_for_layer(const Interventions& iv, int layer, int n_heads);

// Replaces the rows of x (T, C), the residual entering `layer`, that `iv` patches there.
void interventions_apply_residual(const Interventions& iv, int layer, Mat& x);

// The first layer whose run the interventions change, given that the base run switched off
// `base_ablation`: n_layers when none does.
int interventions_first_layer(const Interventions& iv, const Ablation& base_ablation, const ModelConfig& config);

}  // namespace attnviz
