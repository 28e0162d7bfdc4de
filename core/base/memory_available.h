// How much memory this process may still take, and so how large one trace may grow: /proc/meminfo's
// MemAvailable, or less when the cgroup the process runs in (a container, a systemd slice) has a
// limit closer to its use. Parsed from the files' texts, so tests hand it made-up ones; reading
// them is memory_texts_read's alone. Also the SIZE of --max-trace-memory ("8G", "512M").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace attnviz {

// The limit a trace has when no one sized it (TraceInput::max_memory == 0): 2 GiB.
inline constexpr int64_t kTraceMemoryDefault = int64_t{1} << 31;

// The files' contents; empty when a file could not be read (not Linux, no cgroup memory controller).
struct MemoryTexts {
  std::string meminfo;         // /proc/meminfo
  std::string cgroup_max;      // the process's cgroup's limit: memory.max (v2: bytes or "max"), or
                               // memory.limit_in_bytes (v1: a huge number when there is none)
  std::string cgroup_current;  // ...and its use: memory.current (v2) or memory.usage_in_bytes (v1)
};
// Reads them. cgroup v2: the cgroup /proc/self/cgroup names ("0::/user.slice/...") under
// /sys/fs/cgroup, or /sys/fs/cgroup itself (inside a container); else v1's /sys/fs/cgroup/memory.
MemoryTexts memory_texts_read();

// MemAvailable in bytes (the file says kB); nullopt when the line is missing or malformed.
std::optional<int64_t> meminfo_available(std::string_view meminfo);
// What a cgroup limit leaves: the limit minus the use, at least 0; nullopt for "max" (no limit) or
// text that is not a number.
std::optional<int64_t> cgroup_available(std::string_view memory_max, std::string_view memory_current);
// The smaller of the two that are known; nullopt when neither is.
std::optional<int64_t> memory_available(const MemoryTexts& texts);

// The default limit on one trace, from the memory available: half of what is left after 1 GiB,
// because the app holds the shown trace while the next one is computed (two at once) and needs
// room for itself (fonts, textures, the maps it derives, a mapped checkpoint's pages, which
// MemAvailable counts as free). At least 256 MiB; kTraceMemoryDefault when nothing is known.
int64_t trace_memory_limit(std::optional<int64_t> available);

// --max-trace-memory's SIZE: a number of bytes, or one followed by K, M, G or T (powers of 1024,
// "KiB".."TiB" and "KB".."TB" read the same), e.g. "8G", "512M", "1.5G". At least 1 MiB, at most
// 1 PiB. The error says what was wrong with the text.
Result<int64_t> memory_size_parse(std::string_view text);
// "8.0 GiB", "512 MiB", "63 KiB" (below a MiB): how the app and the CLI say a size.
std::string memory_size_text(int64_t bytes);

}  // namespace attnviz
