// What the Train view owns (panel_train.cpp): the settings of the next run and the runners that
// train off the UI thread. Lives in AppState.
#pragma once
#include <cstdint>

#include "core/train_runner.h"

namespace attnviz {

enum class DemoKind { coreference, induction };

struct TrainViewState {
  DemoKind demo = DemoKind::coreference;
  TrainRunner runner;      // the run whose model the other views follow (ModelSource::trained)
  uint64_t runner_seen = 0;  // the runner's version last installed as the app's model
};

}  // namespace attnviz
