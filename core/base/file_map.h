// A private memory mapping of a whole file, unmapped with its last owner (safetensors checkpoints,
// GGUF models). Read-only when the values are only copied out (read sequentially once, and the
// kernel is told so). Copy-on-write for values read in place, so that a write to a weight copies
// its page for this process rather than ending it (the file never changes); the kernel then counts
// the whole file against its memory commitment, and a file larger than it will commit (more than
// memory and swap) is mapped read-only instead, `access` saying so.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "base/result.h"

namespace attnviz {

enum class FileMapAccess { read_only, copy_on_write };

// The mapping (null for an empty file, which mmap refuses: its parser reports it) and its size.
Result<std::shared_ptr<const void>> file_map(const std::string& path, size_t& size, FileMapAccess& access);

}  // namespace attnviz
