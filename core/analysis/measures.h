// What a head's map can show besides its softmax weights:
// value_norm (Kobayashi et al. 2020): cell (i, j) = α_ij · ‖(x_j W_V^h + b_V^h) W_O^h‖, W_O^h the
//   columns of the output projection that head h feeds: how far key j really moves query i.
// rollout (Abnar & Zuidema 2020): Ã_l = ½·mean_h(A_l) + ½·I, R_0 = Ã_0, R_l = Ã_l · R_{l−1}: how
//   much each input token reaches each position by layer l, through every path of the residual stream.
// Both are derived from a finished Trace (value norms also read W_O from the model); nothing here
// reruns attention.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/tensor.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

enum class AttentionMeasure { weights, value_norm, rollout };
inline constexpr AttentionMeasure kAllMeasures[] = {AttentionMeasure::weights, AttentionMeasure::value_norm,
                                                    AttentionMeasure::rollout};
std::string_view name_of(AttentionMeasure m);  // "weights", "value-norm", "rollout"
std::optional<AttentionMeasure> measure_from_name(std::string_view s);

// ‖v_j W_O^hᵀ‖ for every key j of one head: (Tk). The trace must have been made by `model`.
Result<Vec> value_norms(const Model& model, const Trace& trace, int layer, int head);
// α ⊙ norms: (Tq, Tk).
Result<Mat> value_norm_map(const Model& model, const Trace& trace, int layer, int head);

// Output = Σ_i head_i W^O_i + b^O, term by term, for one query of one layer: (NH, C), row i the
// concat's block of head i (what W_O read: a switched-off head's replacement) times W_O's columns
// for that block. The rows plus out_b are the layer's attention output at the query (the trace's
// own `out`, to rounding). The trace must have been made by `model`.
Result<Mat> head_output_terms(const Model& model, const Trace& trace, int layer, int query);

// R_0 ... R_{L−1}, each (T, T); an error for cross-attention, where a layer's keys are not its queries,
// and past kRolloutMaxProducts (T³·L multiply-adds: 2^36, a few seconds on two cores; GPT-2 small up
// to 1,789 tokens, a 16-layer model 1,626, a 32-layer one 1,290), naming the length offered.
inline constexpr double kRolloutMaxProducts = 68719476736.0;  // 2^36
Result<std::vector<Mat>> attention_rollout(const Trace& trace);

// The (Tq, Tk) map a view draws for one head under a measure: the weights, the value-norm map, or
// the rollout up to the head's layer (the same for every head of it). `rollout` may hold
// attention_rollout's result to avoid recomputing it.
Result<Mat> measure_map(const Model& model, const Trace& trace, AttentionMeasure measure, int layer, int head,
                        const std::vector<Mat>* rollout = nullptr);

// A map with its first key set aside. In Llama-class models the first token takes most of every row
// (the attention sink), so the rest of a map looks empty: column 0 keeps the weight each query puts on
// the first token, the other columns are the rest of the row renormalised to sum to 1 (a row with
// nothing left, as the first query's, stays 0 there). Rows = queries, columns = keys.
Mat attention_first_key_aside(const Mat& weights);

}  // namespace attnviz
