// The worker keeps the last model it built and rebuilds it only when the config or seed change,
// so typing in the sentence box costs one forward pass, not a re-initialisation of the weights.
#include "app/compute_worker.h"

#include <chrono>

#include <nlohmann/json.hpp>

namespace attnviz {

ComputeWorker::ComputeWorker() : thread_([this] { run(); }) {}

ComputeWorker::~ComputeWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ComputeWorker::post(ComputeRequest request) {
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(request);
  }
  wake_.notify_one();
}

std::optional<ComputeResult> ComputeWorker::poll() {
  std::lock_guard lock(mutex_);
  std::optional<ComputeResult> out = std::move(done_);
  done_.reset();
  return out;
}

bool ComputeWorker::busy() const {
  std::lock_guard lock(mutex_);
  return running_ || pending_.has_value();
}

void ComputeWorker::run() {
  std::optional<Model> model;
  std::string model_key;  // config JSON + seed of `model`
  for (;;) {
    ComputeRequest req;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      req = std::move(*pending_);
      pending_.reset();
      running_ = true;
    }
    const auto start = std::chrono::steady_clock::now();
    ComputeResult result;
    result.id = req.id;
    if (Status s = config_validate(req.config); !s) {
      result.error = s.error();
    } else {
      const std::string key = config_to_json(req.config).dump() + "#" + std::to_string(req.seed);
      if (!model || key != model_key) {
        model = model_init_random(req.config, req.seed);
        model_key = key;
      }
      auto trace = trace_run(*model, req.input);
      if (trace) result.trace = std::make_shared<const Trace>(std::move(*trace));
      else result.error = trace.error();
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard lock(mutex_);
    done_ = std::move(result);
    running_ = false;
  }
}

}  // namespace attnviz
