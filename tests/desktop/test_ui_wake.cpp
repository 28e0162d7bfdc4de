// Background work wakes the UI loop when its result is ready (the loop sleeps between frames while
// the engine computes): the compute worker and the model loader call the installed wake-up once
// their result can be taken, and nothing after it is uninstalled.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "state/compute_worker.h"
#include "state/model_loader.h"
#include "state/ui_wake.h"
#include "support/model_util.h"

using namespace attnviz;

namespace {

std::atomic<int> wakes{0};
void count_wake() { wakes.fetch_add(1); }

// Waits (up to a minute, for the sanitizer build) until `ready` says so.
template <class Ready>
bool wait_until(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace

TEST_CASE("ui wake: a finished forward pass wakes the loop, and its result is there to take when it does") {
  wakes = 0;
  const UiWakeInstalled installed(count_wake);  // uninstalled even when a REQUIRE fails
  ComputeWorker worker;
  ComputeRequest request;
  request.id = 1;
  request.a.config = test::sized_config({.d_model = 16, .n_heads = 2, .d_ff = 32});
  request.a.input.text = "the cat sat";
  worker.post(request);
  REQUIRE(wait_until([] { return wakes.load() > 0; }));
  const auto result = worker.poll();  // taken right after the wake-up: never later than it
  REQUIRE(result);
  CHECK(result->id == 1);
  CHECK(result->trace);
  CHECK(wakes.load() == 1);
}

TEST_CASE("ui wake: a finished model load wakes the loop, a failed one too; none once uninstalled") {
  wakes = 0;
  {
    const UiWakeInstalled installed(count_wake);
    ModelLoader loader;
    REQUIRE(loader.start("/nonexistent/attnviz/model"));
    REQUIRE(wait_until([] { return wakes.load() > 0; }));
    const auto loaded = loader.take();
    REQUIRE(loaded);
    CHECK_FALSE(loaded->model.ok());  // the error is the result the loop shows
  }
  ui_wake();  // nothing installed: nothing happens
  CHECK(wakes.load() == 1);
}
