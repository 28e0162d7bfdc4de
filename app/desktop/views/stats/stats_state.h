// What the Statistics view remembers between frames: its sort order, and its rows (one per layer x
// head) and head-detector reports, kept because head_stats and the detectors over 144 heads of 128
// tokens are too much work to redo every frame. The view fills the cache; rows are rebuilt when the
// trace shown (AppState::shown_version: a new trace, or words toggled) or the query whose top
// keys are listed changes, the detectors when the trace shown does. Headless: lives in AppState.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/detector_report.h"
#include "analysis/stats.h"
#include "model/config.h"
#include "state/keyed_job.h"

namespace attnviz {

struct StatsRow {
  int layer = 0, head = 0;
  ScoreKind score = ScoreKind::scaled_dot;
  HeadStats stats;
  std::vector<KeyWeight> top;  // strongest keys: of the query it was built for, or of the whole head
  std::vector<KeyWeight> top_received;  // of the whole head (what every query gives each key)
};

struct StatsCache {
  uint64_t shown_version = 0;  // AppState::shown_version the rows belong to; 0: never built
  int query = -1;              // the query the top keys belong to, -1: the whole head
  std::vector<StatsRow> rows;  // layer-major
  uint64_t detectors_version = 0;  // the shown_version `detectors` belong to, 0: never built
  DetectorReports detectors;       // one report per kAllDetectors entry
  double detectors_ms = 0;         // how long building them took (shown in a tooltip)
};

// Every head's statistics, strongest keys overall and detector scores, each head's map formed once.
struct StatsScan {
  std::vector<StatsRow> rows;  // layer-major; `top` left empty (it depends on the query)
  DetectorReports detectors;
  double ms = 0;  // how long the scan took
};
inline constexpr int kStatsTopKeys = 5;  // kept per row; the cell shows as many as fit
// `done`, when given, counts the heads scanned (the view shows it while the scan runs).
StatsScan stats_scan(const Trace& trace, std::atomic<int>* done = nullptr);

struct StatsState {
  int sort_column = 0;
  bool sort_descending = false;
  StatsCache cache;
  // A trace that forms its maps on demand (a long input) is scanned here, off the UI thread: forming
  // every head's map takes tens of seconds. Keyed by AppState::shown_version.
  KeyedJob<uint64_t, StatsScan> scan_job;
  std::shared_ptr<std::atomic<int>> scanned = std::make_shared<std::atomic<int>>(0);  // heads the running scan did

  void reset() {
    sort_column = 0;
    sort_descending = false;
    cache = StatsCache{};
  }
};

struct AppState;
// Fills app.stats.cache for the trace shown (rows, detectors, and the top keys of the query shown):
// at once when the trace keeps its maps, else from scan_job. False while that scan runs (the view
// says so; a script waits for it: app_busy).
bool stats_cache_refresh(AppState& app);

}  // namespace attnviz
