// The process's memory as Linux reports it, for the benchmarks' JSON lines.
#pragma once
#include <fstream>
#include <string>

namespace attnviz::bench {

// A field of /proc/self/status in MiB: "VmRSS" (resident now), "VmHWM" (the peak so far); -1 if absent.
inline double status_mib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
  return -1;
}

}  // namespace attnviz::bench
