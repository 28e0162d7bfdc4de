// Process-wide allocator settings for programs that build large Traces repeatedly (the app, the
// CLI, benchmarks). Each forward allocates hundreds of MB in big blocks; by default glibc maps
// them fresh and returns them to the kernel on free, so every forward pays again in page faults.
#pragma once

namespace attnviz {

// Keeps freed big blocks in the process for reuse. Call once at the start of main().
void memory_keep_freed_blocks();

}  // namespace attnviz
