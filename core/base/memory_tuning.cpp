// glibc-specific (mallopt) and Linux-specific (madvise's populate advice); no-ops elsewhere.
#include "base/memory_tuning.h"

#include <atomic>
#include <cerrno>
#include <cstdint>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace attnviz {

void memory_keep_freed_blocks() {
#if defined(__GLIBC__)
  // Serve matrices up to 32 MB (glibc's ceiling for this setting on 64-bit) from the heap rather
  // than fresh mappings; a (512, 3072) float activation is 6 MB.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // and do not hand freed heap back to the kernel at once
#endif
}

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)

namespace {

// The advice over the whole pages [p, p + bytes) lies on. Pages shared with neighbouring data are
// included: populating never changes contents, only whether a page is mapped yet.
bool populate(const void* p, size_t bytes, int advice) {
  // EINVAL: a kernel before 5.14 does not know the advice (or a range could not take it). Then stop
  // asking: the pages fault in as they are touched, as without this.
  static std::atomic<bool> unsupported{false};
  if (unsupported.load(std::memory_order_relaxed)) return false;
  if (bytes == 0) return true;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes + page - 1) / page * page;
  if (::madvise(reinterpret_cast<void*>(begin), end - begin, advice) == 0) return true;
  if (errno == EINVAL) unsupported.store(true, std::memory_order_relaxed);
  return false;
}

}  // namespace

bool memory_populate_for_write(void* p, size_t bytes) { return populate(p, bytes, MADV_POPULATE_WRITE); }
bool memory_populate_for_read(const void* p, size_t bytes) { return populate(p, bytes, MADV_POPULATE_READ); }

#else  // no populate advice here: pages fault in as they are touched

bool memory_populate_for_write(void*, size_t) { return false; }
bool memory_populate_for_read(const void*, size_t) { return false; }

#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE)

bool memory_prefer_huge_pages(void* p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;  // x86-64's huge page; the advice covers whole ones only
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) / kHuge * kHuge;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) / kHuge * kHuge;
  if (end <= begin) return false;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
}

#else

bool memory_prefer_huge_pages(void*, size_t) { return false; }

#endif

}  // namespace attnviz
