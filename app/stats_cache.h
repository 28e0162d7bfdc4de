// The Statistics view's rows (one per layer x head), kept between frames because head_stats over
// 144 heads of 128 tokens is too much work to redo every frame. panel_stats fills it; it is rebuilt
// when the trace (trace_version) or the query whose top keys are listed changes. Sorting is not kept.
#pragma once
#include <cstdint>
#include <vector>

#include "core/config.h"
#include "core/stats.h"

namespace attnviz {

struct StatsRow {
  int layer = 0, head = 0;
  ScoreKind score = ScoreKind::scaled_dot;
  HeadStats stats;
  std::vector<KeyWeight> top;  // strongest keys: of the query it was built for, or of the whole head
};

struct StatsCache {
  uint64_t trace_version = 0;  // 0: never built (the first trace is version 1)
  int query = -1;              // the query the top keys belong to, -1: the whole head
  std::vector<StatsRow> rows;  // layer-major
};

}  // namespace attnviz
