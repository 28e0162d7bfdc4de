// Direct logit attribution (issue 43 B; the LLM Transparency Tool's and TransformerLens's
// convention): what each component writes into the residual stream at the last position, read
// through the final norm linearised at the full residual and the unembedding's difference
// W_U[answer] − W_U[wrong]. The components sum to the true logit difference.
//
//   residual = embeddings + Σ_l (Σ_h z_lh W_O,hᵀ + b_O,l) + Σ_l (FFN_l − b_2,l)  + Σ_l b_2,l
//   LayerNorm linearised: f(v) = (v − mean(v)) / sqrt(var(residual) + eps) ⊙ g, its bias b's share b·d
//   RMSNorm:              f(v) = v / sqrt(mean(residual²) + eps) ⊙ g
// A head's write is its z (b_V inside) times its slice of W_O; "embeddings" is what enters the
// first layer (token + position embedding); "biases" holds every b_O, every FFN output bias (the
// first linear's bias stays inside the FFN), the final norm's bias share and the output bias's.
#pragma once
#include <vector>

#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

struct LogitAttribution {
  int position = -1;                      // the query row read (the last real token)
  int answer_id = -1, wrong_id = -1;
  std::vector<std::vector<float>> heads;  // [L][NH]
  std::vector<float> mlps;                // [L]; 0 for attention-only layers
  float embeddings = 0, biases = 0;
  float total = 0;                        // the sum of the above, in double
  float logit_diff = 0;                   // logit(answer) − logit(wrong) from the model's own forward,
                                          // before its soft cap (Gemma 2): what the parts add up to
};

// Each component's write in the residual basis, before the final norm: the same decomposition as
// vectors (C), so that a view can dot it with any direction (a head's top promoted tokens).
struct ResidualParts {
  int position = -1;
  std::vector<std::vector<RowVec>> heads;  // [L][NH] (C)
  std::vector<RowVec> mlps;                // [L] (C); zeros for attention-only layers
  RowVec embeddings, biases;               // (C)
  RowVec residual;                         // (C) the last layer's output at `position`: their sum
  std::vector<RowVec> attn_scales;         // [L] (C) what each layer's attention norm multiplies its writes
                                           // by (Gemma's sublayer norms); ones otherwise
};

// The decomposition of trace's residual at `position`. A pre-norm model only (GPT-2, Llama, NeoX's
// parallel residual): with the norm after each sublayer (BERT, the 2017 encoder) the residual is no
// sum of writes, and the error says so. Also refused: cross-attention, an attention file's trace,
// a trace made with heads switched off.
Result<ResidualParts> residual_parts(const Model& model, const Trace& trace, int position);

// The attribution at the last real position of a causal trace (or at `position`, when given: the
// token each position predicts next) for answer and wrong (ids; -1: the top and the second token of
// the model's own prediction there). The model needs an output head onto the vocabulary (tied or linear).
Result<LogitAttribution> logit_attribution(const Model& model, const Trace& trace, int answer_id = -1, int wrong_id = -1,
                                           int position = -1);

// Each head's direct attribution split over the keys it reads: α_pj (v_j W_O^h), b_V inside v, carried
// through the final norm linearised at the residual and dotted with W_U[answer] − W_U[wrong], for the
// position and tokens of `a` (logit_attribution's). [L][NH], each (Tk) and summing to a.heads[l][h].
Result<std::vector<std::vector<RowVec>>> head_source_attribution(const Model& model, const Trace& trace, const LogitAttribution& a);

// A vector written into the residual (C), as the logits it adds through the final norm linearised
// at `residual` and the output head (without the head's bias): what a head's write promotes. (V)
Result<RowVec> residual_write_logits(const Model& model, const RowVec& write, const RowVec& residual);

}  // namespace attnviz
