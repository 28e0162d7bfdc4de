// Maps formed on demand (MapsKept::none): a long input's trace keeps each head's Q, K, V and output,
// not its (Tq, Tk) weights, and head_map forms them when asked. They must be the bits the forward
// pass computed, and everything built on them (outputs, detectors, switched-off heads, a continued
// trace) the same as from a trace that kept them.
#include <doctest/doctest.h>

#include "analysis/detectors.h"
#include "analysis/export.h"
#include "model/head_map.h"
#include "model/trace.h"
#include "model/trace_reuse.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

namespace attnviz {
namespace {

// Llama's shape, small: rotary positions, 8 query heads over 2 key/value heads, causal. 1,500
// tokens make 1500² x 16 = 36M cells: past kKeepScoresCells, so a trace keeps the weights alone
// (MapsKept::weights), computed exactly as a trace that forms them on demand computes them.
ModelConfig small_llama() { return test::llama_config({.d_model = 32, .n_heads = 8, .n_layers = 2, .d_ff = 48}, 2); }

TraceInput long_input(int tokens, bool on_demand) {
  TraceInput in;
  in.embeddings = test::random_mat(tokens, 32, 7);
  in.maps_on_demand = on_demand;
  in.max_memory = int64_t{1} << 34;
  return in;
}

}  // namespace

TEST_CASE("head map: formed on demand, a head's weights are the bits a trace that keeps them holds") {
  const Model m = model_init_random(small_llama(), 11);
  auto kept = trace_run(m, long_input(1500, false));
  auto formed = trace_run(m, long_input(1500, true));
  REQUIRE_MESSAGE(kept.ok(), kept.error());
  REQUIRE_MESSAGE(formed.ok(), formed.error());
  CHECK(kept->maps_kept == MapsKept::weights);
  CHECK(formed->maps_kept == MapsKept::none);
  CHECK_FALSE(trace_forms_maps(*kept));
  CHECK(trace_forms_maps(*formed));
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 8; ++h) {
      CAPTURE(l);
      CAPTURE(h);
      const HeadTrace& a = kept->head(l, h);
      const HeadTrace& b = formed->head(l, h);
      CHECK(b.weights_kept.size() == 0);  // nothing (Tq, Tk) is held
      CHECK(b.scores_raw.size() == 0);
      const HeadMap from_kept = head_map(*kept, l, h);
      CHECK_FALSE(from_kept.is_formed());
      CHECK(&*from_kept == &a.weights_kept);
      const HeadMap map = head_map(*formed, l, h);
      CHECK(map.is_formed());
      REQUIRE(map->rows() == 1500);
      CHECK(*map == a.weights_kept);  // bit for bit
      CHECK(b.out == a.out);
      // Rows and cells without forming the map: the same bits.
      CHECK(head_map_rows(*formed, l, h, 700, 3) == a.weights_kept.middleRows(700, 3));
      CHECK(head_map_at(*formed, l, h, 1499, 3) == a.weights_kept(1499, 3));
      CHECK(head_map_at(*formed, l, h, 3, 1499) == 0.0f);  // causal: the future is hidden
      CHECK(*head_map_shared(*formed, l, h) == a.weights_kept);
    }
  CHECK(formed->final == kept->final);
  // A short input keeps everything: its maps agree with the formed ones to rounding (the scores are
  // scaled after the product there, through Q here).
  auto short_kept = trace_run(m, long_input(64, false));
  auto short_formed = trace_run(m, long_input(64, true));
  REQUIRE(short_kept.ok());
  REQUIRE(short_formed.ok());
  CHECK(short_kept->maps_kept == MapsKept::all);
  CHECK(test::max_abs_diff(*head_map(*short_formed, 1, 5), short_kept->head(1, 5).weights_kept) < 1e-6f);
}

TEST_CASE("head map: detectors, switched-off heads and exports read formed maps as kept ones") {
  // A short input, formed on demand because it asks: the kept maps (MapsKept::all) differ from the
  // formed ones by rounding only (the scores are scaled after the product there, through Q here).
  const Model m = model_init_random(small_llama(), 12);
  auto kept = trace_run(m, long_input(80, false));
  auto formed = trace_run(m, long_input(80, true));
  REQUIRE(kept.ok());
  REQUIRE(formed.ok());
  REQUIRE(trace_forms_maps(*formed));
  for (const Detector d : {Detector::previous_token, Detector::first_token, Detector::duplicate_token})
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 8; ++h)
        CHECK(detector_grid(d, *formed).by_layer_head[l][h].score ==
              doctest::Approx(detector_grid(d, *kept).by_layer_head[l][h].score).epsilon(1e-5));
  Ablation off;
  off.heads = {{1, 3}};
  auto a = trace_final_ablated(m, *kept, off);
  auto b = trace_final_ablated(m, *formed, off);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(test::max_abs_diff(*a, *b) < 1e-5f);
  CHECK(test::max_abs_diff(*a, kept->final) > 1e-3f);  // the head mattered
  // An export of a formed map is of its bits: the CSV as of the map given, the layer grid holding them.
  const Mat map = *head_map(*formed, 1, 6);
  auto csv = trace_head_csv(*formed, 1, 6);
  auto csv_of_map = trace_head_csv(*formed, 1, 6, &map);
  REQUIRE(csv.ok());
  CHECK(*csv == *csv_of_map);
  auto grid = trace_layer_grid(*formed, 0, nullptr, "weights");
  REQUIRE(grid.ok());
  REQUIRE(grid->panels.size() == 8);
  CHECK(*grid->panels[2].weights == *head_map(*formed, 0, 2));  // held by the spec
}

TEST_CASE("head map: a trace continued from one that forms its maps forms them too, with the same bits") {
  const Model m = model_init_random(small_llama(), 13);
  TraceInput before = long_input(300, true);
  before.embeddings = before.embeddings->topRows(280).eval();
  auto previous = trace_run(m, before);
  REQUIRE(previous.ok());
  const TraceInput after = long_input(300, true);
  auto full = trace_run(m, after);
  auto continued = trace_run_reusing(m, after, *previous);
  REQUIRE(full.ok());
  REQUIRE_MESSAGE(continued.ok(), continued.error());
  CHECK(continued->reused_rows == 280);
  CHECK(continued->maps_kept == MapsKept::none);
  for (int h : {0, 5}) {
    CHECK(continued->head(1, h).weights_kept.size() == 0);
    CHECK(*head_map(*continued, 1, h) == *head_map(*full, 1, h));
    CHECK(continued->head(1, h).out == full->head(1, h).out);
  }
  CHECK(continued->final == full->final);
  // One that keeps its maps is not continued from one that forms them: the whole input runs again.
  auto mixed = trace_run_reusing(m, long_input(300, false), *previous);
  REQUIRE(mixed.ok());
  CHECK(mixed->reused_rows == 0);
}

}  // namespace attnviz
