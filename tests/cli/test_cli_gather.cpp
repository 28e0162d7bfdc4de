// attnviz-cli train gather and train pair: the gather demo saved and read back, and the 1-head vs
// N-head pair over seeds written as JSON with each side's steps to the target and focus.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/file_io.h"
#include "base/json.h"
#include "io/model_file.h"
#include "support/check_util.h"
#include "support/cli_util.h"

using namespace attnviz;
using namespace attnviz::test;

TEST_CASE("cli: train pair --seeds 1 --json writes the seed's pair, N heads ahead") {
  const std::string path = (std::filesystem::temp_directory_path() / "attnviz_pair_test.json").string();
  const CliRun r = cli_in_process({"train", "pair", "--seeds", "1", "--json", path});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(has(r.out, "seed 1: 1 head target after 350 steps; 4 heads target after 75 steps"));
  CHECK(has(r.out, "4 heads ahead of 1 head in 1 of 1 seed"));
  auto bytes = file_read_bytes(path);
  REQUIRE(bytes.ok());
  auto j = json_parse_strict(std::string(bytes->begin(), bytes->end()), "the pair JSON");
  REQUIRE_MESSAGE(j.ok(), j.error());
  CHECK((*j)["demo"] == "gather");
  CHECK((*j)["n_heads"] == 4);
  CHECK((*j)["n_heads_ahead"] == 1);
  REQUIRE((*j)["seeds"].size() == 1);
  const auto& s1 = (*j)["seeds"][0];
  CHECK(s1["seed"] == 1);
  CHECK(s1["one_head"]["steps_to_target"] == 350);
  CHECK(s1["n_heads"]["steps_to_target"] == 75);
  CHECK(s1["n_heads"]["held_out"].get<double>() >= 0.99);
  CHECK(s1["one_head"]["focus"].get<double>() < s1["n_heads"]["focus"].get<double>());
  CHECK(s1["n_heads_ahead"] == true);
  std::filesystem::remove(path);
}

TEST_CASE("cli: train gather saves its model where --out says") {
  const std::string dir = (std::filesystem::temp_directory_path() / "attnviz_gather_test").string();
  const CliRun r = cli_in_process({"train", "gather", "--out", dir, "--steps", "50"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(has(r.out, "training the gather demo"));
  CHECK(has(r.out, "heads4_dmodel32"));
  CHECK(has(r.out, "after 50 steps"));
  auto m = model_load(dir + "/model.safetensors", std::nullopt);
  REQUIRE_MESSAGE(m.ok(), m.error());
  CHECK(m->config.n_heads == 4);
  CHECK(m->config.n_layers == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: train pair and train gather refuse flags that are not theirs") {
  auto error_of = [](const std::vector<std::string>& args) {
    auto o = cli_parse(args);
    return o ? std::string() : o.error();
  };
  CHECK(has(error_of({"train", "pair", "--seeds", "3-1"}), "--seeds '3-1'"));
  CHECK(has(error_of({"train", "pair", "--seeds", "1-200"}), "at most 100"));
  CHECK(has(error_of({"train", "pair", "--seeds", "1,x"}), "--seeds '1,x'"));
  CHECK(has(error_of({"train", "pair", "--seed", "3"}), "takes --seeds"));
  CHECK(has(error_of({"train", "pair", "--out", "d"}), "saves no model"));
  CHECK(has(error_of({"train", "pair", "--heads", "1"}), "at least 2"));
  CHECK(has(error_of({"train", "gather"}), "train gather needs --out"));
  CHECK(has(error_of({"train", "gather", "--out", "d", "--seeds", "1-2"}), "does not take --seeds"));
  CHECK(has(error_of({"train", "coref", "--out", "d", "--json", "x"}), "does not take --json"));
  auto list = cli_parse({"train", "pair", "--seeds", "4,9,12"});
  REQUIRE(list.ok());
  CHECK(list->seeds == std::vector<uint64_t>{4, 9, 12});
}
