// The Statistics view's scan: one pass over every head's map (formed once each, heads over the
// machine's threads) for head_stats, the keys each head gives the most weight to, and every detector.
#include "views/stats/stats_state.h"

#include <chrono>
#include <memory>

#include "analysis/key_totals.h"
#include "model/head_map.h"
#include "state/app_state.h"

namespace attnviz {

StatsScan stats_scan(const Trace& t, std::atomic<int>* done) {
  const auto start = std::chrono::steady_clock::now();
  StatsScan s;
  std::vector<bool> punct(t.keys.size());
  for (size_t j = 0; j < t.keys.size(); ++j) punct[j] = t.keys[j].kind == TokenKind::punct;
  const int NH = t.config.n_heads;
  s.rows.assign(t.layers.size() * static_cast<size_t>(NH), StatsRow{});
  // Each row is written only by the thread that formed its head's map.
  s.detectors = detector_reports(t, [&](int l, int h, const Mat& map) {
    StatsRow& r = s.rows[static_cast<size_t>(l * NH + h)];
    r.layer = l;
    r.head = h;
    r.score = t.head(l, h).score;
    r.stats = head_stats(map, punct);
    r.top_received = top_keys_received(map, kStatsTopKeys);
    if (done) done->fetch_add(1, std::memory_order_relaxed);
  });
  s.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return s;
}

bool stats_cache_refresh(AppState& app) {
  StatsCache& c = app.stats.cache;
  const Trace& t = app_shown_trace(app);
  const int query = app_shown_query(app);
  if (c.shown_version != app.shown_version || c.rows.empty()) {
    StatsScan scan;
    if (trace_forms_maps(t)) {
      const std::shared_ptr<const Trace> shown = app_words_shown(app) ? app.words.trace : app.trace;
      app.stats.scan_job.refresh(app.shown_version, [shown, done = app.stats.scanned] {
        done->store(0);  // this scan's count
        return stats_scan(*shown, done.get());
      });
      StatsScan* done = app.stats.scan_job.current(app.shown_version);
      if (!done) return false;
      scan = *done;
    } else {
      scan = stats_scan(t);
    }
    c.rows = std::move(scan.rows);
    c.detectors = std::move(scan.detectors);
    c.detectors_ms = scan.ms;
    c.detectors_version = c.shown_version = app.shown_version;
    c.query = -2;  // the top keys below
  }
  if (c.query != query) {
    for (StatsRow& r : c.rows)  // the query's row alone (formed without the map), or the whole head's
      r.top = query >= 0 ? top_keys(head_map_rows(t, r.layer, r.head, query, 1), 0, kStatsTopKeys) : r.top_received;
    c.query = query;
  }
  return true;
}

}  // namespace attnviz
