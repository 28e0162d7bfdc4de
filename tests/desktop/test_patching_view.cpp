// Patching A into B in the app (state/patching_state.h), headless: nothing to patch without sentence
// B; with the minimal pair the run off the UI thread gives core's grid; a new sentence B is measured
// again (the older run never shown for it); a pair of unequal length is refused in both languages.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <variant>
#include <thread>

#include <nlohmann/json.hpp>

#include "analysis/logit_lens.h"
#include "analysis/patching.h"
#include "analysis/qk_projection.h"
#include "base/file_io.h"
#include "state/app_busy.h"
#include "state/attention_source.h"
#include "state/model_source.h"
#include "state/panel_export.h"
#include "state/view_figure.h"
#include "support/app_settle.h"
#include "support/check_util.h"
#include "support/coref_sentences.h"
#include "support/fixture_util.h"

namespace attnviz {
namespace {

using test::has;

std::string read_text(const std::string& path) {
  auto bytes = file_read_bytes(path, 1 << 20);
  REQUIRE_MESSAGE(bytes.ok(), bytes.error());
  return std::string(bytes->begin(), bytes->end());
}

const PatchingRun* patched(AppState& app) {
  settle(app);
  for (int i = 0; i < 3000; ++i) {
    patching_update(app);
    if (const PatchingRun* run = patching_current(app)) return run;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return nullptr;
}

// The cells of an exported figure's panel, each checked against the grid it shows.
int tagged_cells(const Figure& f, const std::string& panel, const std::vector<std::vector<float>>& want) {
  int n = 0;
  for (const FigureItem& item : f.items) {
    const auto* r = std::get_if<FigureRect>(&item);
    if (!r || !r->cell || r->cell->panel != panel) continue;
    CHECK(r->cell->value ==
          doctest::Approx(want[static_cast<size_t>(r->cell->row)][static_cast<size_t>(r->cell->col)]).epsilon(1e-6));
    ++n;
  }
  return n;
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
  // The Coreference view's export carries the grid, cell by cell.
  auto figure = view_figure(app, View::coref, nullptr);
  REQUIRE_MESSAGE(figure.ok(), figure.error());
  CHECK(tagged_cells(*figure, "patching.patching", run->result->effect) == 8);

  app.patching.by = PatchBy::position;
  run = patched(app);
  REQUIRE(run);
  REQUIRE(run->result);
  CHECK(run->result->by == PatchBy::position);
  CHECK(run->result->effect[0][10] == 1.0f);
  {  // "Export data…": the grid as long CSV and as the CLI's JSON; an unknown ending refused
    const test::TempFile csv("attnviz-patch-export.csv"), json("attnviz-patch-export.json");
    REQUIRE(app_export_panel(app, DataPanel::patching, csv.path()));
    const std::string text = read_text(csv.path());
    CHECK(has(text, "layer,position,clean_token,corrupt_token,effect,patched_metric,patched_answer\n"));
    CHECK(has(text, "\n0,10,tired,wide,1,"));  // the property word carries everything into layer 0
    REQUIRE(app_export_panel(app, DataPanel::patching, json.path()));
    const auto j = nlohmann::json::parse(read_text(json.path()));
    CHECK(j["metric"] == "log_prob_diff");
    CHECK(j["by"] == "position");
    CHECK(j["clean_text"] == test::kTired);
    CHECK(j["effect"][1][7].get<float>() == run->result->effect[1][7]);
    CHECK(app_export_panel(app, DataPanel::patching, "grid.txt").error() ==
          "export data: grid.txt: the file must end in .csv or .json (not \".txt\")");
  }
  app.view = View::compare;
  run = patched(app);
  REQUIRE(run);
  auto compare = view_figure(app, View::compare, nullptr);
  REQUIRE_MESSAGE(compare.ok(), compare.error());
  CHECK(tagged_cells(*compare, "patching.patching", run->result->effect) == 24);
  app.view = View::coref;

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

TEST_CASE("patching in the app: a run started in one view finishes and is kept after the view changes") {
  AppState app;
  REQUIRE(app_use_source(app, ModelSource::demo_coref).ok());
  app.view = View::coref;
  app.sentence = test::kTired;
  app.compare.mode = CompareMode::sentence_b;
  app.compare.sentence = test::kWide;
  app.dirty = true;
  settle(app);
  patching_update(app);  // the panel's frame starts the run
  REQUIRE(app.patching.job.busy());
  CHECK(has(app_busy_text(app), "patching A into B"));  // scripts' expect idle waits for it
  app.view = View::heads;  // the panel is no longer drawn: app_update still takes the result
  for (int i = 0; i < 3000 && app.patching.job.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    app_update(app);
  }
  CHECK_FALSE(app.patching.job.busy());
  CHECK_FALSE(has(app_busy_text(app), "patching"));
  app.view = View::coref;
  const PatchingRun* run = patching_current(app);  // shown at once, not measured again
  REQUIRE(run);
  REQUIRE(run->result);
  CHECK(run->result->effect[0][2] == doctest::Approx(0.950).epsilon(1e-2));
}

TEST_CASE("logit lens in the app: the panel's numbers are core's, and the Statistics export carries the attribution") {
  AppState app;
  app_open_path(app, test::fixture_path("hf/gpt2_tiny"));  // off the UI thread, as the Open button
  settle(app);
  app.sentence = "the cat sat on the";
  app.dirty = true;
  app.view = View::stats;
  settle(app);
  REQUIRE(app.trace);
  // Computed off the UI thread: nothing to show until the job has run, then core's numbers.
  lens_refresh(app);
  for (int i = 0; i < 3000 && !lens_current(app); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    app_update(app);
    lens_refresh(app);
  }
  const LensResult* lens_shown = lens_current(app);
  REQUIRE(lens_shown);
  CHECK(lens_shown->position == 7);
  CHECK_FALSE(app.lens.job.busy());  // taken by app_update or the refresh: nothing left in flight
  auto rows = logit_lens_at(*app.trace_model, *app.trace, 7, 5);
  REQUIRE(rows.ok());
  REQUIRE(lens_shown->rows.size() == rows->size());
  CHECK(lens_shown->rows.back().top[0].id == rows->back().top[0].id);
  REQUIRE(lens_shown->attribution);
  const LogitAttribution& attribution = *lens_shown->attribution;
  CHECK(std::abs(attribution.total - attribution.logit_diff) < 1e-4f);
  lens_choose_head(app, 1, 2);
  REQUIRE(lens_head_write(app));
  CHECK(lens_head_write(app)->promoted.size() == 5);
  auto figure = view_figure(app, View::stats, nullptr);
  REQUIRE_MESSAGE(figure.ok(), figure.error());
  CHECK(tagged_cells(*figure, "attribution.attribution", attribution.heads) == 8);
  {  // "Export data…" of the lens, the attribution, the flow graph and the query/key picture: the panels' numbers
    const test::TempFile lens("attnviz-lens.json"), attribution("attnviz-attribution.csv"), flow("attnviz-flow.json"), qk("attnviz-qk.csv");
    REQUIRE(app_export_panel(app, DataPanel::lens, lens.path()));
    const auto lj = nlohmann::json::parse(read_text(lens.path()));
    CHECK(lj["position"] == 7);
    CHECK(lj["lens"].size() == rows->size());
    CHECK(lj["lens"].back()["top"][0]["id"] == rows->back().top[0].id);
    CHECK(lj["head_write"]["layer"] == 1);
    CHECK(lj["head_write"]["promoted"][0]["logit"].get<float>() == lens_head_write(app)->promoted[0].logit);
    REQUIRE(app_export_panel(app, DataPanel::attribution, attribution.path()));
    const std::string at = read_text(attribution.path());
    CHECK(has(at, "component,layer,head,value\n"));
    CHECK(has(at, "\nhead,1,2,"));
    CHECK(has(at, "\nlogit_diff,,,"));
    app.flow.threshold = 0.05f;
    REQUIRE(app_export_panel(app, DataPanel::flow, flow.path()));
    const auto fj = nlohmann::json::parse(read_text(flow.path()));
    REQUIRE(flow_current(app));  // the export waited for it
    REQUIRE(flow_current(app)->graph);
    const FlowGraph& graph = *flow_current(app)->graph;
    CHECK(fj["target"] == 7);
    CHECK(fj["edges"].size() == graph.edges.size());
    CHECK(fj["threshold"].get<float>() == 0.05f);
    app.layer = 1;
    app.head = 3;
    REQUIRE(app_export_panel(app, DataPanel::qk, qk.path()));
    auto p = qk_projection(app.trace->head(1, 3));
    REQUIRE(p.ok());
    const std::string qt = read_text(qk.path());
    CHECK(has(qt, "kind,position,token,x,y\nquery,0,"));
    CHECK(has(qt, "\nkey,7,"));
    // The exported Statistics figure draws the same flow graph: a tagged line per edge with its share.
    auto stats = view_figure(app, View::stats, nullptr);
    REQUIRE_MESSAGE(stats.ok(), stats.error());
    size_t lines = 0;
    for (const FigureItem& item : stats->items) {
      const auto* line = std::get_if<FigureLine>(&item);
      if (!line || !line->tag || line->tag->panel.rfind("flow.", 0) != 0) continue;
      const FlowEdge& e = graph.edges[lines++];
      CHECK(line->tag->panel == "flow.l" + std::to_string(e.layer) + ".h" + std::to_string(e.head));
      CHECK(line->tag->row == e.to);
      CHECK(line->tag->col == e.from);
      CHECK(line->tag->value == e.share);
    }
    CHECK(lines == graph.edges.size());
    CHECK(lines > 0);
    // The Heads figure with head 4 zoomed: the map and, beside it, that head's query/key picture (a
    // circle per query, a ring around the chosen one).
    app.heads.zoom_head = 3;
    app.query = 7;
    auto heads = view_figure(app, View::heads, nullptr);
    REQUIRE_MESSAGE(heads.ok(), heads.error());
    int circles = 0;
    bool titled = false;
    for (const FigureItem& item : heads->items) {
      if (std::holds_alternative<FigureCircle>(item)) ++circles;
      if (const auto* text = std::get_if<FigureText>(&item)) titled = titled || text->text.rfind("Why this head attends", 0) == 0;
    }
    CHECK(titled);
    CHECK(circles == app.trace->n_queries() + 2);
    app.heads.zoom_head = -1;
    app.query = -1;
    lens_refresh(app);
  }
  // Another query row chosen: the lens reads there, and the old numbers are neither shown nor exported for it.
  app.query = 3;
  CHECK(lens_current(app) == nullptr);
  CHECK(lens_head_write(app) == nullptr);
  const LensResult* at3 = lens_wait(app);
  REQUIRE(at3);
  CHECK(at3->position == 3);
  CHECK(lens_current(app) == at3);
}

}  // namespace
}  // namespace attnviz
