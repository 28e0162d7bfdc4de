// run_sharded (train/train.h): shard 0 on the calling thread, the others on threads kept between
// calls. A training step calls it three times (the batch, the gradient's sum and norm, AdamW), and
// starting a thread and joining it costs 20-40 µs here: 0.1 ms of a small model's 0.6 ms step.
// The kept threads block on a condition variable between calls (no spinning: an idle OpenMP team
// spinning took CPU from the other shard on a busy machine). One caller at a time uses them; a
// second caller meanwhile (another training job, or fn itself calling run_sharded) starts threads
// of its own, as every call once did. Kept threads run at the priority of the thread that made them
// (Linux threads inherit their creator's nice value), so each priority has threads of its own: a
// demo retraining at nice 10 behind the UI must not run its shards at the UI's priority, nor the
// UI's own calls at 10.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <omp.h>

#include "base/thread_priority.h"
#include "train/subnormals.h"
#include "train/train.h"

namespace attnviz {

namespace {

// fn(shard) with OpenMP, and so Eigen, kept to one thread inside (the shards are the parallelism),
// and subnormals flushed (train/subnormals.h). An exception from fn is returned, not thrown: the caller rethrows it
// once no thread reads fn.
std::exception_ptr run_one_threaded(const std::function<void(int)>& fn, int shard) {
  const int saved = omp_get_max_threads();  // per thread: this changes no other thread's setting
  omp_set_num_threads(1);
  std::exception_ptr failed;
  {
    const SubnormalsFlushed flushed;
    try {
      fn(shard);
    } catch (...) {
      failed = std::current_exception();
    }
  }
  omp_set_num_threads(saved);
  return failed;
}

void run_on_new_threads(int shards, const std::function<void(int)>& fn) {
  std::vector<std::exception_ptr> failed(static_cast<size_t>(shards));
  std::vector<std::thread> others;
  for (int s = 1; s < shards; ++s)
    others.emplace_back([&fn, &failed, s] { failed[static_cast<size_t>(s)] = run_one_threaded(fn, s); });
  failed[0] = run_one_threaded(fn, 0);
  for (std::thread& t : others) t.join();
  for (const std::exception_ptr& e : failed)  // the lowest shard's, as one thread would have met it
    if (e) std::rethrow_exception(e);
}

// kTrainShards - 1 threads that run shards 1, 2, ... of one call at a time.
class KeptThreads {
 public:
  KeptThreads() {
    for (int i = 0; i + 1 < kTrainShards; ++i) threads_.emplace_back([this, i] { serve(i + 1); });
  }
  KeptThreads(const KeptThreads&) = delete;
  KeptThreads& operator=(const KeptThreads&) = delete;
  // Never destroyed (see kept_threads): the threads wait for work until the process ends.

  // Runs fn(0) here and fn(1) ... on the kept threads; false, without running anything, when
  // another caller has them.
  bool try_run(const std::function<void(int)>& fn) {
    // A flag, not a mutex: fn may call run_sharded again on this thread, which must then find the
    // threads busy (a second lock of a mutex by its owner is undefined).
    if (in_use_.exchange(true)) return false;
    struct Release {
      std::atomic<bool>& flag;
      ~Release() { flag = false; }
    } release{in_use_};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      pending_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    work_.notify_all();
    std::exception_ptr failed = run_one_threaded(fn, 0);  // e.g. bad_alloc
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
    const std::exception_ptr kept_failed = std::exchange(failed_, nullptr);
    lock.unlock();
    if (!failed) failed = kept_failed;  // the lowest shard's first
    if (failed) std::rethrow_exception(failed);
    return true;
  }

 private:
  void serve(int shard) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        job = job_;
      }
      std::exception_ptr failed = run_one_threaded(*job, shard);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (failed && !failed_) failed_ = failed;  // one kept thread with kTrainShards = 2: no order to keep
        --pending_;
      }
      done_.notify_one();
    }
  }

  std::atomic<bool> in_use_{false};  // set by the caller whose shards the threads run
  std::mutex mutex_;   // guards the fields below
  std::condition_variable work_, done_;
  const std::function<void(int)>* job_ = nullptr;
  std::exception_ptr failed_;  // a kept thread's exception from the current call
  int pending_ = 0;         // kept threads still on the current call
  uint64_t generation_ = 0;  // one more per call: a thread runs each call once
  std::vector<std::thread> threads_;
};

// The kept threads of the caller's priority, made by the first caller at that priority (and so
// inheriting it). Made on first use and never destroyed: at exit nothing joins threads that may
// still be waiting, and no call can find them half torn down.
KeptThreads& kept_threads() {
  static std::mutex* mutex = new std::mutex();
  static std::map<int, KeptThreads*>* by_nice = new std::map<int, KeptThreads*>();
  const int nice = this_thread_nice();
  std::lock_guard<std::mutex> lock(*mutex);
  KeptThreads*& threads = (*by_nice)[nice];
  if (!threads) threads = new KeptThreads();
  return *threads;
}

}  // namespace

void run_sharded(int shards, const std::function<void(int shard)>& fn) {
  if (shards != kTrainShards || !kept_threads().try_run(fn)) run_on_new_threads(shards, fn);
}

}  // namespace attnviz
