// The desktop app's state without a window: app_update sends edits to the worker and installs the
// results, the Compare view's maps are derived headless, sessions round-trip (enums saved by name),
// each view's reset() and the file actions — everything a frame would do but drawing.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "analysis/coref_readout.h"
#include "analysis/export.h"
#include "analysis/generate.h"
#include "analysis/word_view.h"
#include "base/file_io.h"
#include "demos/induction_demo.h"
#include "io/model_open.h"
#include "io/session.h"
#include "model/head_map.h"
#include "state/answer_text.h"
#include "state/app_busy.h"
#include "state/app_memory.h"
#include "state/app_state.h"
#include "state/attention_source.h"
#include "state/file_actions.h"
#include "state/model_source.h"
#include "state/options.h"
#include "state/views.h"
#include "support/app_settle.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "views/coref/coref_state.h"

namespace attnviz {
namespace {

// A small sandbox so each forward takes milliseconds.
void small_sandbox(AppState& app) {
  app.config.d_model = 16;
  app.config.n_heads = 4;
  app.config.n_layers = 2;
  app.config.d_ff = 32;
  app.sentence = "The animal didn't cross the street because it was too tired.";
  app.dirty = true;
}

TEST_CASE("app state: an edit reaches the engine and its trace is installed, without a display") {
  AppState app;
  small_sandbox(app);
  settle(app);
  REQUIRE(app.trace);
  CHECK(app.error.empty());
  CHECK(app.trace->config.n_heads == 4);
  CHECK(app.trace->n_queries() == 12);  // the word tokenizer keeps "didn't" whole and splits off the full stop
  CHECK(app.lines.hidden.size() == 4);  // the Lines view's switches follow the head count
  const uint64_t v = app.trace_version;
  app.config.n_heads = 2;
  app.dirty = true;
  settle(app);
  CHECK(app.trace->config.n_heads == 2);
  CHECK(app.trace_version > v);
}

TEST_CASE("app state: a refused edit keeps the previous trace and says why") {
  AppState app;
  small_sandbox(app);
  settle(app);
  REQUIRE(app.trace);
  app.config.d_model = 7;  // not divisible by 4 heads
  app.dirty = true;
  settle(app);
  CHECK(app.trace->config.d_model == 16);
  CHECK(app.error.find("not divisible") != std::string::npos);
}

TEST_CASE("app state: after a refused edit, opening Compare or Coreference says why instead of computing forever") {
  // Found by driving the app with random actions: every frame asked for B again, the worker
  // refused it again, and the views showed "computing…" at ~150% CPU until the next edit.
  for (const View view : {View::compare, View::coref}) {
    CAPTURE(static_cast<int>(view));
    AppState app;
    small_sandbox(app);
    settle(app);
    REQUIRE(app.trace);
    app.config.d_model = 7;  // refused: not divisible by 4 heads
    app.dirty = true;
    settle(app);
    REQUIRE(!app.error.empty());
    app.view = view;
    app.compare.mode = CompareMode::sentence_b;
    const uint64_t posted = app.posted_id;
    for (int frame = 0; frame < 50; ++frame) {
      app_update(app);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(app.posted_id <= posted + 1);  // at most one more request, not one per frame
    settle(app);
    CHECK_FALSE(app_computing(app));
    CHECK(app_busy_text(app) == "idle");  // what the soak test's `expect idle` checks
    CHECK(app.error_b.find("not divisible") != std::string::npos);  // the view shows why B is missing
    CHECK(app.trace->config.d_model == 16);                          // the previous result stays
    // A setting the engine accepts brings B back.
    app.config.d_model = 16;
    app.dirty = true;
    settle(app);
    CHECK(app.error.empty());
    CHECK(app.error_b.empty());
    CHECK(app.trace_b);
  }
}

TEST_CASE("app busy: names what is in flight or awaited, and nothing once the app has settled") {
  AppState app;
  small_sandbox(app);
  const std::string fresh = app_busy_text(app);  // nothing sent yet, nothing shown
  CHECK(fresh.find("an edit not yet sent to the engine") != std::string::npos);
  CHECK(fresh.find("no trace and no error") != std::string::npos);
  settle(app);
  CHECK(app_busy(app).empty());
  app.view = View::compare;  // B is needed and not asked for yet: the view would say computing…
  app.compare.mode = CompareMode::sentence_b;
  CHECK(app_busy_text(app).find("trace B for the compare view") != std::string::npos);
  settle(app);
  CHECK(app.trace_b);
  CHECK(app_busy_text(app) == "idle");
}

TEST_CASE("app state: the Compare view's B and difference maps are derived without drawing") {
  AppState app;
  small_sandbox(app);
  app.view = View::compare;
  app.compare.mode = CompareMode::sentence_b;
  app.compare.sentence = "The animal didn't cross the street because it was too wide.";
  settle(app);
  REQUIRE(app.trace);
  REQUIRE(app.trace_b);
  const CompareMaps& cm = app.compare.maps;
  REQUIRE(cm.a.size() == 4);
  REQUIRE(cm.b.size() == 4);
  REQUIRE(cm.diff.size() == 4);
  // Copies: the next settle() replaces both traces, and references into them would dangle.
  const Mat a0 = app.trace->head(0, 0).weights_kept;
  const Mat b0 = app.trace_b->head(0, 0).weights_kept;
  CHECK((cm.diff[0] - (a0 - b0)).cwiseAbs().maxCoeff() == 0.0f);
  CHECK((a0 - b0).cwiseAbs().maxCoeff() > 0.0f);  // "tired" vs "wide" changes the weights

  // 1 head vs N heads: B has one head; A's average comes last, and the difference is average − B.
  app.compare.mode = CompareMode::single_vs_multi;
  app.trace_b.reset();
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace_b);
  CHECK(app.trace_b->config.n_heads == 1);
  REQUIRE(app.compare.maps.a.size() == 5);
  Mat avg = Mat::Zero(a0.rows(), a0.cols());
  for (int h = 0; h < 4; ++h) avg += app.trace->head(0, h).weights_kept;
  avg /= 4.0f;
  CHECK((app.compare.maps.a.back() - avg).cwiseAbs().maxCoeff() < 1e-6f);
  // Each of A's heads minus B's one head, then their average minus it.
  REQUIRE(app.compare.maps.diff.size() == 5);
  CHECK(app.compare.maps.diff_titles.at(0) == "A – B · 1");
  CHECK((app.compare.maps.diff[1] - (app.trace->head(0, 1).weights_kept - app.trace_b->head(0, 0).weights_kept)).cwiseAbs().maxCoeff() < 1e-6f);
  CHECK(app.compare.maps.diff_titles.back() == "average – B");
  CHECK((app.compare.maps.diff.back() - (avg - app.trace_b->head(0, 0).weights_kept)).cwiseAbs().maxCoeff() < 1e-6f);
}

TEST_CASE("app state: sessions round-trip, with enums saved by name") {
  AppState app;
  small_sandbox(app);
  app.view = View::steps;
  app.lang = Lang::ko;
  app.compare.mode = CompareMode::masked_vs_unmasked;
  app.layer = 1;
  app.hangul.on = true;
  app.translate.text = "the dog saw the cat .";
  app.translate.variant = translate_variant_from_id("score_additive");
  const Session s = app_capture_session(app);
  CHECK(s.ui.at("view") == "steps");
  CHECK(s.ui.at("translate_sentence") == "the dog saw the cat .");
  CHECK(s.ui.at("translate_model") == "score_additive");
  CHECK(s.ui.at("hangul_typing") == "1");
  CHECK(s.ui.at("language") == "ko");
  CHECK(s.ui.at("compare_mode") == "masked_vs_unmasked");
  CHECK(s.ui.at("model_source") == "sandbox");

  AppState other;
  other.heads.zoom_head = 3;
  other.steps.step = 7;
  REQUIRE(app_apply_session(other, s).ok());
  CHECK(other.view == View::steps);
  CHECK(other.lang == Lang::ko);
  CHECK(other.hangul.on);
  CHECK(other.translate.text == "the dog saw the cat .");
  CHECK(other.translate.variant == 3);
  CHECK(other.compare.mode == CompareMode::masked_vs_unmasked);
  CHECK(other.config.d_model == 16);
  CHECK(other.layer == 1);
  CHECK(other.heads.zoom_head == -1);  // the views start afresh with the session
  CHECK(other.steps.step == 0);
  CHECK(other.dirty);
}

TEST_CASE("app state: a bad session changes nothing and names what is wrong") {
  AppState app;
  small_sandbox(app);
  Session s = app_capture_session(app);
  // Sessions written before modes were saved by name keep opening.
  s.ui["compare_mode"] = "1";
  REQUIRE(app_apply_session(app, s).ok());
  CHECK(app.compare.mode == CompareMode::single_vs_multi);

  app.heads.zoom_head = 2;
  s.ui["compare_mode"] = "sideways";
  CHECK(app_apply_session(app, s).error() == "session: unknown compare mode 'sideways'");
  s.ui["compare_mode"] = "sentence_b";
  s.ui["view"] = "gallery";
  CHECK(app_apply_session(app, s).error() == "session: unknown view 'gallery'");
  s.ui["view"] = "heads";
  s.ui["langauge"] = "ko";  // a typo must not fall back to the default silently
  CHECK(
      app_apply_session(app, s).error() ==
      "session: ui: unknown key 'langauge' (known: view, language, colormap, compare_sentence, compare_mode, annotate, "
      "measure, ablated, ablation, model_source, model_path, sentence_b, demo_arch, hangul_typing, translate_sentence, "
      "translate_model, color_scale, first_aside)");
  s.ui.erase("langauge");
  s.ui["translate_model"] = "score_cosine";
  CHECK(app_apply_session(app, s).error() == "session: unknown translate_model 'score_cosine'");
  s.ui["translate_model"] = "bottleneck";
  s.ui["hangul_typing"] = "yes";
  CHECK(app_apply_session(app, s).error() == "session: hangul_typing is 'yes', not 0 or 1");
  s.ui["hangul_typing"] = "0";
  s.ui["demo_arch"] = "heads=2";
  CHECK(app_apply_session(app, s).error() == "session: demo_arch needs model_source coref or induction");
  s.ui["model_source"] = "induction";
  s.ui["demo_arch"] = "heads=2 layers=3 depth=9";
  CHECK(app_apply_session(app, s).error() ==
        "session: demo_arch: unknown key 'depth' (heads, d_model, layers, ffn, score, norm, positions, seed)");
  s.ui["demo_arch"] = "heads=3";
  CHECK(app_apply_session(app, s).error() == "session: demo_arch: d_model must be divisible by heads");
  s.ui["demo_arch"] = "layers=5";
  CHECK(app_apply_session(app, s).error() == "session: demo_arch: bad value for layers: '5'");
  CHECK(app.heads.zoom_head == 2);  // nothing was touched
  CHECK(app.compare.mode == CompareMode::single_vs_multi);
  CHECK(app.source == ModelSource::sandbox);
}

TEST_CASE("app state: a session keeps a trained demo's architecture and reopens on it") {
  test::TempFile cache("attnviz_session_arch");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  AppState app;
  REQUIRE(app_use_source(app, ModelSource::demo_coref).ok());
  DemoJob grid{ModelSource::demo_coref, app.retrain.coref};
  grid.arch.n_heads = 8;
  demo_retrain_request(app, grid);  // shipped in the grid: shown at once
  REQUIRE(app.model->source == "assets/demo_coref_grid/heads8_dmodel32");
  const Session s = app_capture_session(app);
  CHECK(s.ui.at("demo_arch") ==
        "heads=8 d_model=32 layers=2 ffn=0 score=scaled_dot norm=pre positions=learned seed=78");
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());
  REQUIRE(app_apply_session(app, session_from_json(session_to_json(s)).value()).ok());
  CHECK(app.source == ModelSource::demo_coref);
  CHECK(app.retrain.coref.n_heads == 8);
  CHECK(app.model->source == "assets/demo_coref_grid/heads8_dmodel32");
  CHECK_FALSE(app.retrain.training);
  // The shipped architecture writes it too, and a session without it opens the shipped one.
  REQUIRE(app_use_source(app, ModelSource::demo_induction).ok());
  Session shipped = app_capture_session(app);
  CHECK(shipped.ui.at("demo_arch") ==
        "heads=2 d_model=32 layers=2 ffn=0 score=scaled_dot norm=pre positions=learned seed=1");
  shipped.ui.erase("demo_arch");
  REQUIRE(app_apply_session(app, shipped).ok());
  CHECK(app.model->source == "assets/demo_induction");
  unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("app state: every view's reset() returns it to how it first opens") {
  AppState app;
  app.heads.zoom_head = 1;
  app.heads.viewport.zoom = 4;
  app.lines.hidden = {1, 0};
  app.compare.mode = CompareMode::scaled_vs_unscaled;
  app.compare.sentence = "x";
  app.steps.step = 5;
  app.stats.sort_column = 3;
  app.coref.pair_layer = 1;
  app.train.tab = TrainTab::compare;
  app.train.message = "saved";
  app_reset_views(app);
  CHECK(app.heads.zoom_head == -1);
  CHECK(app.heads.viewport.zoom == 1.0f);
  CHECK(app.lines.hidden.empty());
  CHECK(app.compare.mode == CompareMode::sentence_b);
  CHECK(app.compare.sentence == CompareState{}.sentence);
  CHECK(app.steps.step == 0);
  CHECK(app.stats.sort_column == 0);
  CHECK(app.coref.pair_layer == -1);
  CHECK(app.train.tab == TrainTab::run);
  CHECK(app.train.message.empty());
}

TEST_CASE("app state: view ids and compare mode names go both ways") {
  for (View v : kAllViews) {
    View back = View::train;
    REQUIRE(view_from_id(view_id(v), back));
    CHECK(back == v);
  }
  View unchanged = View::lines;
  CHECK_FALSE(view_from_id("Heads", unchanged));
  CHECK(unchanged == View::lines);
  for (CompareMode m : kAllCompareModes) CHECK(compare_mode_from_name(compare_mode_name(m)) == m);
  CHECK_FALSE(compare_mode_from_name("0").has_value());
}

TEST_CASE("app state: file actions export the shown trace and report into the status bar") {
  AppState app;
  small_sandbox(app);
  settle(app);
  REQUIRE(app.trace);
  const auto dir = std::filesystem::temp_directory_path() / "attnviz_test_app_state";
  std::filesystem::create_directories(dir);
  REQUIRE(app_export_csv(app, (dir / "head.csv").string()).ok());
  CHECK(std::filesystem::file_size(dir / "head.csv") > 100);
  REQUIRE(app_save_session(app, (dir / "s.json").string()).ok());
  CHECK(app.status == "Saved " + (dir / "s.json").string());
  CHECK_FALSE(app.status_is_error);
  CHECK_FALSE(app_open_session(app, (dir / "missing.json").string()).ok());
  CHECK(app.status_is_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

void settle_importance(AppState& app) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (app.importance.busy() && std::chrono::steady_clock::now() < deadline) {
    app_update(app);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  app_update(app);
}

}  // namespace

TEST_CASE("app state: heads switched off change the answer, come back on, and sessions keep them") {
  AppState app;
  app_open_on_meaning(app);
  app.sentence = "The animal didn't cross the street because it was too tired.";
  app.dirty = true;
  settle(app);
  REQUIRE(app.answer);
  CHECK(app.answer->coref.referent_text == "animal");
  CHECK_FALSE(app.answer_full);  // nothing is off: no before/after
  // Layer 0 head 2 reads "tired" into "it"; head 3 hardly matters.
  CHECK(app_toggle_head(app, 0, 2));
  CHECK(app_toggle_head(app, 0, 3));
  CHECK_FALSE(app_toggle_head(app, 2, 0));  // the demo has layers 0 and 1
  settle(app);
  REQUIRE(app.answer);
  REQUIRE(app.answer_full);
  CHECK(app.answer->coref.referent_text == "street");
  CHECK(app.answer_full->coref.referent_text == "animal");
  CHECK(app.trace->head(0, 2).ablated);
  CHECK(app.trace->head(0, 3).ablated);
  CHECK_FALSE(app.trace->head(0, 0).ablated);
  CHECK_FALSE(app.trace->head(1, 0).ablated);

  app.measure = AttentionMeasure::rollout;
  const Session s = app_capture_session(app);
  CHECK(s.ui.at("ablated") == "0:2,0:3");
  CHECK(s.ui.at("ablation") == "zero");
  CHECK(s.ui.at("measure") == "rollout");
  AppState other;
  REQUIRE(app_apply_session(other, s).ok());
  CHECK(other.ablation.heads == app.ablation.heads);
  CHECK(other.measure == AttentionMeasure::rollout);
  Session bad = s;
  bad.ui["ablated"] = "0:x";
  CHECK(app_apply_session(other, bad).error().find("ablated: '0:x' is not a head") != std::string::npos);
  bad = s;
  bad.ui["measure"] = "size";
  CHECK(app_apply_session(other, bad).error().find("unknown measure 'size'") != std::string::npos);

  // Rollout maps are derived once per trace; every head of a layer shows that layer's rollout.
  settle(app);
  REQUIRE(app.maps.maps.size() == 8);
  CHECK(*app_head_map(app, 1, 0) == *app_head_map(app, 1, 3));
  CHECK(app.maps.error.empty());
  CHECK(app_map_per_layer(app));  // so the views draw it once per layer
  app.measure = AttentionMeasure::value_norm;
  settle(app);
  CHECK_FALSE(app_map_per_layer(app));
  CHECK(app_head_map(app, 1, 0) != app_head_map(app, 1, 3));
  AppState cross;  // rollout is not defined across a source: the heads' own weights, each drawn apart
  cross.cross = true;
  cross.measure = AttentionMeasure::rollout;
  cross.dirty = true;
  settle(cross);
  REQUIRE(cross.trace);
  CHECK(test::has(cross.maps.error, "not defined for cross-attention"));
  CHECK_FALSE(app_map_per_layer(cross));
  CHECK(*app_head_map(cross, 0, 1) == cross.trace->head(0, 1).weights_kept);

  // Another model starts with every head on (the switched-off heads were the demo's), and says so.
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());
  CHECK(app.ablation.heads.empty());
  CHECK(test::has(app.status, "every head is on again (off before: L1 H3, L1 H4)"));
  app.config = ModelConfig{};
  app.config.n_heads = 4;
  app.dirty = true;
  settle(app);
  CHECK(app_toggle_head(app, 0, 0));
  CHECK(app_toggle_head(app, 0, 3));
  settle(app);
  CHECK(app.trace->head(0, 3).ablated);
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());  // the sandbox again: the same model, the same heads off
  CHECK(app.ablation.heads.size() == 2);
  // A smaller model drops the heads it no longer has, and says so.
  app.config = ModelConfig{};
  app.config.d_model = 16;
  app.config.n_heads = 2;
  app.config.n_layers = 1;
  app.dirty = true;
  settle(app);
  CHECK(app.error.empty());
  CHECK(app.ablation.heads == std::vector<HeadRef>{HeadRef{0, 0}});
  CHECK(app.status.find("no longer has") != std::string::npos);
}

TEST_CASE("app state: sentence B follows A while it is A's minimal pair, a letter at a time too") {
  const std::string tired = "The animal didn't cross the street because it was too tired.";
  const std::string wide = "The animal didn't cross the street because it was too wide.";
  AppState app;
  app_open_on_meaning(app);
  app.view = View::coref;  // the view that shows the pair: B is computed
  settle(app);
  REQUIRE(app.sentence == tired);
  REQUIRE(app.compare.sentence == wide);  // the pair, as the app opens
  // "tired" typed over with "wide": B becomes the "tired" sentence instead of A's twin.
  for (const char* step : {"The animal didn't cross the street because it was too .",
                           "The animal didn't cross the street because it was too wi.", wide.c_str()}) {
    app.sentence = step;
    app.dirty = true;
    app_update(app);
  }
  settle(app);
  CHECK(app.compare.sentence == tired);
  REQUIRE(app.trace_b);
  CHECK(app.trace_b->keys[10].text == "tired");  // B's trace is the new B
  // "Make B the main sentence" swaps them, and B stays the pair without following anything.
  coref_swap_sentences(app);
  settle(app);
  CHECK(app.sentence == tired);
  CHECK(app.compare.sentence == wide);
  // A B typed by hand is the person's: it stays when A changes.
  app.compare.sentence = "The trophy didn't fit in the suitcase because it was too big.";
  app.sentence = wide;
  app.dirty = true;
  settle(app);
  CHECK(app.compare.sentence == "The trophy didn't fit in the suitcase because it was too big.");
}

TEST_CASE("app state: which heads matter runs off the UI thread and belongs to its trace") {
  AppState app;
  app_open_on_meaning(app);
  settle(app);
  app_start_importance(app);
  settle_importance(app);
  const ImportanceGrid* g = app_importance(app);
  REQUIRE(g);
  CHECK(g->answer.coref.referent_text == "animal");
  CHECK(g->drop.size() == 2);
  CHECK(g->best_layer == 0);
  CHECK(g->best_head == 2);
  CHECK(importance_changes_answer(*g));  // the panel's legend then explains the * on that cell
  // The app opens on a head of layer 2 that sends "it" to "animal", and the head that decides
  // (layer 1 head 3) reads "tired" into "it".
  const auto scores = coref_head_scores(*app.trace, coref_make(app.sentence));
  REQUIRE(scores.ok());
  const size_t NH = static_cast<size_t>(app.trace->config.n_heads);
  CHECK(app.layer == 1);
  CHECK((*scores)[static_cast<size_t>(app.layer) * NH + static_cast<size_t>(app.head)].resolves);
  CHECK((*scores)[2].reads_property);
  app.sentence = "The animal didn't cross the street because it was too tired!";
  app.dirty = true;
  settle(app);
  CHECK(app_importance(app) == nullptr);  // a new trace: the old grid is not shown for it
  // The sandbox has no output head: the grid says why instead.
  app_use_source(app, ModelSource::sandbox);
  small_sandbox(app);
  settle(app);
  CHECK_FALSE(app.answer);
  CHECK(app.answer_error == NoAnswer{NoAnswerReason::no_output_head, {}});
  app_start_importance(app);
  settle_importance(app);
  REQUIRE(app.importance_result);
  CHECK(app.importance_result->error == NoAnswer{NoAnswerReason::no_output_head, {}});
}

}  // namespace attnviz

