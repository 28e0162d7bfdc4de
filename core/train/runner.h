// Runs one training job on its own thread so a UI can watch it: pause, resume and stop at the next
// report, and a copy of the weights at every report (a UI traces its sentence on them with its own
// worker, masks and all). What is trained (which demo, which options) is the job's business; this
// only drives it.
#pragma once
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/no_copy.h"
#include "base/result.h"
#include "model/model.h"
#include "train/train.h"

namespace attnviz {

// A job trains and calls the callback it is given every few steps (coref_train, induction_train).
using TrainJob = std::function<Result<TrainRun>(const TrainCallback&)>;

struct TrainSnapshot {
  uint64_t version = 0;                   // bumped at every report; 0: nothing reported yet
  std::vector<TrainProgress> reports;     // every report so far (curves)
  std::shared_ptr<const Model> model;     // the weights at the last report (or the final ones)
  double steps_per_second = 0;            // over the last two reports
  bool running = false, paused = false, finished = false, stopped = false;
  std::string error;                      // the job failed
};

class TrainRunner : NoCopy {
 public:
  ~TrainRunner();

  // Stops any running job (and waits for it), forgets its results, starts this one.
  void start(TrainJob job);
  void pause();
  void resume();
  void stop();   // stops at the next report and waits; the results so far stay
  void reset();  // stop, then forget everything

  TrainSnapshot snapshot() const;  // a copy, under the lock
  uint64_t version() const;        // cheap check for "anything new?"

 private:
  bool on_report(const TrainProgress& progress, const Model& model);
  void join();

  mutable std::mutex mutex_;
  std::condition_variable resume_;
  TrainSnapshot state_;
  bool pause_requested_ = false, stop_requested_ = false;
  std::thread thread_;
};

}  // namespace attnviz
