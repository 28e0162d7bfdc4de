// The job's callback (on_report) is where the training thread meets the UI: it publishes a copy of
// the weights and the probe's trace, then blocks while paused. Time spent paused is taken out of
// the reported seconds so curves and steps per second show training time only.
#include "core/train_runner.h"

#include <chrono>

namespace attnviz {

namespace {

std::shared_ptr<const Trace> probe_trace(const Model& model, const std::string& text, std::string& error) {
  if (text.empty()) return nullptr;
  TraceInput in;
  in.text = text;
  auto t = trace_run(model, in);
  if (!t) {
    error = t.error();
    return nullptr;
  }
  error.clear();
  return std::make_shared<const Trace>(std::move(*t));
}

}  // namespace

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
    std::shared_ptr<const Trace> probe;
    std::string probe_error;
    if (run) {
      final_model = std::make_shared<const Model>(std::move(run->model));
      std::string text;
      {
        std::lock_guard l(mutex_);
        text = probe_text_;
      }
      probe = probe_trace(*final_model, text, probe_error);
    }
    std::lock_guard l(mutex_);
    state_.running = false;
    state_.paused = false;
    if (!run) {
      state_.error = run.error();
    } else {
      state_.model = std::move(final_model);
      state_.probe = std::move(probe);
      state_.probe_error = std::move(probe_error);
      state_.stopped = run->stopped;
      state_.finished = !run->stopped;
    }
    ++state_.version;
  });
}

bool TrainRunner::on_report(const TrainProgress& progress, const Model& model) {
  auto copy = std::make_shared<const Model>(model);
  std::string text;
  {
    std::lock_guard lock(mutex_);
    text = probe_text_;
  }
  std::string probe_error;
  auto probe = probe_trace(*copy, text, probe_error);
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
  state_.probe = std::move(probe);
  state_.probe_error = std::move(probe_error);
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

void TrainRunner::set_probe(const std::string& text) {
  std::lock_guard lock(mutex_);
  probe_text_ = text;
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