namespace attnviz {

namespace {
// The coreference demo shown, then asked for an architecture that is neither shipped nor cached
// (3 layers with an FFN), so it starts training; returns that architecture.
DemoJob start_slow_retrain(AppState& app) {
  REQUIRE(app_use_source(app, ModelSource::demo_coref).ok());
  DemoJob slow{ModelSource::demo_coref, app.retrain.coref};
  slow.arch.n_layers = 3;
  slow.arch.d_ff = 64;
  demo_retrain_request(app, slow);
  return slow;
}
}  // namespace

TEST_CASE("app state: the coreference demo retrains on a toggle, a newer change cancels the older run") {
  test::TempFile cache("attnviz_retrain_cache");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  AppState app;
  const DemoJob slow = start_slow_retrain(app);
  CHECK(app.retrain.training);
  CHECK(app.model->source == "assets/demo_coref");  // the views keep the previous model meanwhile
  DemoJob quick{ModelSource::demo_coref, demo_shipped_arch(ModelSource::demo_coref)};  // the shipped one with one layer
  quick.arch.n_layers = 1;
  demo_retrain_request(app, quick);  // the newer change: the slow run stops
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (app.retrain.training && std::chrono::steady_clock::now() < deadline) {
    app_update(app);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE_FALSE(app.retrain.training);
  CHECK(app.model->config.n_layers == 1);
  REQUIRE(app.retrain.outcome);
  CHECK(app.retrain.outcome->reached());
  CHECK(app.retrain.outcome->arch == "heads4_dmodel32_layers1");
  CHECK(retrain_outcome_text(*app.retrain.outcome, Lang::en).find("held-out after") != std::string::npos);
  CHECK(std::filesystem::exists(demo_cache_dir(quick) + "/model.safetensors"));
  CHECK_FALSE(std::filesystem::exists(demo_cache_dir(slow)));
  // Kept under the trainer's revision: an older trainer's model for the same key is not taken.
  CHECK(demo_cache_dir(quick) == cache.path() + "/attnviz/coref/trainer-" + std::to_string(kDemoTrainerRevision) +
                                     "/heads4_dmodel32_layers1_seed78");
  // Shipped grid cells and the cache answer at once; nothing trains.
  DemoJob grid = quick;
  grid.arch.n_layers = 2;
  grid.arch.n_heads = 8;
  grid.arch.d_model = 32;
  demo_retrain_request(app, grid);
  CHECK_FALSE(app.retrain.training);
  CHECK(app.model->source == "assets/demo_coref_grid/heads8_dmodel32");
  demo_retrain_request(app, quick);
  CHECK_FALSE(app.retrain.training);
  CHECK(app.model->config.n_layers == 1);
  unsetenv("XDG_CACHE_HOME");
}

namespace {
// app_update until the demo's run (or its 1-head twin's) is over, at most a minute.
void wait_for_retrain(AppState& app) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while ((app.retrain.training || app.retrain.twin_training) && std::chrono::steady_clock::now() < deadline) {
    app_update(app);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE_FALSE(app.retrain.training);
  REQUIRE_FALSE(app.retrain.twin_training);
}
}  // namespace

TEST_CASE("app state: the induction demo retrains on a toggle too, and says why one layer cannot do it") {
  test::TempFile cache("attnviz_retrain_induction");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  AppState app;
  REQUIRE(app_use_source(app, ModelSource::demo_induction).ok());
  CHECK(app.retrain.induction == demo_shipped_arch(ModelSource::demo_induction));
  // One head a layer: the quickest to train (one training in this test: it runs under the sanitizers).
  DemoJob one{ModelSource::demo_induction, app.retrain.induction};
  one.arch.n_heads = 1;
  demo_retrain_request(app, one);
  CHECK(app.retrain.training);
  CHECK(app.model->source == "assets/demo_induction");  // the views keep the previous model meanwhile
  wait_for_retrain(app);
  CHECK(app.source == ModelSource::demo_induction);
  CHECK(app.model->config.n_heads == 1);
  CHECK(app.model->source == "trained: induction heads1_dmodel32");
  REQUIRE(app.retrain.outcome);
  CHECK(app.retrain.outcome->reached());  // its answers and an induction head past layer 0
  CHECK(demo_cache_dir(one) ==
        cache.path() + "/attnviz/induction/trainer-" + std::to_string(kDemoTrainerRevision) + "/heads1_dmodel32_seed1");
  CHECK(std::filesystem::exists(demo_cache_dir(one) + "/model.safetensors"));
  // Back to the shipped one, found at once; Compare's 1 head vs N heads then takes the 1-head model
  // of its architecture, the one just trained, from memory.
  const DemoJob shipped{ModelSource::demo_induction, demo_shipped_arch(ModelSource::demo_induction)};
  demo_retrain_request(app, shipped);
  CHECK_FALSE(app.retrain.training);
  CHECK(app.model->source == "assets/demo_induction");
  const auto twin = demo_single_head(app);
  REQUIRE(twin);
  CHECK(twin->source == "trained: induction heads1_dmodel32");
  CHECK_FALSE(app.retrain.twin_training);
  // One layer: refused at once with the reason, in the UI's language; the model shown stays, and so
  // does its architecture in the Model panel.
  DemoJob single_layer = shipped;
  single_layer.arch.n_layers = 1;
  demo_retrain_request(app, single_layer);
  CHECK_FALSE(app.retrain.training);
  REQUIRE(app.retrain.outcome);
  CHECK_FALSE(app.retrain.outcome->reached());
  CHECK(retrain_outcome_text(*app.retrain.outcome, Lang::en)
            .find("induction heads2_dmodel32_layers1: an induction head "
                  "needs 2 layers or more.") == 0);
  CHECK(retrain_outcome_text(*app.retrain.outcome, Lang::ko).find("레이어가 2개 이상 필요합니다") != std::string::npos);
  CHECK(app.model->config.n_layers == 2);
  CHECK(app.retrain.induction == shipped.arch);
  // The coreference demo kept its own architecture meanwhile.
  CHECK(app.retrain.coref == demo_shipped_arch(ModelSource::demo_coref));
  // Undo and redo walk the architecture too, each model found in memory at once.
  history_track(app, 0.0);
  demo_retrain_request(app, one);
  CHECK_FALSE(app.retrain.training);
  history_track(app, 1.0);
  REQUIRE(history_undo(app));
  CHECK(app.retrain.induction == shipped.arch);
  CHECK(app.model->source == "assets/demo_induction");
  REQUIRE(history_redo(app));
  CHECK(app.retrain.induction.n_heads == 1);
  CHECK(app.model->config.n_heads == 1);
  CHECK_FALSE(app.retrain.training);
  unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("app state: a run's ending is done on its training thread: named, cached once met, a shortfall explained") {
  // demo_retrain_poll only installs what demo_run_ending left: a frame never saves or traces.
  test::TempFile cache("attnviz_run_ending");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  const DemoJob job{ModelSource::demo_induction, demo_shipped_arch(ModelSource::demo_induction)};
  InductionTrainOptions o = induction_options(job.arch);
  o.max_steps = 50;  // far short of an induction head
  auto run = induction_train(o);
  REQUIRE(run.ok());
  REQUIRE_FALSE(run->history.back().target_reached);
  RetrainOutcome ending;
  demo_run_ending(job, *run, ending);
  CHECK(run->model.source == "trained: induction heads2_dmodel32");
  CHECK_FALSE(std::filesystem::exists(demo_cache_dir(job)));  // short of its target: not cached
  const auto scores = induction_scores(run->model, o.seed, o.length, o.segment_length);
  REQUIRE(scores.ok());
  CHECK(ending.head_layer == 1);  // past layer 0, where an induction head can be
  CHECK(ending.head_layer == scores->best_on_repeat_layer);
  CHECK(ending.head == scores->best_on_repeat_head);
  CHECK(ending.head_on_repeat == scores->best_on_repeat);
  CHECK(ending.head_on_repeat < o.target);
  CHECK(ending.head_target == doctest::Approx(0.95));
  CHECK(ending.head_general_target == doctest::Approx(0.8));
  // The same run said to have met its target: cached, and read back with the same weights.
  run->history.back().target_reached = true;
  RetrainOutcome met;
  demo_run_ending(job, *run, met);
  CHECK(met.head_layer == -1);  // nothing to explain
  auto back = model_open(demo_cache_dir(job));
  REQUIRE(back.ok());
  CHECK((back->weights.layers[1].attn.out_w.array() == run->model.weights.layers[1].attn.out_w.array()).all());
  unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("app state: older trainers' models leave the disk cache, this build's and a newer one's stay") {
  test::TempFile cache("attnviz_cache_prune");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  namespace fs = std::filesystem;
  const fs::path root = fs::path(cache.path()) / "attnviz";
  const std::string now = "trainer-" + std::to_string(kDemoTrainerRevision);
  const std::string newer = "trainer-" + std::to_string(kDemoTrainerRevision + 1);
  const std::vector<fs::path> old = {root / "coref" / "trainer-1" / "heads4_dmodel32_layers1_seed26",
                                     root / "coref" / "trainer-2" / "heads1_dmodel32_seed26",
                                     root / "induction" / "trainer-2" / "heads1_dmodel32_seed1",
                                     root / "coref" / "heads4_dmodel32_layers3_seed26"};  // before revisions
  const std::vector<fs::path> kept = {root / "coref" / now / "heads4_dmodel32_layers1_seed26",
                                      root / "induction" / newer / "heads1_dmodel32_seed1",
                                      root / "coref" / "notes"};  // not ours to judge
  for (const auto& dirs : {old, kept})
    for (const fs::path& d : dirs) {
      fs::create_directories(d);
      REQUIRE(file_write_atomic((d / "model.safetensors").string(), std::string_view("x")).ok());
    }
  CHECK(demo_cache_prune() == 4);  // coref trainer-1 and trainer-2, induction trainer-2, the unrevised key
  for (const fs::path& d : old) CHECK_FALSE(fs::exists(d));
  CHECK_FALSE(fs::exists(root / "coref" / "trainer-2"));
  for (const fs::path& d : kept) CHECK(fs::exists(d / "model.safetensors"));
  CHECK(demo_cache_prune() == 0);  // nothing left to do
  unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("app state: leaving the coreference demo while it retrains lets the run go without waiting for it") {
  // Found by the soak test: the frame that noticed the switch joined the training thread, which
  // stops only at its first report (after generating its data): 0.3 s, up to 8 s under the sanitizer.
  test::TempFile cache("attnviz_retrain_leave");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  AppState app;
  start_slow_retrain(app);
  REQUIRE(app.retrain.training);
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());
  const auto start = std::chrono::steady_clock::now();
  demo_retrain_poll(app);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(50));
  CHECK_FALSE(app.retrain.training);
  unsetenv("XDG_CACHE_HOME");
}  // the run, held at its first report, is stopped when AppState goes

TEST_CASE("app state: an attention file is shown without a model, a failed open keeps what is shown") {
  AppState app;
  small_sandbox(app);
  settle(app);
  const auto sandbox_trace = app.trace;
  // A file that is not an attention file: the status bar says why, nothing else changes.
  CHECK_FALSE(app_open_attention(app, test::fixture_path("tiny.safetensors")).ok());
  CHECK(app.status_is_error);
  CHECK(test::has(app.status, "unknown metadata key 'format'"));
  CHECK(app.source == ModelSource::sandbox);
  settle(app);
  CHECK(app.trace == sandbox_trace);

  const std::string path = test::fixture_path("attention/encdec_f32.safetensors");
  REQUIRE(app_open_attention(app, path).ok());
  CHECK(test::has(app.status, "2 layers × 2 heads, 5 tokens"));
  settle(app);
  REQUIRE(app.trace);
  CHECK(app.trace->weights_only);
  CHECK(app.trace->n_queries() == 5);
  CHECK(app.trace->n_keys() == 5);
  CHECK_FALSE(app.answer.has_value());
  CHECK(app.answer_error == NoAnswer{NoAnswerReason::no_model, {}});
  CHECK_FALSE(app_toggle_head(app, 0, 0));  // no model to switch a head off in
  CHECK(app_model_config(app).n_heads == 2);
  app.measure = AttentionMeasure::rollout;  // the weights are enough for rollout: one map per layer
  settle(app);
  CHECK(app_map_per_layer(app));
  CHECK(*app_head_map(app, 1, 0) == *app_head_map(app, 1, 1));
  app.measure = AttentionMeasure::weights;
  app.cross = true;  // the file has cross-attention: its keys are the source tokens
  app.dirty = true;
  settle(app);
  CHECK(app.trace->cross);
  CHECK(app.trace->n_keys() == 4);
  // Compare: a hint until a second file is opened as B, then B is that file.
  app.cross = false;
  app.view = View::compare;
  app.dirty = true;
  settle(app);
  CHECK_FALSE(app.trace_b);
  CHECK(test::has(app.error_b, "Open attention as B"));
  REQUIRE(app_open_attention_b(app, test::fixture_path("attention/encoder_f16.safetensors")).ok());
  settle(app);
  REQUIRE(app.trace_b);
  CHECK(app.trace_b->n_queries() == 9);
  CHECK(view_needs_model(View::steps));
  CHECK_FALSE(view_needs_model(View::heads));

  // A session keeps the file and reopens it.
  const Session s = app_capture_session(app);
  CHECK(s.ui.at("model_source") == "attention");
  CHECK(s.ui.at("model_path") == path);
  AppState other;
  REQUIRE(app_apply_session(other, s).ok());
  settle(other);
  REQUIRE(other.trace);
  CHECK(other.trace->weights_only);
  CHECK(other.trace->n_queries() == 5);
  // Going back to a model forgets the file.
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());
  settle(app);
  CHECK_FALSE(app.trace->weights_only);
  CHECK_FALSE(app.attention);
}

TEST_CASE("app state: a dropped path opens by what it is, an unknown one only says so") {
  CHECK(path_kind(test::fixture_path("attention/encoder_f16.safetensors")) == PathKind::attention);
  CHECK(path_kind(test::fixture_path("tiny.safetensors")) == PathKind::model);
  CHECK(path_kind(test::fixture_path("hf/gpt2_tiny")) == PathKind::model);
  CHECK(path_kind(test::fixture_path("attention/reference.json")) == PathKind::session);
  CHECK(path_kind(test::fixture_path("make_attention_files.py")) == PathKind::unknown);
  CHECK(path_kind(test::fixture_path("no-such-file")) == PathKind::unknown);
  AppState app;
  small_sandbox(app);
  settle(app);
  app_open_path(app, test::fixture_path("make_attention_files.py"));
  CHECK(app.status_is_error);
  CHECK(test::has(app.status, "not a checkpoint folder"));
  app_open_path(app, test::fixture_path("attention/reference.json"));  // JSON, but not a session
  CHECK(app.status_is_error);
  CHECK(app.source == ModelSource::sandbox);
  app_open_path(app, test::fixture_path("attention/encoder_f16.safetensors"));
  CHECK(app.source == ModelSource::attention);
  app_open_path(app, test::fixture_path("hf/gpt2_tiny"));  // off the UI thread, as the Open button
  settle(app);
  CHECK(app.source == ModelSource::file);
  CHECK(test::has(app.trace->model_source, "gpt2_tiny"));
}

}  // namespace attnviz

namespace attnviz {

TEST_CASE("app state: Generate appends the greedy tokens one trace at a time, as ids, and an edit ends the run") {
  AppState app;
  const std::string llama = test::fixture_path("families/llama3_tokenized");
  REQUIRE(app_use_source(app, ModelSource::file, llama).ok());
  settle(app);
  app.sentence = "The animal didn't cross the street because";
  app.dirty = true;
  settle(app);
  REQUIRE(app_can_generate(app));
  const int prompt = app.trace->n_queries();
  REQUIRE(app_generate(app, 5));
  settle(app);
  CHECK(app.generation.remaining == 0);
  CHECK(app_generated_tokens(app) == 5);
  CHECK(app.trace->n_queries() == prompt + 5);
  CHECK(app.query == prompt + 4);  // the newest token's row is the one shown
  // The same tokens as the engine's own greedy generation.
  GenerateOptions o;
  o.tokens = 5;
  auto g = generate(*app.model, "The animal didn't cross the street because", o);
  REQUIRE(g.ok());
  for (int i = 0; i < app.trace->n_queries(); ++i)
    CHECK(app.trace->queries[static_cast<size_t>(i)].id == g->ids[static_cast<size_t>(i)]);
  CHECK(app.trace->reused_rows == prompt + 4);  // the last step computed its new row only
  // Typing in the sentence box ends the run: the text is tokenized again.
  app.sentence += " then";
  app.dirty = true;
  settle(app);
  CHECK(app_generated_tokens(app) == 0);
  CHECK(app.generation.ids.empty());
  // The sandbox cannot generate.
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());
  CHECK_FALSE(app_can_generate(app));
  CHECK_FALSE(app_generate(app, 3));
}

}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("app state: the word toggles show words in the weights views, keep the query a piece row, and export words") {
  AppState app;
  REQUIRE(app_use_source(app, ModelSource::file, test::fixture_path("hf/bert_tiny")).ok());
  app.sentence = "The animal didn't cross the street because it was too tired.";
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  const Trace pieces = *app.trace;  // a copy: the next settle() may replace the trace
  REQUIRE(&app_shown_trace(app) == app.trace.get());
  CHECK_FALSE(app_words_shown(app));

  // Merged and without [CLS]/[SEP]: the engine's own word view, and the views' maps follow it.
  app.word_view.merge_pieces = true;
  app.word_view.hide_special = true;
  const uint64_t before = app.shown_version;
  app_update(app);
  REQUIRE(app_words_shown(app));
  CHECK(app.shown_version > before);
  auto want = trace_word_view(pieces, app.word_view);
  REQUIRE(want.ok());
  const Trace& shown = app_shown_trace(app);
  REQUIRE(shown.n_queries() == want->n_queries());
  CHECK(shown.n_queries() < pieces.n_queries());
  for (int l = 0; l < static_cast<int>(shown.layers.size()); ++l)
    for (int h = 0; h < shown.config.n_heads; ++h) {
      CHECK((*app_head_map(app, l, h) - want->head(l, h).weights_kept).cwiseAbs().maxCoeff() == 0.0f);
      // Special tokens hidden: every row sums to 1 again.
      CHECK((shown.head(l, h).weights_kept.rowwise().sum().array() - 1.0f).abs().maxCoeff() < 1e-5f);
    }

  // The chosen query stays a piece row: a shown word row picks its first piece, and back.
  int street = -1;
  for (int i = 0; i < shown.n_queries(); ++i)
    if (shown.queries[static_cast<size_t>(i)].text == "street") street = i;
  REQUIRE(street >= 0);
  app_set_shown_query(app, street);
  REQUIRE(app.query >= 0);
  CHECK(pieces.queries[static_cast<size_t>(app.query)].text == "street");
  CHECK(app_shown_query(app) == street);
  app.query = 0;  // [CLS]: hidden in words
  CHECK(app_shown_query(app) == -1);

  // Another measure shows pieces again (words are for the weights); the toggles come back with it.
  app.measure = AttentionMeasure::rollout;
  app_update(app);
  CHECK_FALSE(app_words_shown(app));
  CHECK(app_shown_trace(app).n_queries() == pieces.n_queries());
  app.measure = AttentionMeasure::weights;
  app_update(app);
  CHECK(app_words_shown(app));

  // Exports write what is shown.
  test::TempFile csv("words.csv");
  REQUIRE(app_export_csv(app, csv.path()).ok());
  auto want_csv = trace_head_csv(*want, app.layer, app.head);
  REQUIRE(want_csv.ok());
  auto written = file_read_bytes(csv.path());
  REQUIRE(written.ok());
  CHECK(std::string(written->begin(), written->end()) == *want_csv);

  // A new sentence is shown in words too; off again, the pieces.
  app.sentence = "The animal didn't cross the street because it was too wide.";
  app.dirty = true;
  settle(app);
  CHECK(app_words_shown(app));
  CHECK(app_shown_trace(app).keys.back().text == ".");
  app.word_view = {};
  app_update(app);
  CHECK_FALSE(app_words_shown(app));
  CHECK(&app_shown_trace(app) == app.trace.get());
}

