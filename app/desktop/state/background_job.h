// One computation on a thread of its own, below the UI's priority (Linux nice 10), whose result the
// UI takes once with poll(). A new start waits for nothing: it is refused while a run is going.
// Headless; the Translation view's plot and retraining use it.
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "base/no_copy.h"
#include "base/thread_priority.h"
#include "state/ui_wake.h"

namespace attnviz {

template <class T>
class BackgroundJob : NoCopy {
 public:
  ~BackgroundJob() { join(); }

  // Runs fn() on the job's thread; false, running nothing, while a run has not been polled yet.
  bool start(std::function<T()> fn) {
    if (running_) return false;
    join();
    {
      std::lock_guard lock(mutex_);
      done_.reset();
    }
    running_ = true;
    thread_ = std::thread([this, fn = std::move(fn)] {
      (void)this_thread_set_nice(10);  // the UI comes first
      T result = fn();
      {
        std::lock_guard lock(mutex_);
        done_ = std::move(result);
      }
      ui_wake();  // drawn in the next frame, not at the idle loop's next tick
    });
    return true;
  }

  // The finished run's result, once.
  std::optional<T> poll() {
    std::lock_guard lock(mutex_);
    if (!done_) return std::nullopt;
    std::optional<T> out = std::move(done_);
    done_.reset();
    running_ = false;
    return out;
  }

  // True from start() until poll() has taken the result: a frame that sees false also sees it.
  bool busy() const { return running_; }

  // Waits for a run to end (its result stays for poll()).
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::mutex mutex_;
  std::optional<T> done_;
};

}  // namespace attnviz
