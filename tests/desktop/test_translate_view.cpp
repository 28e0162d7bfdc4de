// The Translation view's headless part (views/translate/translate_state.h) on the shipped models:
// what it shows for a sentence, that a sentence outside the grammar keeps the last translation and
// names the words, that switching a cross-attention head off translates again, the step bounds, the
// accuracy-by-length plot measured off the UI thread, the script verbs, and the figure export, whose
// cells are the readout's weights.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "render/figure.h"
#include "state/app_state.h"
#include "state/script.h"
#include "state/view_figure.h"
#include "support/check_util.h"
#include "support/xml_reader.h"

namespace attnviz {
namespace {

using test::has;

constexpr const char* kTwoClauses = "the small teacher bought the red book at school and the dog saw the white cat .";

ScriptStep run_line(AppState& app, const std::string& text) {
  auto lines = script_parse(text);
  REQUIRE(lines.ok());
  REQUIRE(lines->size() == 1);
  return script_apply(app, lines->front());
}

void wait_for_curve(AppState& app) {
  for (int i = 0; i < 6000 && app.translate.curve_job.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    translate_refresh(app);
  }
  REQUIRE_FALSE(app.translate.curve_job.busy());
}

TEST_CASE("translate view: the default sentence, its readout and the scoring functions side by side") {
  AppState app;
  translate_refresh(app);
  const TranslateState& t = app.translate;
  CHECK(t.error.empty());
  REQUIRE(t.readout);
  CHECK(translate_written(t.readout->output) == "큰 고양이가 공원에서 작은 개를 쫓았다.");
  CHECK(t.readout->exact);
  CHECK(t.readout_variant == 0);
  const int shown = translate_shown_head(app);
  CHECK(shown == t.readout->best_head);
  CHECK(t.readout->head_aligned[static_cast<size_t>(shown)] == 1.0f);
  REQUIRE(t.effects.size() == 4);
  // Every shipped model translates it; the bottleneck too (one clause fits in one vector).
  for (int v = 0; v < kTranslateVariants; ++v) {
    CAPTURE(translate_variants()[static_cast<size_t>(v)].id);
    REQUIRE(t.side[static_cast<size_t>(v)]);
    CHECK(t.side[static_cast<size_t>(v)]->exact);
    CHECK(t.side[static_cast<size_t>(v)]->head_aligned.empty() == (v == kTranslateBottleneck));
  }
  CHECK(t.side[3]->forward.decoder[0].cross.attn.heads[0].score == ScoreKind::additive);
}

TEST_CASE("translate view: a sentence outside the grammar names its words and keeps the last translation") {
  AppState app;
  translate_refresh(app);
  const uint64_t version = app.translate.version;
  app.translate.text = "the purple cat chased the dog .";
  translate_refresh(app);
  CHECK(has(app.translate.error, "'purple'"));
  REQUIRE(app.translate.readout);
  CHECK(translate_written(app.translate.readout->output) == "큰 고양이가 공원에서 작은 개를 쫓았다.");
  CHECK(app.translate.version == version);
  // Another model meanwhile: the last good sentence on it, the message still there.
  REQUIRE(translate_set_variant(app, "bottleneck"));
  translate_refresh(app);
  CHECK(has(app.translate.error, "'purple'"));
  CHECK(app.translate.readout_variant == kTranslateBottleneck);
  CHECK(app.translate.readout_text == "the big cat chased the small dog in the park .");
  CHECK(translate_shown_head(app) == -1);
  auto bad = translate_set_variant(app, "score_cosine");
  REQUIRE_FALSE(bad);
  CHECK(has(bad.error(), "score_cosine"));
  CHECK(has(bad.error(), "score_additive"));
  CHECK(app.translate.variant == kTranslateBottleneck);
  auto head = translate_toggle_head(app, 0, 0);
  REQUIRE_FALSE(head);
  CHECK(has(head.error(), "no cross-attention"));
}

TEST_CASE("translate view: switching the aligning head off translates again, and the steps stay in range") {
  AppState app;
  app.translate.text = kTwoClauses;
  translate_refresh(app);
  TranslateState& t = app.translate;
  REQUIRE(t.readout);
  CHECK(t.readout->exact);
  CHECK(t.readout->rows() == 18);  // 17 Korean tokens and [EOS]
  const int best = t.readout->best_head;
  REQUIRE(translate_toggle_head(app, 0, best));
  translate_refresh(app);
  CHECK(t.readout->cross_off.has(0, best));
  CHECK_FALSE(t.readout->exact);
  CHECK(t.effects.size() == 3);  // the heads still on
  REQUIRE(translate_toggle_head(app, 0, best));
  translate_refresh(app);
  CHECK(t.readout->exact);
  CHECK_FALSE(translate_toggle_head(app, 0, 4));
  CHECK(translate_set_step(app, 17));
  CHECK(t.step == 17);
  auto past = translate_set_step(app, 18);
  REQUIRE_FALSE(past);
  CHECK(has(past.error(), "0 to 17"));
  CHECK(t.step == 17);
}

TEST_CASE("translate view: exact-match rate by sentence length, binned") {
  TranslatePair short_pair, long_pair;
  short_pair.source.assign(6, "x");
  short_pair.clauses.resize(1);
  long_pair.source.assign(13, "x");
  long_pair.clauses.resize(2);
  const TranslateLengthCurve c = translate_length_curve({short_pair, long_pair, long_pair}, {1, 1, 0}, {1, 0, 0}, 4);
  REQUIRE(c.bins.size() == 2);  // 6-9 and 10-13
  CHECK(c.bins[0].shortest == 6);
  CHECK(c.bins[0].longest == 9);
  CHECK(c.bins[0].sentences == 1);
  CHECK(c.bins[1].longest == 13);
  CHECK(c.bins[1].sentences == 2);
  CHECK(c.bins[1].exact_attention == 1);
  CHECK(c.bins[1].exact_bottleneck == 0);
  CHECK(c.sentences[0] == 3);
  CHECK(c.sentences[2] == 2);
  CHECK(c.exact_attention[0] == 2);
  CHECK(c.exact_bottleneck[1] == 1);
}

TEST_CASE("translate view: the bottleneck plot, measured off the UI thread, and the script verbs") {
  AppState app;
  CHECK(run_line(app, "translate curve 6").error.empty());  // 6 sentences of each length
  CHECK(app.translate.curve_job.busy());
  wait_for_curve(app);
  REQUIRE(app.translate.curve);
  const TranslateLengthCurve& c = *app.translate.curve;
  CHECK(c.sentences[0] == 18);
  CHECK(c.exact_attention[1] == 6);  // 1 clause: both translate
  CHECK(c.exact_bottleneck[1] >= 5);
  CHECK(c.exact_attention[3] >= 4);  // 3 clauses: only attention does (95% of 300; 4 of these first 6)
  CHECK(c.exact_bottleneck[3] == 0);
  CHECK(run_line(app, "expect translate_gap 30").error.empty());

  CHECK(run_line(app, "translate text " + std::string(kTwoClauses)).error.empty());
  CHECK(run_line(app, "expect translation 작은 선생님이 학교에서 빨간 책을 샀다 그리고 개가 하얀 고양이를 보았다.").error.empty());
  CHECK(run_line(app, "expect translate_exact yes").error.empty());
  const int best = app.translate.readout->best_head;
  CHECK(run_line(app, "translate head_off 0 " + std::to_string(best)).error.empty());
  CHECK(run_line(app, "expect translate_exact no").error.empty());
  CHECK(has(run_line(app, "expect translate_exact yes").error, "to be the grammar's"));
  CHECK(run_line(app, "translate head_on 0 " + std::to_string(best)).error.empty());
  CHECK(run_line(app, "translate model score_additive").error.empty());
  CHECK(run_line(app, "expect translate_exact yes").error.empty());
  CHECK(run_line(app, "translate head mean").error.empty());
  CHECK(app.translate.head == -2);
  CHECK(run_line(app, "translate step 17").error.empty());
  CHECK(has(run_line(app, "translate step 18").error, "outside"));
  CHECK(run_line(app, "translate tab steps").error.empty());
  CHECK(app.translate.tab == TranslateTab::steps);
  CHECK(has(run_line(app, "translate tab sideways").error, "unknown tab"));
  CHECK(has(run_line(app, "translate head 0 9").error, "no cross-attention head"));
  CHECK(has(run_line(app, "translate model nope").error, "no translation model 'nope'"));
  CHECK(run_line(app, "translate text the cat ate the dog .").error.empty());
  CHECK(run_line(app, "expect translate_error 'ate'").error.empty());
  CHECK(has(run_line(app, "translate fly").error, "unknown translate action"));
  CHECK(run_line(app, "view translate").error.empty());
  CHECK(app.view == View::translate);
}

TEST_CASE("translate view: the figure holds every head's weights, the shown head first") {
  AppState app;
  app.translate.head = 2;
  auto fig = view_figure(app, View::translate, nullptr);
  REQUIRE_MESSAGE(fig.ok(), fig.error());
  auto root = xml_parse(figure_svg(*fig, nullptr));
  REQUIRE(root.ok());
  std::vector<const XmlElement*> rects, texts;
  xml_find_all(*root, "rect", rects);
  xml_find_all(*root, "text", texts);
  std::string text;
  for (const XmlElement* e : texts) text += xml_all_text(*e) + "\n";
  CHECK(has(text, "-가"));
  CHECK(has(text, "L1 H3"));
  const TranslateReadout& r = *app.translate.readout;
  int cells = 0, checked = 0;
  for (const XmlElement* e : rects) {
    if (!e->attribute("class") || *e->attribute("class") != "cell") continue;
    ++cells;
    const std::string panel = *e->attribute("data-panel");
    const int head = panel.back() - '0', row = std::stoi(*e->attribute("data-row")), col = std::stoi(*e->attribute("data-col"));
    const float want = r.forward.decoder[0].cross.attn.heads[static_cast<size_t>(head)].weights_kept(row, col);
    CHECK(std::stof(*e->attribute("data-value")) == doctest::Approx(want).epsilon(1e-6));
    ++checked;
  }
  CHECK(cells == 4 * r.rows() * static_cast<int>(r.pair.source.size()));
  CHECK(checked == cells);
  // The bottleneck has no matrix, and says why.
  REQUIRE(translate_set_variant(app, "bottleneck"));
  auto bottleneck = view_figure(app, View::translate, nullptr);
  REQUIRE(bottleneck.ok());
  CHECK(has(figure_svg(*bottleneck, nullptr), "no cross-attention"));
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

TEST_CASE("translate view: a model retrained off the UI thread replaces the shipped one until it is put back") {
  AppState app;
  REQUIRE(translate_set_variant(app, "score_dot"));
  translate_refresh(app);
  app.translate.train_settings = TranslateTrainSettings{2, 4, 32, 3, 4};  // seed, heads, d_model, steps, held-out: a quick run
  REQUIRE(translate_train_start(app));
  auto again = translate_train_start(app);
  REQUIRE_FALSE(again);
  CHECK(has(again.error(), "is training"));
  for (int i = 0; i < 30000 && app.translate.train_job.busy(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    translate_refresh(app);
  }
  REQUIRE_FALSE(app.translate.train_job.busy());
  CHECK(app.translate.train_error.empty());
  const TranslateModelSlot& slot = app.translate.models[1];
  CHECK(slot.retrained == "seed 2 · 4 heads · d_model 32");
  CHECK(has(app.translate.train_result, "3 steps"));
  REQUIRE(translate_shown_model(app));
  CHECK(translate_shown_model(app)->arch.d_model == 32);
  CHECK(translate_shown_model(app)->arch.score == ScoreKind::dot);
  REQUIRE(app.translate.readout);  // computed again, on the new weights (3 steps: not the grammar's Korean)
  CHECK(app.translate.readout->forward.memory.cols() == 32);
  CHECK(app.translate.side[1]->forward.memory.cols() == 32);
  REQUIRE(translate_use_shipped(app));
  translate_refresh(app);
  CHECK(translate_shown_model(app)->arch.d_model == 64);
  CHECK(app.translate.readout->exact);
  CHECK_FALSE(translate_use_shipped(app));
  // Settings that make no model are refused before anything trains.
  app.translate.train_settings.n_heads = 3;
  auto bad = translate_train_start(app);
  REQUIRE_FALSE(bad);
  CHECK_FALSE(app.translate.train_job.busy());
}

}  // namespace
}  // namespace attnviz
