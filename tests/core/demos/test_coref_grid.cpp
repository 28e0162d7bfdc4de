// The grid of coreference models in assets/demo_coref_grid (1, 2, 4, 8 heads x d_model 32, 64, 128):
// every cell grid.json lists is there, has its shape and resolves held-out sentences as well as the
// manifest says; where the build rounds like the one that trained them, one small cell retrained
// from its manifest seed is the shipped file, tensor for tensor.
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "base/file_io.h"
#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "base/json.h"
#include "io/model_file.h"
#include "io/model_open.h"
#include "support/weights_util.h"

using namespace attnviz;

namespace {

struct GridCell {
  int heads = 0, d_model = 0;
  uint64_t seed = 0;
  int steps = 0;  // the --steps given; 0: the default budget
  int steps_trained = 0;
  double heldout_accuracy = 0;
};

std::string grid_path(const std::string& rel) { return std::string(ATTNVIZ_ASSETS) + "/demo_coref_grid/" + rel; }

std::string cell_dir(const GridCell& c) {
  return grid_path("heads" + std::to_string(c.heads) + "_dmodel" + std::to_string(c.d_model));
}

std::vector<GridCell> grid_manifest() {
  auto bytes = file_read_bytes(grid_path("grid.json"));
  REQUIRE_MESSAGE(bytes.ok(), bytes.error());
  auto j = json_parse_strict(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), "grid.json");
  REQUIRE_MESSAGE(j.ok(), j.error());
  std::vector<GridCell> cells;
  const std::set<std::string> known = {"heads", "d_model", "seed", "steps", "steps_trained", "heldout_accuracy",
                                       "train_seconds"};
  for (const auto& m : j->at("models")) {
    for (const auto& item : m.items()) {
      const std::string key = item.key();
      CHECK_MESSAGE(known.count(key) == 1, "grid.json: unknown key " << key);
    }
    GridCell c;
    c.heads = m.at("heads").get<int>();
    c.d_model = m.at("d_model").get<int>();
    c.seed = m.at("seed").get<uint64_t>();
    c.steps = m.at("steps").is_null() ? 0 : m.at("steps").get<int>();
    c.steps_trained = m.at("steps_trained").get<int>();
    c.heldout_accuracy = m.at("heldout_accuracy").get<double>();
    cells.push_back(c);
  }
  return cells;
}

Model open_cell(const GridCell& c) {
  auto m = model_open(cell_dir(c));
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

}  // namespace

TEST_CASE("coref grid: every cell is there, has its shape and reaches its manifest's held-out accuracy") {
  const std::vector<GridCell> cells = grid_manifest();
  std::set<std::pair<int, int>> shapes;
  for (const GridCell& c : cells) shapes.insert({c.heads, c.d_model});
  CHECK(cells.size() == 12);
  for (int heads : {1, 2, 4, 8})
    for (int d_model : {32, 64, 128}) CHECK_MESSAGE(shapes.count({heads, d_model}) == 1, heads << " x " << d_model);

  for (const GridCell& c : cells) {
    CAPTURE(cell_dir(c));
    CHECK(path_is_file(cell_dir(c) + "/vocab.txt"));
    const Model m = open_cell(c);
    CHECK(m.config.n_heads == c.heads);
    CHECK(m.config.d_model == c.d_model);
    CHECK(m.config.n_layers == 2);
    CHECK(m.config.d_ff == 0);
    CHECK(m.vocab == coref_vocabulary());
    const float acc = coref_evaluate(m, coref_generate(c.seed).heldout);
    MESSAGE(c.heads << " heads, d_model " << c.d_model << ", seed " << c.seed << ": held-out accuracy " << acc);
    CHECK(acc >= 0.99f);
    CHECK(std::abs(static_cast<double>(acc) - c.heldout_accuracy) <= 1e-6);
  }
}

TEST_CASE("coref grid: heads2_dmodel32 is exactly what `train coref` makes from its manifest seed") {
  GridCell cell;
  for (const GridCell& c : grid_manifest())
    if (c.heads == 2 && c.d_model == 32) cell = c;
  REQUIRE(cell.heads == 2);
  CorefTrainOptions o;
  o.seed = cell.seed;
  o.n_heads = cell.heads;
  o.d_model = cell.d_model;
  if (cell.steps > 0) o.max_steps = cell.steps;
  auto run = coref_train(o);
  REQUIRE_MESSAGE(run.ok(), run.error());
  CHECK(run->history.back().step == cell.steps_trained);
  CHECK(std::abs(static_cast<double>(run->heldout_accuracy) - cell.heldout_accuracy) <= 1e-6);

  test::check_same_weights(run->model, open_cell(cell));
}
