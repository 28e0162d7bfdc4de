// Runs the engine off the UI thread. The UI posts the newest request; an older request that has
// not started is dropped (the newest edit wins), and results arrive tagged with their request id.
// A request may carry a second job (B, for the Compare view), computed right after A.
// Owns no UI state and draws nothing.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "analysis/answer.h"
#include "base/no_copy.h"
#include "model/model.h"
#include "model/trace.h"

namespace attnviz {

struct ComputeJob {
  ModelConfig config;  // with seed and generator: the sandbox's random model, unless `model` is set
  uint64_t seed = 1;
  RngGenerator generator = kRngNewest;
  std::shared_ptr<const Model> model;  // a fixed model (demo, file, trained): config and seed unused
  TraceInput input;
};

struct ComputeRequest {
  uint64_t id = 0;
  ComputeJob a;
  std::optional<ComputeJob> b;
};

struct ComputeResult {
  uint64_t id = 0;
  std::shared_ptr<const Trace> trace, trace_b;  // null on error (or no B asked for)
  std::shared_ptr<const Model> model;           // the model that made `trace` (measures read its W_O)
  // A's answer (analysis/answer.h) and, with heads switched off, the full model's answer beside
  // it; answer_error says why there is none (a sandbox has no output head, ...).
  std::optional<ModelAnswer> answer, answer_full;
  std::optional<NoAnswer> answer_error;
  std::optional<ModelAnswer> answer_b;  // B's answer (Compare: the 1-head model's), when it has one
  std::string error, error_b;
  double seconds = 0;  // A and B together
  std::chrono::steady_clock::time_point finished;  // when the worker handed it over
};

class ComputeWorker : NoCopy {
 public:
  ComputeWorker();
  ~ComputeWorker();

  // Replaces any request not yet started and stops a running one at its next layer boundary:
  // the newest edit wins, and a stale forward pass on a long text does not delay it.
  void post(ComputeRequest request);
  std::optional<ComputeResult> poll();  // the newest finished result, once (cancelled ones never arrive)
  bool busy() const;                    // a request is queued or running
  float progress() const;               // of the running request: finished layers / all layers, 0..1

 private:
  void run();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<ComputeRequest> pending_;
  std::optional<ComputeResult> done_;
  bool running_ = false;
  bool stop_ = false;
  std::atomic<bool> cancel_{false};
  std::atomic<int> layers_done_{0};
  std::atomic<int> layers_total_{1};
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace attnviz
