// The keys a head attends to most over all of its queries (column sums of the weight matrix): the
// Statistics view's "top keys of the whole head". Reads one weight matrix; no Trace, no drawing.
#pragma once
#include <vector>

#include "analysis/stats.h"
#include "base/tensor.h"

namespace attnviz {

// The k keys with the largest weight summed over the queries, divided by the number of queries that
// attend anywhere (so each value is the mean weight a query puts on that key, and the values of all
// keys add up to 1). Strongest first, ties in key order. Keys no query attends to are never listed,
// so fewer than k may come back; a matrix whose every row is hidden gives none.
std::vector<KeyWeight> top_keys_received(const Mat& weights, int k);

}  // namespace attnviz
