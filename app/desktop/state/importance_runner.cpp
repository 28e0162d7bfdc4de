// One thread per grid: grids are rare (a click), and a cancelled one stops between heads.
#include "state/importance_runner.h"

#include <chrono>

#include "state/ui_wake.h"

namespace attnviz {

ImportanceRunner::~ImportanceRunner() { cancel(); }

void ImportanceRunner::cancel() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
  cancel_ = false;
  running_ = false;
}

void ImportanceRunner::start(std::shared_ptr<const Model> model, std::shared_ptr<const Trace> trace, std::string text,
                             AblationMode mode, uint64_t trace_version) {
  cancel();
  {
    std::lock_guard lock(mutex_);
    done_.reset();
  }
  running_ = true;
  thread_ = std::thread([this, model = std::move(model), trace = std::move(trace), text = std::move(text), mode,
                         trace_version] {
    const auto t0 = std::chrono::steady_clock::now();
    ImportanceResult r;
    r.trace_version = trace_version;
    auto grid = importance_grid(*model, *trace, text, mode, &cancel_);
    if (grid) r.grid = std::move(*grid);
    else r.error = grid.why();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!cancel_) {
      std::lock_guard lock(mutex_);
      done_ = std::move(r);
    }
    running_ = false;
    ui_wake();
  });
}

bool ImportanceRunner::busy() const {
  std::lock_guard lock(mutex_);
  return running_.load() || done_.has_value();
}

std::optional<ImportanceResult> ImportanceRunner::poll() {
  std::lock_guard lock(mutex_);
  std::optional<ImportanceResult> out = std::move(done_);
  done_.reset();
  return out;
}

}  // namespace attnviz
