// Reads /proc/meminfo and the cgroup's memory files, parses them, and sizes the trace limit and
// --max-trace-memory's SIZE. The files are read with plain streams: /proc and /sys files report a
// size of 0, so a reader that sizes its buffer from the file's length (file_read_bytes) reads nothing.
#include "base/memory_available.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "base/parse_number.h"

namespace attnviz {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i] >= 'a' && a[i] <= 'z' ? static_cast<char>(a[i] - 32) : a[i];
    const char y = b[i] >= 'a' && b[i] <= 'z' ? static_cast<char>(b[i] - 32) : b[i];
    if (x != y) return false;
  }
  return true;
}

constexpr int64_t kMiB = int64_t{1} << 20, kGiB = int64_t{1} << 30;

}  // namespace

MemoryTexts memory_texts_read() {
  MemoryTexts t;
  t.meminfo = read_text("/proc/meminfo");
  // cgroup v2 names the process's cgroup on a line "0::/path" (the last line of /proc/self/cgroup).
  std::string dir = "/sys/fs/cgroup";
  const std::string self = read_text("/proc/self/cgroup");
  if (const size_t at = self.rfind("0::"); at != std::string::npos && (at == 0 || self[at - 1] == '\n')) {
    const std::string path(trimmed(std::string_view(self).substr(at + 3)));
    if (path != "/" && !read_text(dir + path + "/memory.max").empty()) dir += path;
  }
  t.cgroup_max = read_text(dir + "/memory.max");
  t.cgroup_current = read_text(dir + "/memory.current");
  if (t.cgroup_max.empty()) {  // cgroup v1: the memory controller's own tree, seen from inside it
    t.cgroup_max = read_text("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    t.cgroup_current = read_text("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  return t;
}

std::optional<int64_t> meminfo_available(std::string_view meminfo) {
  constexpr std::string_view key = "MemAvailable:";
  size_t at = 0;
  while (at < meminfo.size()) {
    const size_t end = std::min(meminfo.find('\n', at), meminfo.size());
    const std::string_view line = meminfo.substr(at, end - at);
    at = end + 1;
    if (line.rfind(key, 0) != 0) continue;
    std::string_view rest = trimmed(line.substr(key.size()));
    if (rest.size() < 3 || rest.substr(rest.size() - 3) != " kB") return std::nullopt;
    int64_t kb = 0;
    if (!parse_number(trimmed(rest.substr(0, rest.size() - 3)), kb) || kb < 0) return std::nullopt;
    return kb * 1024;
  }
  return std::nullopt;
}

std::optional<int64_t> cgroup_available(std::string_view memory_max, std::string_view memory_current) {
  int64_t max = 0, current = 0;
  if (!parse_number(trimmed(memory_max), max) || !parse_number(trimmed(memory_current), current)) return std::nullopt;
  return std::max<int64_t>(0, max - current);
}

std::optional<int64_t> memory_available(const MemoryTexts& texts) {
  const auto system = meminfo_available(texts.meminfo);
  const auto cgroup = cgroup_available(texts.cgroup_max, texts.cgroup_current);
  if (system && cgroup) return std::min(*system, *cgroup);
  return system ? system : cgroup;
}

int64_t trace_memory_limit(std::optional<int64_t> available) {
  if (!available) return kTraceMemoryDefault;
  return std::max(256 * kMiB, (*available - kGiB) / 2);
}

Result<int64_t> memory_size_parse(std::string_view text) {
  const std::string_view s = trimmed(text);
  size_t digits = 0;
  while (digits < s.size() && ((s[digits] >= '0' && s[digits] <= '9') || s[digits] == '.')) ++digits;
  const std::string_view number = s.substr(0, digits), unit = s.substr(digits);
  double value = 0;
  if (!parse_number(number, value))
    return make_error("'" + std::string(text) + "' is not a size: write bytes, or a number with K, M, G or T (8G, 512M)");
  double scale = 0;
  const std::pair<const char*, double> units[] = {{"", 1.0}, {"B", 1.0}, {"K", 0x1p10}, {"M", 0x1p20}, {"G", 0x1p30}, {"T", 0x1p40}};
  for (const auto& [name, bytes] : units) {
    const std::string n = name;
    if (ascii_iequals(unit, n) || (!n.empty() && n != "B" && (ascii_iequals(unit, n + "B") || ascii_iequals(unit, n + "iB"))))
      scale = bytes;
  }
  if (scale == 0)
    return make_error("'" + std::string(text) + "': unknown unit '" + std::string(unit) + "' (K, M, G or T: 8G, 512M)");
  const double bytes = value * scale;
  if (!(bytes >= 0x1p20 && bytes <= 0x1p50))
    return make_error("'" + std::string(text) + "' is outside 1M to 1024T");
  return static_cast<int64_t>(std::llround(bytes));
}

std::string memory_size_text(int64_t bytes) {
  char buf[32];
  if (bytes >= kGiB) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(kGiB));
  else if (bytes >= kMiB) std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / static_cast<double>(kMiB));
  else std::snprintf(buf, sizeof buf, "%.0f KiB", static_cast<double>(bytes) / 1024.0);
  return buf;
}

}  // namespace attnviz
