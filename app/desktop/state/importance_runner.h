// Runs analysis/importance.h's grid (one forward per head) on a thread of its own, so that "which
// heads matter" on a 144-head checkpoint never blocks a frame. A new start cancels the old run;
// the result carries the trace version it belongs to. Headless.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "analysis/importance.h"
#include "base/no_copy.h"

namespace attnviz {

struct ImportanceResult {
  uint64_t trace_version = 0;
  std::optional<ImportanceGrid> grid;
  std::optional<NoAnswer> error;  // why there is no grid
  double seconds = 0;
};

class ImportanceRunner : NoCopy {
 public:
  ~ImportanceRunner();
  void start(std::shared_ptr<const Model> model, std::shared_ptr<const Trace> trace, std::string text,
             AblationMode mode, uint64_t trace_version);
  std::optional<ImportanceResult> poll();  // the finished result, once
  // True from start() until poll() has taken the result: a frame that sees false also sees the
  // grid (a script's next line never runs between the run's end and the result's arrival).
  bool busy() const;
  void cancel();                           // stops a running grid and waits for it

 private:
  std::thread thread_;
  std::atomic<bool> cancel_{false}, running_{false};
  mutable std::mutex mutex_;
  std::optional<ImportanceResult> done_;
};

}  // namespace attnviz
