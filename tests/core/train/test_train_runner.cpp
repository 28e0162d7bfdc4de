// The training runner: reports arrive with copies of the weights and the probe's trace; pause
// really holds the training thread, resume continues from the same step, stop keeps the results,
// reset forgets them, and a failing job reports its error.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "demos/coref_demo.h"
#include "train/runner.h"
#include "support/model_util.h"

using namespace attnviz;

namespace {

// A job that reports `steps` times with a tiny model whose one weight records the step.
TrainJob counting_job(int steps, std::chrono::milliseconds per_step) {
  return [=](const TrainCallback& cb) -> Result<TrainRun> {
    TrainRun run;
    run.model = test::sized_model({.d_model = 8, .n_heads = 2, .d_ff = 8}, 1);
    for (int s = 1; s <= steps; ++s) {
      std::this_thread::sleep_for(per_step);
      run.model.weights.layers[0].ff1_b(0) = static_cast<float>(s);
      TrainProgress p;
      p.step = s;
      p.loss = 1.0f / static_cast<float>(s);
      p.seconds = 0.001 * s;
      if (!cb(p, run.model)) {
        run.stopped = true;
        break;
      }
    }
    return run;
  };
}

// Generous: a sanitizer build on a busy machine trains the demo's 30 steps ten times slower.
template <class Pred>
bool wait_until(const TrainRunner& r, Pred pred) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < give_up) {
    if (pred(r.snapshot())) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace

TEST_CASE("train runner: every report arrives, with the weights of that step") {
  TrainRunner r;
  r.start(counting_job(20, std::chrono::milliseconds(0)));
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return !s.running; }));
  const TrainSnapshot s = r.snapshot();
  CHECK(s.finished);
  CHECK_FALSE(s.stopped);
  REQUIRE(s.reports.size() == 20);
  CHECK(s.reports.back().step == 20);
  CHECK(s.reports[4].loss == doctest::Approx(0.2));
  REQUIRE(s.model);
  CHECK(s.model->weights.layers[0].ff1_b(0) == 20.0f);
}

TEST_CASE("train runner: pause holds the training thread, resume goes on from the same step") {
  TrainRunner r;
  r.start(counting_job(400, std::chrono::milliseconds(1)));
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return s.reports.size() >= 3; }));
  r.pause();
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return s.paused; }));
  const int held = r.snapshot().reports.back().step;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  CHECK(r.snapshot().reports.back().step == held);  // nothing moved while paused
  CHECK(r.snapshot().running);
  r.resume();
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return !s.running; }));
  const TrainSnapshot s = r.snapshot();
  CHECK(s.finished);
  REQUIRE(s.reports.size() == 400);
  for (size_t i = 0; i < s.reports.size(); ++i) CHECK(s.reports[i].step == static_cast<int>(i) + 1);
}

TEST_CASE("train runner: stop keeps the results so far, reset forgets them, a new start replaces the old job") {
  TrainRunner r;
  r.start(counting_job(100000, std::chrono::milliseconds(1)));
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return s.reports.size() >= 2; }));
  r.stop();
  TrainSnapshot s = r.snapshot();
  CHECK_FALSE(s.running);
  CHECK(s.stopped);
  CHECK_FALSE(s.finished);
  CHECK(s.reports.size() >= 2);
  CHECK(s.reports.size() < 100000);
  REQUIRE(s.model);
  CHECK(s.model->weights.layers[0].ff1_b(0) == static_cast<float>(s.reports.back().step));

  const uint64_t before = r.version();
  r.reset();
  s = r.snapshot();
  CHECK(s.reports.empty());
  CHECK(s.model == nullptr);
  CHECK(r.version() > before);

  r.start(counting_job(100000, std::chrono::milliseconds(1)));
  REQUIRE(wait_until(r, [](const TrainSnapshot& x) { return !x.reports.empty(); }));
  r.start(counting_job(5, std::chrono::milliseconds(0)));  // the running job is stopped first
  REQUIRE(wait_until(r, [](const TrainSnapshot& x) { return !x.running; }));
  CHECK(r.snapshot().reports.size() == 5);
  CHECK(r.snapshot().finished);
}

TEST_CASE("train runner: a failing job reports its error") {
  TrainRunner r;
  r.start([](const TrainCallback&) -> Result<TrainRun> { return make_error("no data"); });
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return !s.running; }));
  CHECK(r.snapshot().error == "no data");
  CHECK(r.snapshot().model == nullptr);
}

TEST_CASE("train runner: the coreference demo trains on the runner thread, reporting every few steps") {
  TrainRunner r;
  CorefTrainOptions o;
  o.max_steps = 30;
  o.eval_every = 10;
  o.report_every = 5;
  r.start([o](const TrainCallback& cb) { return coref_train(o, cb); });
  REQUIRE(wait_until(r, [](const TrainSnapshot& s) { return !s.running; }));
  const TrainSnapshot s = r.snapshot();
  REQUIRE_MESSAGE(s.error.empty(), s.error);
  REQUIRE(s.reports.size() == 6);  // steps 5, 10, ..., 30
  CHECK(s.reports[1].evaluated);
  CHECK_FALSE(s.reports[0].evaluated);
  CHECK(s.steps_per_second > 0);
  // The final weights are what the same run makes without a runner.
  auto direct = coref_train(o);
  REQUIRE(direct.ok());
  REQUIRE(s.model);
  CHECK(s.model->weights.layers[1].attn.in_proj_w == direct->model.weights.layers[1].attn.in_proj_w);
}
