// The calling thread's scheduling priority, as Linux keeps it: a nice value per thread, which the
// threads it starts inherit. A training job lowers its own so that the UI's frames come first.
#pragma once

namespace attnviz {

// The calling thread's nice value (0 when it cannot be read).
int this_thread_nice();

// Sets the calling thread's nice value (raising it always succeeds; lowering it may need
// privileges). Returns whether the kernel did it.
bool this_thread_set_nice(int nice);

}  // namespace attnviz
