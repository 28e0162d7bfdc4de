// The shipped demos by name (demo:coref, demo:induction, demo:coref/heads2_dmodel32) in every
// attnviz-cli command that takes --model, the asset lookup behind them (app/common/asset_paths.h),
// and --version. The tests run from the build tree, so the assets are the source tree's.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>

#include "asset_paths.h"
#include "support/check_util.h"
#include "support/cli_util.h"
#include "version.h"
#include "support/coref_sentences.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {


}  // namespace

TEST_CASE("asset paths: from the build tree, the source tree's assets, every demo by name, the grid in numeric order") {
  const AssetPaths assets = asset_paths_find();
  REQUIRE_FALSE(assets.dir.empty());
  CHECK_FALSE(assets.installed);
  CHECK(assets.dir == ATTNVIZ_ASSETS);
  REQUIRE(assets.tried.size() == 2);  // beside the program first, then the source tree
  CHECK(has(assets.tried[0], "share/attnviz/assets"));
  const std::vector<std::string> names = demo_names(assets);
  REQUIRE(names.size() == 8 + 12);
  CHECK(names[0] == "demo:coref");
  CHECK(names[1] == "demo:induction");
  CHECK(names[2] == "demo:gather");
  CHECK(names[3] == "demo:translate");
  CHECK(names[4] == "demo:translate/bottleneck");
  CHECK(names[5] == "demo:translate/score_additive");
  CHECK(names[6] == "demo:translate/score_dot");
  CHECK(names[7] == "demo:translate/score_general");
  CHECK(names[8] == "demo:coref/heads1_dmodel32");
  CHECK(names[9] == "demo:coref/heads1_dmodel64");
  CHECK(names[10] == "demo:coref/heads1_dmodel128");
  CHECK(names.back() == "demo:coref/heads8_dmodel128");

  auto grid = demo_model_find(assets, "demo:coref/heads2_dmodel32");
  REQUIRE_MESSAGE(grid.ok(), grid.error());
  CHECK(grid->demo == "coref");
  CHECK(grid->grid_key == "heads2_dmodel32");
  CHECK(grid->dir == std::string(ATTNVIZ_ASSETS) + "/demo_coref_grid/heads2_dmodel32");
  auto induction = demo_model_find(assets, "demo:induction");
  REQUIRE(induction.ok());
  CHECK(induction->demo == "induction");
  CHECK(induction->grid_key.empty());
}

TEST_CASE("asset paths: an unknown demo lists the known ones, and a name cannot leave the assets folder") {
  const AssetPaths assets = asset_paths_find();
  for (const char* name : {"demo:corf", "demo:", "demo:coref/", "demo:coref/heads3_dmodel32",
                           "demo:coref/../demo_coref", "demo:coref_grid", "demo:induction/heads2_dmodel32"}) {
    auto d = demo_model_find(assets, name);
    REQUIRE_FALSE(d.ok());
    CHECK(has(d.error(), "unknown demo '" + std::string(name) + "'"));
    CHECK(has(d.error(), "holds demo:coref, demo:induction, demo:gather, demo:translate, demo:translate/bottleneck, demo:translate/score_additive, demo:translate/score_dot, demo:translate/score_general, demo:coref/heads1_dmodel32,"));
  }
  AssetPaths none;
  none.tried = {"/nowhere/share/attnviz/assets", "/nowhere/src/assets"};
  auto d = demo_model_find(none, "demo:coref");
  REQUIRE_FALSE(d.ok());
  CHECK(d.error() ==
        "cannot open demo:coref: no assets folder (looked in /nowhere/share/attnviz/assets and /nowhere/src/assets)");
  CHECK(demo_names(none).empty());
  CHECK(demo_name_given("demo:coref"));
  CHECK_FALSE(demo_name_given("assets/demo_coref"));
  CHECK_FALSE(demo_name_given("demo"));
}

