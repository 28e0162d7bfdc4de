// Timing for the benchmark binaries: the median of repeated calls, wall and CPU clocks.
#pragma once
#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <vector>

namespace attnviz::bench {

// Wall seconds since t0.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of every thread of the process so far: on a shared machine the wall time says as much
// about the neighbours as about the work.
inline double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The upper of the two middle values of an even count (the middle one of an odd count).
inline double upper_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

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
