// The worker keeps the last model built for each of A and B and rebuilds one only when its config
// or seed change, so typing in the sentence box costs a forward pass, not a weight initialisation;
// and each slot's last trace, so that with a causal model (GPT-2) a keystroke computes only the
// rows from the edited token on (trace_run_reusing).
#include "state/compute_worker.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "model/trace_reuse.h"
#include "state/ui_wake.h"

namespace attnviz {

namespace {

struct CachedModel {
  std::shared_ptr<const Model> model;
  std::string key;  // config JSON + seed of `model`
};

// A slot's last trace and the model that made it. Holding the model keeps its address from being
// reused by another one, so the same pointer means the same weights, which a trace cannot tell.
struct LastTrace {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Trace> trace;
};

// trace_run, or trace_run_reusing from the slot's last trace when the same model made it.
Result<Trace> run_trace(const std::shared_ptr<const Model>& model, const TraceInput& input, LastTrace& last,
                        const TraceControl& control) {
  if (last.model != model) last = {};  // another model: let the old one go before the forward
  return last.trace ? trace_run_reusing(*model, input, *last.trace, control) : trace_run(*model, input, control);
}

// Layers a job runs: its stack, twice in cross-attention (the source is encoded first).
int job_layers(const ComputeJob& job) {
  return (job.model ? job.model->config.n_layers : job.config.n_layers) * (job.input.source_text.empty() ? 1 : 2);
}

// Runs one job, reusing the cached model when config and seed match and what it can of the slot's
// last trace; returns the model it ran.
std::shared_ptr<const Model> run_job(const ComputeJob& job, CachedModel& cache, LastTrace& last,
                                     const TraceControl& control, std::shared_ptr<const Trace>& trace,
                                     std::string& error) {
  std::shared_ptr<const Model> model = job.model;
  if (!model) {
    if (Status s = config_validate(job.config); !s) {
      error = s.error();
      return nullptr;
    }
    const std::string key = config_to_json(job.config).dump() + "#" + std::to_string(job.seed) + "#" +
                            std::string(rng_generator_name(job.generator));
    if (!cache.model || key != cache.key) {
      // Tensors the last model already has (same name, shape, seed and generator) are copied, not drawn.
      cache.model = std::make_shared<const Model>(
          cache.model ? model_init_random_from(job.config, job.seed, *cache.model, job.generator)
                      : model_init_random(job.config, job.seed, job.generator));
      cache.key = key;
    }
    model = cache.model;
  }
  auto t = run_trace(model, job.input, last, control);
  if (t) {
    trace = std::make_shared<const Trace>(std::move(*t));
    last = {model, trace};
  } else {
    error = t.error();  // the last trace stays: the next edit may still reuse it
  }
  return model;
}

// The answer of A, and the full model's beside it when heads are off (its layers from the first
// switched-off head rerun; the earlier ones are the trace's).
void read_answers(const Model& model, const Trace& trace, const std::string& text, ComputeResult& result) {
  auto answer = model_answer(model, trace, text);
  if (!answer) {
    result.answer_error = answer.why();
    return;
  }
  if (trace.ablation.any()) {
    auto final = trace_final_ablated(model, trace, Ablation{});
    if (final) {
      if (auto full = model_answer_from_final(model, trace, *final, *answer)) result.answer_full = std::move(*full);
    }
  }
  result.answer = std::move(*answer);
}

}  // namespace

ComputeWorker::ComputeWorker() : thread_([this] { run(); }) {}

ComputeWorker::~ComputeWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    cancel_ = true;  // quitting should not wait for a long forward pass
  }
  wake_.notify_one();
  thread_.join();
}

void ComputeWorker::post(ComputeRequest request) {
  {
    std::lock_guard lock(mutex_);
    pending_ = std::move(request);
    if (running_) cancel_ = true;
  }
  wake_.notify_one();
}

std::optional<ComputeResult> ComputeWorker::poll() {
  std::lock_guard lock(mutex_);
  std::optional<ComputeResult> out = std::move(done_);
  done_.reset();
  return out;
}

float ComputeWorker::progress() const {
  const float total = static_cast<float>(std::max(1, layers_total_.load()));
  return std::min(1.0f, static_cast<float>(layers_done_.load()) / total);
}

bool ComputeWorker::busy() const {
  std::lock_guard lock(mutex_);
  return running_ || pending_.has_value();
}

void ComputeWorker::run() {
  CachedModel cache_a, cache_b;
  LastTrace last_a, last_b;
  for (;;) {
    ComputeRequest req;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      req = std::move(*pending_);
      pending_.reset();
      running_ = true;
      cancel_ = false;
      layers_done_ = 0;
      layers_total_ = job_layers(req.a) + (req.b ? job_layers(*req.b) : 0);
    }
    const auto start = std::chrono::steady_clock::now();
    ComputeResult result;
    result.id = req.id;
    const TraceControl control{&cancel_, &layers_done_};
    result.model = run_job(req.a, cache_a, last_a, control, result.trace, result.error);
    if (result.trace && !cancel_) read_answers(*result.model, *result.trace, req.a.input.text, result);
    if (!req.b) last_b = {};  // no B shown: do not hold its model and trace
    if (req.b && !cancel_) {
      auto model_b = run_job(*req.b, cache_b, last_b, control, result.trace_b, result.error_b);
      if (result.trace_b && !cancel_)
        if (auto a = model_answer(*model_b, *result.trace_b, req.b->input.text)) result.answer_b = std::move(*a);
    }
    result.finished = std::chrono::steady_clock::now();
    result.seconds = std::chrono::duration<double>(result.finished - start).count();
    {
      std::lock_guard lock(mutex_);
      if (!cancel_) done_ = std::move(result);  // a newer request is pending: this result is stale
      running_ = false;
    }
    ui_wake();
  }
}

}  // namespace attnviz
