// Patching A into B in the app (state/patching_state.h), headless: nothing to patch without sentence
// B; with the minimal pair the run off the UI thread gives core's grid; a new sentence B is measured
// again (the older run never shown for it); a pair of unequal length is refused in both languages.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "analysis/patching.h"
#include "state/model_source.h"
#include "support/app_settle.h"
#include "support/check_util.h"
#include "support/coref_sentences.h"

namespace attnviz {
namespace {

using test::has;

const PatchingRun* patched(AppState& app) {
  settle(app);
  for (int i = 0; i < 3000; ++i) {
    patching_update(app);
    if (const PatchingRun* run = patching_current(app)) return run;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return nullptr;
}

TEST_CASE("patching in the app: the minimal pair by head and by position, core's numbers, refusals") {
  AppState app;
  REQUIRE(app_use_source(app, ModelSource::demo_coref).ok());
  app.view = View::heads;  // trace B only where a view needs it
  app.sentence = test::kTired;
  app.dirty = true;
  settle(app);
  CHECK_FALSE(patching_wanted(app));
  app.view = View::coref;
  app.compare.mode = CompareMode::sentence_b;
  app.compare.sentence = test::kWide;
  app.dirty = true;
  const PatchingRun* run = patched(app);
  REQUIRE(run);
  REQUIRE(run->result);
  CHECK(run->request.clean == test::kTired);
  CHECK(run->result->effect[0][2] == doctest::Approx(0.950).epsilon(1e-2));
  CHECK(run->corrupt_tokens.size() == 12);
  CHECK(run->corrupt_tokens[10] == "wide");

  // Core's own run on traces of the two sentences gives the same grid.
  TraceInput in;
  in.text = test::kTired;
  auto clean = trace_run(*app.trace_model, in);
  in.text = test::kWide;
  auto corrupt = trace_run(*app.trace_model, in);
  REQUIRE(clean.ok());
  REQUIRE(corrupt.ok());
  auto core = patch_run(*app.trace_model, *clean, test::kTired, *corrupt, test::kWide, PatchBy::head);
  REQUIRE(core.ok());
  CHECK(run->result->effect == core->effect);

  app.patching.by = PatchBy::position;
  run = patched(app);
  REQUIRE(run);
  REQUIRE(run->result);
  CHECK(run->result->by == PatchBy::position);
  CHECK(run->result->effect[0][10] == 1.0f);

  // Heads switched off in the views: patching still measures the full model (it traces both again).
  app_toggle_head(app, 0, 2);
  run = patched(app);
  REQUIRE(run);
  CHECK(run->result);

  app.compare.sentence = "The animal didn't cross the street because it was wide.";
  app.dirty = true;
  run = patched(app);
  REQUIRE(run);
  CHECK_FALSE(run->result);
  CHECK(patching_failure_text(*run, Lang::en) ==
        "A has 12 tokens and B 11: patching needs sentences of the same number of tokens.");
  CHECK(has(patching_failure_text(*run, Lang::ko), "A는 토큰 12개, B는 11개"));
}

}  // namespace
}  // namespace attnviz
