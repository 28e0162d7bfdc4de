// A result computed off the UI thread for what the app shows now: each frame asks for the result of
// a key (the trace's version, a position, a threshold...); the newest finished run is kept with its
// key, and a run for a newer key starts once the one going has finished (a run is not cancelled: a
// stale one ends and is replaced). Headless; the logit lens and the flow graph use it.
#pragma once
#include <functional>
#include <optional>
#include <utility>

#include "base/no_copy.h"
#include "state/background_job.h"

namespace attnviz {

template <class Key, class Value>
class KeyedJob : NoCopy {
 public:
  // Takes a finished run; starts compute() for `want` when the shown result is not for it and no
  // run is going. compute runs on the job's thread: it must own what it reads (shared_ptrs, copies).
  void refresh(const Key& want, const std::function<Value()>& compute) {
    take();
    if (current(want) || job_.busy()) return;
    running_key_ = want;
    job_.start(compute);
  }
  // The result for `want`, once computed; null while it is being computed (or was never asked for).
  const Value* current(const Key& want) const { return shown_ && shown_->first == want ? &shown_->second : nullptr; }
  Value* current(const Key& want) { return shown_ && shown_->first == want ? &shown_->second : nullptr; }
  // Blocks until the result for `want` is there (exports and scripts, which read it at once).
  const Value& wait(const Key& want, const std::function<Value()>& compute) {
    for (;;) {
      refresh(want, compute);
      if (const Value* v = current(want)) return *v;
      job_.join();
    }
  }
  // Keeps a finished run's result (once a frame, whether or not its panel is drawn: busy() ends).
  void take() {
    if (auto done = job_.poll()) shown_.emplace(running_key_, std::move(*done));
  }
  bool busy() const { return job_.busy(); }
  void join() { job_.join(); }

 private:
  BackgroundJob<Value> job_;
  Key running_key_{};
  std::optional<std::pair<Key, Value>> shown_;
};

}  // namespace attnviz
