// Memory the kernel hands out page by page, made cheaper to take: process-wide allocator settings
// for programs that build large Traces repeatedly (the app, the CLI, benchmarks), and mapping a
// large block's pages all at once. Each forward allocates hundreds of MB in big blocks; by default
// glibc maps them fresh and returns them to the kernel on free, so every forward pays again in page
// faults; and a model's weights are hundreds of MB of fresh memory, 4 KB per fault.
#pragma once
#include <cstddef>

namespace attnviz {

// Keeps freed big blocks in the process for reuse. Call once at the start of main().
void memory_keep_freed_blocks();

// Maps every page of [p, p + bytes) at once, as writable (fresh memory about to be filled) or
// readable (a mapped file about to be read), instead of one page fault per 4 KB page as they are
// first touched. Linux 5.14 and later; elsewhere, or if the kernel refuses, nothing happens and the
// pages fault in as before. Contents are unchanged either way. Returns whether the kernel did it.
bool memory_populate_for_write(void* p, size_t bytes);
bool memory_populate_for_read(const void* p, size_t bytes);

// Asks the kernel to back the whole 2 MB pages inside [p, p + bytes) with huge pages when they are
// first touched (transparent huge pages in `madvise` mode, the usual default): one fault and one
// page-table entry per 2 MB instead of 512. For large fresh blocks about to be filled (a model's
// random weights); call before anything touches them. Linux only; a no-op elsewhere or when the
// kernel refuses. Contents are unchanged either way. Returns whether the kernel took the advice.
bool memory_prefer_huge_pages(void* p, size_t bytes);

}  // namespace attnviz
