// Runs the engine off the UI thread. The UI posts the newest request; an older request that has
// not started is dropped (the newest edit wins), and results arrive tagged with their request id.
// Owns no UI state and draws nothing.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/model.h"
#include "core/trace.h"

namespace attnviz {

struct ComputeRequest {
  uint64_t id = 0;
  ModelConfig config;
  uint64_t seed = 1;
  TraceInput input;
};

struct ComputeResult {
  uint64_t id = 0;
  std::shared_ptr<const Trace> trace;  // null on error
  std::string error;
  double seconds = 0;
};

class ComputeWorker {
 public:
  ComputeWorker();
  ~ComputeWorker();
  ComputeWorker(const ComputeWorker&) = delete;
  ComputeWorker& operator=(const ComputeWorker&) = delete;

  void post(ComputeRequest request);           // replaces any request not yet started
  std::optional<ComputeResult> poll();          // the newest finished result, once
  bool busy() const;                            // a request is queued or running

 private:
  void run();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<ComputeRequest> pending_;
  std::optional<ComputeResult> done_;
  bool running_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace attnviz
