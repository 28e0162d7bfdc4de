// "Which heads matter" over a set of sentences in the app (state/importance_set_state.h), headless:
// the demo's held-out set, a set file and its refusals, the run off the UI thread on the shown
// model giving core's numbers, and the result shown only for the model it was measured on.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "demos/coref_data.h"
#include "demos/coref_demo.h"
#include "io/presets.h"
#include "state/model_source.h"
#include "state/panel_export.h"
#include "support/app_settle.h"
#include "support/check_util.h"

namespace attnviz {
namespace {

using test::has;

TEST_CASE("importance set in the app: the demo's held-out sentences, a file, the run and its result") {
  AppState app;
  REQUIRE(app_use_source(app, ModelSource::demo_coref).ok());
  settle(app);
  importance_set_use_minimal_pairs(app);
  {
    const auto& pairs = app.importance_set.sentences;
    const CorefSplit split = coref_generate(kCorefDemoSeed);
    CHECK(pairs.size() > 1560);
    CHECK(pairs.size() <= 3120);
    REQUIRE(pairs.size() >= 2);
    CHECK(pairs[0].text == split.heldout[0].text);
    CHECK(pairs[1].text == coref_minimal_pair(coref_make(split.heldout[0].text)));
    CHECK(has(pairs[1].text, "because it was too"));
    CHECK(app.importance_set.source == "pairs");
  }
  importance_set_use_demo(app);
  CHECK(app.importance_set.sentences.size() == 1560);
  CHECK(app.importance_set.scope == ImportanceScope::set);

  const test::TempFile file("attnviz-set.txt");
  REQUIRE(file_write_atomic(file.path(), "# two\nThe animal didn't cross the street because it was too tired.\n\n"
                                         "The man refused to cross the street because it was too scared.\r\n"));
  auto missing = importance_set_load_file(app, file.path() + ".none");
  REQUIRE_FALSE(missing);
  CHECK(app.importance_set.sentences.size() == 1560);  // the previous set stays
  REQUIRE(file_write_atomic(file.path() + ".empty", "# nothing\n"));
  auto empty = importance_set_load_file(app, file.path() + ".empty");
  REQUIRE_FALSE(empty);
  CHECK(has(empty.error(), "no sentence"));
  std::remove((file.path() + ".empty").c_str());
  REQUIRE(importance_set_load_file(app, file.path()));
  REQUIRE(app.importance_set.sentences.size() == 2);
  CHECK(app.importance_set.sentences[1].line == 4);

  REQUIRE(importance_set_start(app));
  CHECK_FALSE(importance_set_start(app));  // one run at a time
  for (int i = 0; i < 6000 && app.importance_set.job.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app_update(app);
  }
  const ImportanceSetGrid* g = importance_set_shown(app);
  REQUIRE(g);
  auto core = importance_set(*app.trace_model, app.importance_set.sentences);
  REQUIRE(core.ok());
  CHECK(g->mean == core->mean);
  CHECK(g->answer_changes == core->answer_changes);
  // "tired" is L1 H3's (layer 0 head 2), "scared" L1 H1's: each changes one answer of the two.
  CHECK(g->answer_changes[0][2] == 1);
  CHECK(g->answer_changes[0][0] == 1);
  // "Export data…" beside the grid: its numbers, as CSV (a row per head) and as the CLI's JSON.
  const test::TempFile csv("attnviz-set-export.csv"), json("attnviz-set-export.json");
  REQUIRE(app_export_panel(app, DataPanel::importance_set, csv.path()));
  auto csv_text = file_read_bytes(csv.path(), 1 << 20);
  REQUIRE(csv_text.ok());
  CHECK(test::has(std::string(csv_text->begin(), csv_text->end()), "layer,head,mean,spread,answer_changes,sentences\n0,0,"));
  REQUIRE(app_export_panel(app, DataPanel::importance_set, json.path()));
  auto json_text = file_read_bytes(json.path(), 1 << 20);
  REQUIRE(json_text.ok());
  const auto j = nlohmann::json::parse(json_text->begin(), json_text->end());
  CHECK(j["per_sentence"].size() == g->sentences.size());
  CHECK(j["importance"][0][2].get<float>() == g->mean[0][2]);
  CHECK(j["answer_changes"][0][2] == 1);
  // Another model shown: the result is not its.
  REQUIRE(app_use_source(app, ModelSource::demo_induction).ok());
  settle(app);
  CHECK(importance_set_shown(app) == nullptr);
  const Status none = app_export_panel(app, DataPanel::importance_set, csv.path());
  CHECK(none.error() == "export data set: nothing to export yet (measure a set of sentences on this model first)");
}

TEST_CASE("importance set in the app: a preset set offered for its model, measured as the CLI measures it") {
  AppState app;
  auto file = presets_load(app.assets.dir + "/presets.json");
  REQUIRE_MESSAGE(file.ok(), file.error());
  app.preset_sets = std::move(file->sets);
  REQUIRE(app_use_source(app, ModelSource::demo_coref).ok());
  settle(app);
  // The coreference demo: its two sets and the language models' one.
  std::vector<std::string> ids;
  for (const PresetSet* p : importance_set_presets(app)) ids.push_back(p->id);
  CHECK(ids == std::vector<std::string>{"coref_kind", "trophy", "ioi"});
  CHECK(importance_set_use_preset(app, "nope").error() == "no preset set 'nope' (presets.json has 3)");
  REQUIRE(importance_set_use_preset(app, "coref_kind"));
  CHECK(app.importance_set.sentences.size() == 20);
  CHECK(app.importance_set.sentences[2].line == 3);
  CHECK(app.importance_set.sentences[2].text == "The horse refused to cross the bridge because it was too scared.");
  CHECK(importance_set_source_name(app, Lang::en) == "The animal … tired / wide, twenty of its kind (coreference demo)");
  CHECK(has(importance_set_source_name(app, Lang::ko), "같은 종류 스무 문장"));
  REQUIRE(importance_set_start(app));
  for (int i = 0; i < 6000 && app.importance_set.job.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    app_update(app);
  }
  const ImportanceSetGrid* g = importance_set_shown(app);
  REQUIRE(g);
  // Layer 1 head 3 (layer 0 head 2) decides 8 of the 20 (the agent's properties: tired, hungry, weak, ...);
  // layer 1 head 1 two more (scared): the single sentence's grid was one sentence.
  CHECK(g->best_layer == 0);
  CHECK(g->best_head == 2);
  CHECK(g->answer_changes[0][2] == 8);
  CHECK(g->answer_changes[0][0] == 2);
  auto core = importance_set(*app.trace_model, app.importance_set.sentences);
  REQUIRE(core.ok());
  CHECK(g->mean == core->mean);
  // Another demo: only the set for no model in particular is offered.
  REQUIRE(app_use_source(app, ModelSource::demo_induction).ok());
  settle(app);
  ids.clear();
  for (const PresetSet* p : importance_set_presets(app)) ids.push_back(p->id);
  CHECK(ids == std::vector<std::string>{"ioi"});
}

}  // namespace
}  // namespace attnviz
