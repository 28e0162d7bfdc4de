// Drives an AppState without a window in the desktop tests: app_update as the frame loop would
// call it, until the newest edit (and trace B, when a view needs it) is answered.
#pragma once
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "state/app_state.h"

namespace attnviz {

// Runs app_update until the newest edit is answered (or 60 s pass).
inline void settle(AppState& app) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {
    app_update(app);
    if (!app.dirty && !app_computing(app)) {
      app_update(app);  // B is asked for once A is in; one more round installs it
      if (!app.dirty && !app_computing(app)) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  } while (std::chrono::steady_clock::now() < deadline);
  FAIL("the worker did not answer within 60 s");
}

}  // namespace attnviz
