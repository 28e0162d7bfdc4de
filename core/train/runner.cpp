// The job's callback (on_report) is where the training thread meets the UI: it publishes a copy of
// the weights, then blocks while paused. Time spent paused is taken out of
// the reported seconds so curves and steps per second show training time only.
#include "train/runner.h"

#include <chrono>

namespace attnviz {


TrainRunner::~TrainRunner() { stop(); }

void TrainRunner::join() {
  if (thread_.joinable()) thread_.join();
}

void TrainRunner::start(TrainJob job) {
  reset();
  std::lock_guard lock(mutex_);
  state_.running = true;
  ++state_.version;
  thread_ = std::thread([this, job = std::move(job)] {
    auto paused_seconds = std::make_shared<double>(0.0);
    auto run = job([this, paused_seconds](const TrainProgress& p, const Model& m) {
      TrainProgress shown = p;
      shown.seconds -= *paused_seconds;
      const auto wait_start = std::chrono::steady_clock::now();
      const bool go_on = on_report(shown, m);
      *paused_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
      return go_on;
    });
    std::shared_ptr<const Model> final_model;
    if (run) final_model = std::make_shared<const Model>(std::move(run->model));
    std::lock_guard l(mutex_);
    state_.running = false;
    state_.paused = false;
    if (!run) {
      state_.error = run.error();
    } else {
      state_.model = std::move(final_model);
      state_.stopped = run->stopped;
      state_.finished = !run->stopped;
    }
    ++state_.version;
  });
}

bool TrainRunner::on_report(const TrainProgress& progress, const Model& model) {
  auto copy = std::make_shared<const Model>(model);
  std::unique_lock lock(mutex_);
  if (!state_.reports.empty()) {
    const TrainProgress& last = state_.reports.back();
    const double dt = progress.seconds - last.seconds;
    if (dt > 0) state_.steps_per_second = (progress.step - last.step) / dt;
  } else if (progress.seconds > 0) {
    state_.steps_per_second = progress.step / progress.seconds;
  }
  state_.reports.push_back(progress);
  state_.model = std::move(copy);
  ++state_.version;
  while (pause_requested_ && !stop_requested_) {
    if (!state_.paused) {
      state_.paused = true;
      ++state_.version;
    }
    resume_.wait(lock);
  }
  if (state_.paused) {
    state_.paused = false;
    ++state_.version;
  }
  return !stop_requested_;
}

void TrainRunner::pause() {
  std::lock_guard lock(mutex_);
  pause_requested_ = true;
}

void TrainRunner::resume() {
  {
    std::lock_guard lock(mutex_);
    pause_requested_ = false;
  }
  resume_.notify_all();
}

void TrainRunner::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  resume_.notify_all();
  join();
  std::lock_guard lock(mutex_);
  stop_requested_ = false;
  pause_requested_ = false;
}

void TrainRunner::reset() {
  stop();
  std::lock_guard lock(mutex_);
  const uint64_t version = state_.version;
  state_ = TrainSnapshot{};
  state_.version = version + 1;  // observers must see the change
}

TrainSnapshot TrainRunner::snapshot() const {
  std::lock_guard lock(mutex_);
  return state_;
}

uint64_t TrainRunner::version() const {
  std::lock_guard lock(mutex_);
  return state_.version;
}

}  // namespace attnviz
