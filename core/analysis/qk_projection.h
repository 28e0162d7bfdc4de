// Why a head attends where it does (AttentionViz's joint embedding, Yeh et al. 2023): the head's
// query and key vectors in one 2-D picture. Two changes that leave every attention weight as it is
// come first: the keys are moved so that their mean is the queries' mean (q·(k + c) adds the same
// q·c to every key of a query's row, which softmax ignores), and queries and keys are scaled by s and
// 1/s so that their mean lengths match (q·k unchanged). Then the joint set is projected on its two
// principal axes. Near points in the picture are not the same as high weights (a dot product, not a
// distance), but the picture shows which keys a query's direction reaches and how the heads cluster.
#pragma once
#include "base/result.h"
#include "base/tensor.h"
#include "model/attention.h"

namespace attnviz {

struct QKProjection {
  Mat queries;            // (Tq, 2) each query's coordinates on the two axes
  Mat keys;               // (Tk, 2) each key's
  float explained[2]{};   // the share of the joint set's variance along each axis
  float key_scale = 1;    // s: the keys were divided by it and the queries multiplied (mean lengths equal)
};

// The head's q and k as its scores read them (rotated, with rotary positions). Errors: a head with no
// q or k (an attention file's trace), or a scoring function whose weights are not a dot product of q
// and k (additive: there is no shared space to draw).
Result<QKProjection> qk_projection(const HeadTrace& head);

}  // namespace attnviz