TEST_CASE("app state: an attention file cannot be shown in words, and says why") {
  AppState app;
  REQUIRE(app_open_attention(app, test::fixture_path("attention/encoder_f16.safetensors")).ok());
  app_update(app);
  REQUIRE(app.trace);
  app.word_view.merge_pieces = true;
  app_update(app);
  CHECK_FALSE(app_words_shown(app));
  CHECK(app.words.error.find("pieces form a word") != std::string::npos);
  CHECK(&app_shown_trace(app) == app.trace.get());
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("app state: undo and redo take back sentence edits and toggles, typing joins one step") {
  AppState app;
  small_sandbox(app);
  history_track(app, 0.0);  // the starting point
  const std::string start = app.sentence;
  // Typing "!" and "?" within a second: one step.
  app.sentence += "!";
  history_track(app, 10.0);
  app.sentence += "?";
  history_track(app, 10.5);
  // A toggle, then more typing much later: two more steps.
  app.mask.causal = true;
  history_track(app, 11.0);
  ablation_toggle(app.ablation, HeadRef{1, 2});
  history_track(app, 11.2);
  app.word_view.merge_pieces = true;
  history_track(app, 11.4);
  app.sentence += " Then";
  history_track(app, 20.0);
  REQUIRE(app.history.undo.size() == 5);

  REQUIRE(history_undo(app));  // the typing of " Then"
  CHECK(app.sentence == start + "!?");
  CHECK(app.word_view.merge_pieces);
  CHECK(app.dirty);
  REQUIRE(history_undo(app));  // the word toggle
  CHECK_FALSE(app.word_view.merge_pieces);
  CHECK(app.ablation.has(1, 2));
  REQUIRE(history_undo(app));  // the head switched off
  CHECK_FALSE(app.ablation.has(1, 2));
  CHECK(app.mask.causal);
  REQUIRE(history_undo(app));  // the mask
  CHECK_FALSE(app.mask.causal);
  CHECK(app.sentence == start + "!?");
  REQUIRE(history_undo(app));  // both keystrokes at once
  CHECK(app.sentence == start);
  CHECK_FALSE(history_undo(app));

  // Redo walks forward again; a new edit clears what could be redone.
  REQUIRE(history_redo(app));
  CHECK(app.sentence == start + "!?");
  REQUIRE(history_redo(app));
  CHECK(app.mask.causal);
  history_track(app, 30.0);  // the frame after a redo records nothing new
  CHECK(app.history.redo.size() == 3);
  app.config.n_heads = 2;
  history_track(app, 31.0);
  CHECK(app.history.redo.empty());
  CHECK_FALSE(history_redo(app));
  REQUIRE(history_undo(app));
  CHECK(app.config.n_heads == 4);

  // The restored state reaches the engine like any edit.
  settle(app);
  REQUIRE(app.trace);
  CHECK(app.trace->config.n_heads == 4);
  CHECK(app.trace->causal);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("app state: the remembered state round-trips, is strict, and a bad file is set aside with a message") {
  test::TempFile dir("attnviz_state_home");
  std::filesystem::create_directories(dir.path());
  REQUIRE(::setenv("XDG_STATE_HOME", dir.path().c_str(), 1) == 0);
  CHECK(app_memory_file() == dir.path() + "/attnviz/state.json");

  AppState app;
  small_sandbox(app);
  app.sentence = "고양이가 매트 위에 앉았다";
  app.mask.causal = true;
  app.view = View::lines;
  app.lang = Lang::ko;
  app.layer = 1;
  app.word_view.hide_special = true;
  ablation_toggle(app.ablation, HeadRef{1, 3});
  AppMemory memory;
  app_memory_tick(memory, app, WindowSize{1400, 900}, 100.0, false);  // changed: waits until still
  CHECK_FALSE(path_is_file(app_memory_file()));
  app_memory_tick(memory, app, WindowSize{1400, 900}, 103.0, false);
  REQUIRE(path_is_file(app_memory_file()));

  AppState back;
  const WindowSize size = app_memory_restore(back);
  CHECK(back.status.empty());
  CHECK(size.width == 1400);
  CHECK(size.height == 900);
  CHECK(back.sentence == app.sentence);
  CHECK(back.mask.causal);
  CHECK(back.view == View::lines);
  CHECK(back.lang == Lang::ko);
  CHECK(back.layer == 1);
  CHECK(back.config.d_model == 16);
  CHECK(back.word_view.hide_special);
  CHECK(back.ablation.has(1, 3));
  CHECK(app_memory_to_json(back, size) == app_memory_to_json(app, size));

  // Unknown keys are named with the known ones; nothing changes.
  auto bad = app_memory_apply(back, R"({"format": "attnviz.state", "version": 1, "session": {}, "windw": {}})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "state: unknown key 'windw' (known: format, version, session, words, window)");
  CHECK(back.sentence == app.sentence);

  // A damaged file: set aside, said in the status bar, and the app starts as it would without it.
  REQUIRE(file_write_atomic(app_memory_file(), std::string_view("{\"format\": \"attnviz.state\", trunc")).ok());
  AppState fresh;
  const std::string before = fresh.sentence;
  CHECK(app_memory_restore(fresh).width == 0);
  CHECK(fresh.sentence == before);
  CHECK(fresh.status_is_error);
  CHECK(fresh.status.find("set aside") != std::string::npos);
  CHECK_FALSE(path_is_file(app_memory_file()));
  CHECK(path_is_file(app_memory_file() + ".corrupt"));
  ::unsetenv("XDG_STATE_HOME");
}

TEST_CASE("app state: in Korean, why there is no answer is said in Korean on the answer line, the grid and Coreference") {
  AppState app;
  app.lang = Lang::ko;
  // The random sandbox has no output head.
  REQUIRE(app_use_source(app, ModelSource::sandbox).ok());
  small_sandbox(app);
  settle(app);
  REQUIRE(app.trace);
  CHECK_FALSE(app.answer);
  REQUIRE(app.answer_error);
  CHECK(app.answer_error->reason == NoAnswerReason::no_output_head);
  CHECK(answer_line_text(nullptr, &*app.answer_error, *app.trace, app.lang) ==
        "답 없음: 모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)");
  app_start_importance(app);
  settle_importance(app);
  REQUIRE(app.importance_result);
  REQUIRE(app.importance_result->error);
  CHECK(no_answer_text(*app.importance_result->error, app.lang) ==
        "모델에 출력층이 없습니다 (무작위 샌드박스에는 없고, BERT는 cls.predictions.*가 있어야 합니다)");
  // A BERT with its masked-LM head answers only at a [MASK].
  REQUIRE(app_use_source(app, ModelSource::file, test::fixture_path("hf/bert_mlm")).ok());
  app.sentence = "The cat sat on the mat.";
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  REQUIRE(app.answer_error);
  CHECK(app.answer_error->reason == NoAnswerReason::no_mask);
  CHECK(answer_line_text(nullptr, &*app.answer_error, *app.trace, app.lang) ==
        "답 없음: 모델이 채울 자리에 [MASK]를 입력하세요: 마스크드 언어 모델 헤드가 그 자리에서 답합니다");
  app.sentence = "The cat sat on the [MASK].";
  app.dirty = true;
  settle(app);
  CHECK(app.answer);
  CHECK_FALSE(app.answer_error);
  // The Coreference view on this checkpoint: it reads attention, but has no word to name as the referent.
  app.sentence = "The animal didn't cross the street because it was too tired.";
  app.dirty = true;
  settle(app);
  coref_cache_refresh(app);
  REQUIRE(app.coref.a.fits);
  REQUIRE(app.coref.a.answer_error);
  CHECK(app.coref.a.answer_error->reason == NoAnswerReason::no_word_readout);
  CHECK(no_answer_text(*app.coref.a.answer_error, app.lang) == "모델에 어휘로 가는 출력 사영이 없어서 단어를 고를 수 없습니다");
}

TEST_CASE("app options: --max-trace-memory takes a size, a bad one is refused by name") {
  auto o = app_options_parse({"--max-trace-memory", "8G"});
  REQUIRE(o.ok());
  CHECK(o->max_trace_memory == int64_t{8} << 30);
  CHECK(app_options_parse({"--max-trace-memory", "512M"})->max_trace_memory == int64_t{512} << 20);
  CHECK(app_options_parse({})->max_trace_memory == 0);  // sized from the machine at launch
  auto bad = app_options_parse({"--max-trace-memory", "8X"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error() == "--max-trace-memory '8X': unknown unit 'X' (K, M, G or T: 8G, 512M)");
  CHECK(test::has(app_options_parse({"--max-trace-memory"}).error(), "--max-trace-memory"));
  CHECK(test::has(app_usage(), "--max-trace-memory SIZE"));
}

TEST_CASE("app options: the first launch's language follows the locale, LC_ALL before LC_MESSAGES before LANG") {
  CHECK(lang_from_locale(nullptr, nullptr, "ko_KR.UTF-8") == Lang::ko);
  CHECK(lang_from_locale(nullptr, nullptr, "ko") == Lang::ko);
  CHECK(lang_from_locale(nullptr, nullptr, "ko.UTF-8") == Lang::ko);
  CHECK(lang_from_locale(nullptr, nullptr, "en_US.UTF-8") == Lang::en);
  CHECK(lang_from_locale(nullptr, nullptr, "C.UTF-8") == Lang::en);
  CHECK(lang_from_locale(nullptr, nullptr, "kok_IN") == Lang::en);  // Konkani, not Korean
  CHECK(lang_from_locale(nullptr, nullptr, nullptr) == Lang::en);
  CHECK(lang_from_locale("en_US.UTF-8", "ko_KR.UTF-8", "ko_KR.UTF-8") == Lang::en);  // LC_ALL wins
  CHECK(lang_from_locale("", "ko_KR.UTF-8", "en_GB.UTF-8") == Lang::ko);             // empty: not set
  CHECK(lang_from_locale(nullptr, "", "ko_KR.UTF-8") == Lang::ko);
}

TEST_CASE("app state: a sentence too long for the trace's memory limit is refused, the previous trace kept") {
  AppState app;
  small_sandbox(app);  // 2 layers x 4 heads, d_model 16, F 32
  app.trace_max_memory = int64_t{4} << 20;
  app.sentence = "The cat sat on the mat.";
  settle(app);
  REQUIRE(app.trace);
  const auto shown = app.trace;
  const int fit = trace_tokens_fit(app_model_config(app), app.trace_max_memory);
  CHECK(fit > 100);
  std::string longer;
  for (int i = 0; i <= fit; ++i) longer += "cat ";
  app.sentence = longer;
  app.dirty = true;
  settle(app);
  CHECK(app.trace == shown);  // what was shown stays
  CHECK(test::has(app.error, ": " + std::to_string(fit) + " tokens fit in this model."));
  CHECK(test::has(app.error, "--max-trace-memory"));
  // Raised, the same sentence runs.
  app.trace_max_memory = int64_t{64} << 20;
  app.dirty = true;
  settle(app);
  CHECK(app.trace != shown);
  CHECK(app.error.empty());
  CHECK(app.trace->n_queries() == fit + 1);
}


TEST_CASE("app state: the first token set aside and the colour scale: maps renormalised, kept in a session") {
  AppState app;
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  CHECK(app_head_map(app, 0, 1).get() == &app.trace->head(0, 1).weights_kept);  // drawn as they are
  app.first_aside = true;
  settle(app);
  REQUIRE(app_first_aside(app));
  const std::shared_ptr<const Mat> shown_map = app_head_map(app, 0, 1);
  const Mat& shown = *shown_map;
  const Mat& w = app.trace->head(0, 1).weights_kept;
  CHECK(shown.col(0) == w.col(0));
  for (Eigen::Index i = 0; i < shown.rows(); ++i) {
    CHECK(shown.row(i).tail(shown.cols() - 1).sum() == doctest::Approx(1.0f).epsilon(1e-5));
    CHECK(shown(i, 2) == doctest::Approx(w(i, 2) / (1.0f - w(i, 0))).epsilon(1e-5));
  }
  // Value norms are not distributions: drawn as they are, the checkbox kept for when it applies.
  app.measure = AttentionMeasure::value_norm;
  settle(app);
  CHECK_FALSE(app_first_aside(app));
  CHECK_FALSE(app.maps.first_aside);
  CHECK(app.first_aside);
  app.measure = AttentionMeasure::weights;
  app.color_scale.kind = ColorScale::log;
  const Session s = app_capture_session(app);
  CHECK(s.ui.at("color_scale") == "log");
  CHECK(s.ui.at("first_aside") == "1");
  AppState other;
  REQUIRE(app_apply_session(other, s).ok());
  CHECK(other.color_scale.kind == ColorScale::log);
  CHECK(other.first_aside);
  Session bad = s;
  bad.ui["first_aside"] = "yes";
  CHECK(app_apply_session(other, bad).error().find("first_aside is 'yes'") != std::string::npos);
  bad = s;
  bad.ui["color_scale"] = "logarithmic";
  CHECK(app_apply_session(other, bad).error().find("unknown color_scale 'logarithmic'") != std::string::npos);
}

}  // namespace

TEST_CASE("app state: maps formed on demand — the views' maps are the kept ones, whole-trace measures say why, statistics off the UI thread") {
  AppState app;
  app.sentence = "The animal didn't cross the street because it was too tired.";
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  REQUIRE_FALSE(trace_forms_maps(*app.trace));
  const int L = static_cast<int>(app.trace->layers.size()), NH = app.trace->config.n_heads;
  std::vector<Mat> kept;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < NH; ++h) kept.push_back(app.trace->head(l, h).weights_kept);
  app.view = View::stats;
  REQUIRE(stats_cache_refresh(app));  // a trace that keeps its maps: at once
  const std::vector<StatsRow> kept_rows = app.stats.cache.rows;
  app.view = View::heads;

  app.maps_on_demand = true;  // the script's `maps on_demand`
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  REQUIRE(trace_forms_maps(*app.trace));
  REQUIRE(NH >= 3);
  CHECK(app.trace->head(L - 1, 2).weights_kept.size() == 0);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < NH; ++h) {
      const std::shared_ptr<const Mat> map = app_head_map(app, l, h);
      CHECK(test::max_abs_diff(*map, kept[static_cast<size_t>(l * NH + h)]) < 1e-6f);
      CHECK(app_head_map(app, l, h).get() == map.get());  // asked again: the one formed, kept while asked for
    }
  CHECK(app.maps.formed.held() == L * NH);
  // The first token set aside: formed per head from the formed weights.
  app.first_aside = true;
  settle(app);
  CHECK(test::max_abs_diff(*app_head_map(app, L - 1, 2), attention_first_key_aside(kept[static_cast<size_t>((L - 1) * NH + 2)])) <
        1e-6f);
  app.first_aside = false;
  // Value-norm and rollout need every head's map at once: refused, naming the length offered.
  app.measure = AttentionMeasure::value_norm;
  settle(app);
  CHECK(test::has(app.maps.error, "value-norm is built for every head at once"));
  CHECK(test::has(app.maps.error, "It is offered up to "));
  CHECK(app_measure_drawn(app) == AttentionMeasure::weights);
  app.measure = AttentionMeasure::weights;
  settle(app);
  // The Statistics view's scan runs on its own thread; app_busy names it until it is taken.
  app.view = View::stats;
  REQUIRE_FALSE(stats_cache_refresh(app));
  CHECK(test::has(app_busy_text(app), "the Statistics view's scan of every head's map"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!stats_cache_refresh(app) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(app.stats.cache.rows.size() == kept_rows.size());
  for (size_t i = 0; i < kept_rows.size(); ++i) {
    CHECK(app.stats.cache.rows[i].stats.entropy == doctest::Approx(kept_rows[i].stats.entropy).epsilon(1e-5));
    CHECK(app.stats.cache.rows[i].stats.max_weight == doctest::Approx(kept_rows[i].stats.max_weight).epsilon(1e-5));
  }
  CHECK(app.stats.cache.detectors.reports.size() == std::size(kAllDetectors));
  CHECK(app_busy(app).empty());
}

}  // namespace attnviz
