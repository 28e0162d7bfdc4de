// Timing for the benchmark binaries: the median of repeated calls.
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace attnviz::bench {

// Median wall time of `run` over `repeat` calls, after one call that warms up.
inline double median_seconds(int repeat, const std::function<void()>& run) {
  using Clock = std::chrono::steady_clock;
  run();
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    run();
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace attnviz::bench