TEST_CASE("cli --version: 'attnviz X.Y.Z', and --verbose adds where the demos are and their names") {
  CliRun v = cli_in_process({"--version"});
  REQUIRE(v.status == 0);
  CHECK(std::regex_match(v.out, std::regex("attnviz [0-9]+\\.[0-9]+\\.[0-9]+\n")));
  CHECK(v.out == std::string("attnviz ") + attnviz_version() + "\n");
  CliRun verbose = cli_in_process({"--version", "--verbose"});
  REQUIRE(verbose.status == 0);
  CHECK(has(verbose.out, v.out + "assets: " + ATTNVIZ_ASSETS + " (the source tree of this build)\n"));
  CHECK(has(verbose.out, "demos: demo:coref, demo:induction, demo:gather, demo:translate, demo:translate/bottleneck, demo:translate/score_additive, demo:translate/score_dot, demo:translate/score_general, demo:coref/heads1_dmodel32,"));
  CliRun bad = cli_in_process({"--version", "--json", "-"});
  CHECK(bad.status == 2);
  CHECK(has(bad.err, "--version takes only --verbose"));
  CHECK(has(cli_in_process({"--help"}).out, "attnviz-cli --version [--verbose]"));
}

TEST_CASE("cli: every command that takes --model opens the shipped demos by name") {
  CliRun path = cli_in_process({"predict", "--model", std::string(ATTNVIZ_ASSETS) + "/demo_coref", "--text", kTired});
  CliRun named = cli_in_process({"predict", "--model", "demo:coref", "--text", kTired});
  REQUIRE_MESSAGE(named.status == 0, named.err);
  CHECK(named.out == path.out);
  CHECK(named.out == "it (#7) -> animal (#1, p = 1.000)\n");

  CliRun grid = cli_in_process({"predict", "--model", "demo:coref/heads2_dmodel32", "--text", kTired, "--json", "-"});
  REQUIRE_MESSAGE(grid.status == 0, grid.err);
  CHECK(has(grid.out, "\"heads\""));  // two heads per layer, each with its attention to both candidates

  CliRun attention = cli_in_process({"attention", "--model", "demo:coref/heads8_dmodel64", "--text", kTired});
  REQUIRE_MESSAGE(attention.status == 0, attention.err);
  CHECK(has(attention.out, "d_model 64, 8 heads, 2 layers, "));
  CHECK(has(attention.out, "demo_coref_grid/heads8_dmodel64"));

  CliRun heads = cli_in_process({"heads", "--model", "demo:coref", "--text", kTired, "--importance"});
  REQUIRE_MESSAGE(heads.status == 0, heads.err);
  CHECK(has(heads.out, "most important: layer 0 head 2"));

  const std::string repeat = "t3 t9 t4 t12 t7 t1 t3 t9 t4";
  CliRun induction = cli_in_process({"predict", "--model", "demo:induction", "--text", repeat, "--mask", "causal"});
  REQUIRE_MESSAGE(induction.status == 0, induction.err);
  CHECK(has(induction.out, "next token after #8 (t4):  t12"));  // the induction head copies what followed t4 before
  // generate reaches the model too: the demo is an encoder given a causal mask, not a causal checkpoint.
  CliRun generate = cli_in_process({"generate", "--model", "demo:induction", "--text", repeat});
  CHECK(generate.status == 1);
  CHECK(has(generate.err, "generation needs a causal model"));
}

TEST_CASE("cli: an unknown demo name is an error (exit 1) that lists the known ones") {
  CliRun r = cli_in_process({"predict", "--model", "demo:coreference", "--text", kTired});
  CHECK(r.status == 1);
  CHECK(r.out.empty());
  CHECK(has(r.err, "attnviz-cli: unknown demo 'demo:coreference': "));
  CHECK(has(r.err, "holds demo:coref, demo:induction, demo:gather, demo:translate, demo:translate/bottleneck, demo:translate/score_additive, demo:translate/score_dot, demo:translate/score_general, demo:coref/heads1_dmodel32, demo:coref/heads1_dmodel64, "));
  CHECK(has(r.err, "demo:coref/heads8_dmodel128\n"));
}
