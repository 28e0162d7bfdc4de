// glibc-specific (mallopt); a no-op elsewhere.
#include "base/memory_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
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

}  // namespace attnviz
