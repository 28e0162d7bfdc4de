// Attention masks: which (query, key) cells are visible. Masks combine — a key is visible only if
// every active rule allows it. The result is additive (0 visible, -inf hidden), ready for softmax.
#pragma once
#include <vector>

#include "base/tensor.h"
#include "model/config.h"

namespace attnviz {

// Keys at positions >= real_keys are [PAD] and hidden when spec.pad_to > 0.
bool mask_visible(const MaskSpec& spec, int query, int key, int real_keys);

// (Tq, Tk): 0 where visible, -inf where hidden. Custom cells outside the matrix are ignored, so a
// mask drawn on a longer sentence still applies to a shorter one.
Mat mask_build(const MaskSpec& spec, int n_queries, int n_keys, int real_keys);

// The queries (rows of an additive mask) that see no key at all: their attention rows are all
// zeros. The CLI and the app say so, since such a row is easy to mistake for a dead head.
std::vector<int> mask_fully_hidden_rows(const Mat& mask);

}  // namespace attnviz
