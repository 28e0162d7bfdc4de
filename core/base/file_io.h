// Whole-file reads with a size bound, and crash-safe writes (temporary file + rename), so a
// failed save never damages the file that was there before. No parsing happens here.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace attnviz {

// What a path is, without failing: false for anything missing or unreadable.
bool path_is_file(const std::string& path);
bool path_is_folder(const std::string& path);
inline bool path_is_file(const std::filesystem::path& path) { return path_is_file(path.string()); }

// Reads the whole file; a file larger than max_bytes is an error (nothing is allocated for it).
Result<std::vector<uint8_t>> file_read_bytes(const std::string& path, uint64_t max_bytes = uint64_t{1} << 34);

// The first n bytes of a file (fewer when it is shorter; none when it cannot be read): enough to
// tell a format by its magic without reading the file.
std::vector<uint8_t> file_read_prefix(const std::string& path, size_t n);

// Reads the file at `path` (at most max_bytes) and parses its bytes with `parse` (a format's
// from-memory parser); a parse error is prefixed with the quoted path, a read error is the read's
// own message.
template <class Parse>
auto file_parse(const std::string& path, Parse parse, uint64_t max_bytes = uint64_t{1} << 34) {
  using Parsed = decltype(parse(std::span<const uint8_t>()));
  auto bytes = file_read_bytes(path, max_bytes);
  if (!bytes) return Parsed(Error{bytes.error()});
  auto parsed = parse(std::span<const uint8_t>(*bytes));
  if (!parsed) return Parsed(make_error("'" + path + "': " + parsed.error()));
  return parsed;
}

// Writes to "<path>.tmp-<pid>", flushes it to disk, then renames it over path. On any failure
// the temporary file is removed and the original file is left exactly as it was. An existing
// device, FIFO or socket (/dev/full, /dev/stdout) is written in place: renaming over it would
// replace the device itself.
Status file_write_atomic(const std::string& path, std::span<const uint8_t> bytes);
Status file_write_atomic(const std::string& path, std::string_view text);

}  // namespace attnviz
