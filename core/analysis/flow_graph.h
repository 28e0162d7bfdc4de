// The flow of information to one position (the LLM Transparency Tool's contribution graph, with
// Kobayashi et al.'s value-norm as the contribution): nodes are the residual stream at each token
// before each layer and after the last (L + 1 columns × T rows), and an edge from token j before layer l
// to token i after it carries head h's share of what layer l's attention moves into i:
//   α_ij^h ‖v_j W_O^h‖ / Σ_h' Σ_j' α_ij'^h' ‖v_j' W_O^h'‖.
// Built from the target backwards: only edges into a node already reached, with a share of at least
// `threshold`, are kept; a reached token is also reached before the layer (its residual stream).
#pragma once
#include <vector>

#include "base/result.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

// What an edge weighs. value_norm: the share above, everywhere. attribution: the edges into the target
// are each head's direct logit attribution (logit_attribution.h) split over the keys it reads,
// α_tj (v_j W_O^h) · d with d = W_U[answer] − W_U[wrong] through the linearised final norm, as a
// signed share of Σ |·| over the layer's heads and keys (negative: the edge pushes against the
// answer); the earlier hops, which reach the logits only through later layers, keep value_norm shares.
// Attribution needs a pre-norm language model (logit_attribution's conditions).
enum class FlowWeight { value_norm, attribution };
std::string_view name_of(FlowWeight weight);  // "value_norm", "attribution"

struct FlowEdge {
  int layer = 0, head = 0;
  int from = 0, to = 0;  // token positions: before the layer, after it
  float share = 0;       // of everything the layer's attention moves into `to`; signed for attribution edges
  FlowWeight weight = FlowWeight::value_norm;  // how this edge was weighed
};

struct FlowGraph {
  int target = -1;                         // the position the graph ends at (after the last layer)
  float threshold = 0;
  FlowWeight weight = FlowWeight::value_norm;
  int answer_id = -1, wrong_id = -1;       // attribution: the target's top two next tokens
  std::vector<FlowEdge> edges;             // layer by layer from the last
  std::vector<std::vector<bool>> reached;  // [L + 1][T]: column l is before layer l, column L after the last
};

// Errors: an attention file's trace, cross-attention, a target outside the input, a threshold outside
// (0, 1]; for attribution, logit_attribution's.
Result<FlowGraph> flow_graph(const Model& model, const Trace& trace, int target, float threshold,
                             FlowWeight weight = FlowWeight::value_norm);

}  // namespace attnviz
