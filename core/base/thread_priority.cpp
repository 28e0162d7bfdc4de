// Linux-specific: getpriority / setpriority with PRIO_PROCESS and a thread id act on that thread alone.
#include "base/thread_priority.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace attnviz {

namespace {
id_t this_thread_id() { return static_cast<id_t>(syscall(SYS_gettid)); }
}  // namespace

int this_thread_nice() {
  errno = 0;  // -1 is a valid nice value: only errno tells a failure
  const int nice = getpriority(PRIO_PROCESS, this_thread_id());
  return errno == 0 ? nice : 0;
}

bool this_thread_set_nice(int nice) { return setpriority(PRIO_PROCESS, this_thread_id(), nice) == 0; }

}  // namespace attnviz
