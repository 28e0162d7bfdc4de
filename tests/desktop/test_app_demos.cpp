// The app's --model with a shipped demo's name (demo:coref, demo:induction, a grid model), its
// --version flags, and an unknown name leaving the shown model as it was. Headless.
#include <doctest/doctest.h>

#include "state/app_state.h"
#include "state/model_source.h"
#include "state/options.h"
#include "support/check_util.h"

namespace attnviz {
namespace {

using test::has;

TEST_CASE("app demos: demo:coref and demo:induction open the demos the Model panel offers, at once") {
  AppState app;
  CHECK(app.assets.dir == ATTNVIZ_ASSETS);
  app_open_model(app, "demo:induction");
  CHECK_FALSE(app.model_loader.busy());  // not a file to load off the UI thread
  REQUIRE(app.model_error.empty());
  CHECK(app.source == ModelSource::demo_induction);
  CHECK(app.mask.causal);
  CHECK(app.model->source == "assets/demo_induction");
  REQUIRE(app_use_demo(app, "demo:coref").ok());
  CHECK(app.source == ModelSource::demo_coref);
  CHECK(app.model->source == "assets/demo_coref");
  CHECK(app.model_path.empty());
}

TEST_CASE("app demos: demo:coref/heads2_dmodel32 is the coreference demo with that architecture, from the grid") {
  AppState app;
  REQUIRE(app_use_demo(app, "demo:coref/heads2_dmodel32").ok());
  CHECK(app.source == ModelSource::demo_coref);
  CHECK_FALSE(app.retrain.training);  // shipped in the grid: nothing trains
  CHECK(app.retrain.coref.n_heads == 2);
  CHECK(app.retrain.coref.d_model == 32);
  CHECK(app.model->config.n_heads == 2);
  CHECK(app.model->source == "assets/demo_coref_grid/heads2_dmodel32");
  // The shipped demo's own shape is in the grid too: it opens as the demo.
  REQUIRE(app_use_demo(app, "demo:coref/heads4_dmodel32").ok());
  CHECK(app.model->source == "assets/demo_coref");
}

TEST_CASE("app demos: an unknown name is an error listing the known ones, and the model shown stays") {
  AppState app;
  REQUIRE(app_use_demo(app, "demo:induction").ok());
  const auto shown = app.model;
  Status s = app_use_demo(app, "demo:coref/heads3_dmodel32");
  REQUIRE_FALSE(s.ok());
  CHECK(has(s.error(), "unknown demo 'demo:coref/heads3_dmodel32'"));
  CHECK(has(s.error(), "holds demo:coref, demo:induction, demo:gather, demo:translate, demo:translate/bottleneck, demo:translate/score_additive, demo:translate/score_dot, demo:translate/score_general, demo:coref/heads1_dmodel32,"));
  CHECK(app.model_error == s.error());
  CHECK(app.model == shown);
  CHECK(app.source == ModelSource::demo_induction);
  app_open_model(app, "demo:nope");  // the Model panel's path field and --model: the same message
  CHECK(has(app.model_error, "unknown demo 'demo:nope'"));
  CHECK(app.model == shown);
}

TEST_CASE("app options: --version, --version --verbose, and --verbose alone is a usage error") {
  auto v = app_options_parse({"--version"});
  REQUIRE(v.ok());
  CHECK(v->version);
  CHECK_FALSE(v->verbose);
  auto verbose = app_options_parse({"--version", "--verbose"});
  REQUIRE(verbose.ok());
  CHECK(verbose->verbose);
  auto alone = app_options_parse({"--verbose"});
  REQUIRE_FALSE(alone.ok());
  CHECK(alone.error() == "--verbose goes with --version");
  CHECK(has(app_usage(), "attnviz --version [--verbose]"));
  CHECK(has(app_usage(), "--model DIR|FILE|DEMO"));
}

}  // namespace
}  // namespace attnviz
