#include "state/ui_wake.h"

#include <mutex>

namespace attnviz {

namespace {
std::mutex wake_mutex;
void (*wake_function)() = nullptr;
}  // namespace

void ui_wake_install(void (*wake)()) {
  std::lock_guard lock(wake_mutex);
  wake_function = wake;
}

void ui_wake() {
  std::lock_guard lock(wake_mutex);  // held during the call: uninstalling waits for it to end
  if (wake_function) wake_function();
}

}  // namespace attnviz
