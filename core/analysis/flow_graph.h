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

struct FlowEdge {
  int layer = 0, head = 0;
  int from = 0, to = 0;  // token positions: before the layer, after it
  float share = 0;       // of everything the layer's attention moves into `to`
};

struct FlowGraph {
  int target = -1;                         // the position the graph ends at (after the last layer)
  float threshold = 0;
  std::vector<FlowEdge> edges;             // layer by layer from the last
  std::vector<std::vector<bool>> reached;  // [L + 1][T]: column l is before layer l, column L after the last
};

// Errors: an attention file's trace, cross-attention, a target outside the input, a threshold outside (0, 1].
Result<FlowGraph> flow_graph(const Model& model, const Trace& trace, int target, float threshold);

}  // namespace attnviz
