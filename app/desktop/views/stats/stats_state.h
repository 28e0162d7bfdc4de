// What the Statistics view remembers between frames: its sort order, and its rows (one per layer x
// head) and head-detector reports, kept because head_stats and the detectors over 144 heads of 128
// tokens are too much work to redo every frame. The view fills the cache; rows are rebuilt when the
// trace shown (AppState::shown_version: a new trace, or words toggled) or the query whose top
// keys are listed changes, the detectors when the trace shown does. Headless: lives in AppState.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/detector_report.h"
#include "analysis/stats.h"
#include "model/config.h"

namespace attnviz {

struct StatsRow {
  int layer = 0, head = 0;
  ScoreKind score = ScoreKind::scaled_dot;
  HeadStats stats;
  std::vector<KeyWeight> top;  // strongest keys: of the query it was built for, or of the whole head
};

struct StatsCache {
  uint64_t shown_version = 0;  // AppState::shown_version the rows belong to; 0: never built
  int query = -1;              // the query the top keys belong to, -1: the whole head
  std::vector<StatsRow> rows;  // layer-major
  uint64_t detectors_version = 0;  // the shown_version `detectors` belong to, 0: never built
  DetectorReports detectors;       // one report per kAllDetectors entry
  double detectors_ms = 0;         // how long building them took (shown in a tooltip)
};

struct StatsState {
  int sort_column = 0;
  bool sort_descending = false;
  StatsCache cache;

  void reset() { *this = StatsState{}; }
};

}  // namespace attnviz
