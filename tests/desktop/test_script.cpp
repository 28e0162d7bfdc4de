// --script without a window: lines parse as a person types them, verbs change AppState exactly as
// the controls would, a bad line names its number and verb, and the file verbs write files.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "state/app_state.h"
#include "state/script.h"

namespace attnviz {
namespace {

ScriptStep run_line(AppState& app, const std::string& text) {
  auto lines = script_parse(text);
  REQUIRE(lines.ok());
  REQUIRE(lines->size() == 1);
  return script_apply(app, lines->front());
}

TEST_CASE("script: parsing keeps TEXT verbs whole and skips comments and blank lines") {
  auto lines = script_parse("# a comment\n\nsentence  The cat sat.  \r\nheads 4\n  view compare\n");
  REQUIRE(lines.ok());
  REQUIRE(lines->size() == 3);
  CHECK((*lines)[0].number == 3);
  CHECK((*lines)[0].verb == "sentence");
  CHECK((*lines)[0].args == std::vector<std::string>{"The cat sat.  "});
  CHECK((*lines)[1].args == std::vector<std::string>{"4"});
  CHECK((*lines)[2].number == 5);
  CHECK((*lines)[2].verb == "view");
}

TEST_CASE("script: verbs edit the state as the controls do") {
  AppState app;
  app.dirty = false;
  CHECK(run_line(app, "heads 4").error.empty());
  CHECK(app.config.n_heads == 4);
  CHECK(app.dirty);
  CHECK(run_line(app, "view compare").error.empty());
  CHECK(app.view == View::compare);
  CHECK(run_line(app, "compare scaled_vs_unscaled").error.empty());
  CHECK(app.compare.mode == CompareMode::scaled_vs_unscaled);
  CHECK(run_line(app, "zoom_head 2").error.empty());
  CHECK(app.heads.zoom_head == 2);
  CHECK(run_line(app, "step 4").error.empty());
  CHECK(app.steps.step == 4);
  CHECK(run_line(app, "lang ko").error.empty());
  CHECK(app.lang == Lang::ko);
  CHECK(run_line(app, "screenshot shot.png").screenshot == "shot.png");
  CHECK(run_line(app, "quit").quit);
}

TEST_CASE("script: a bad line names its number and verb and changes nothing") {
  AppState app;
  CHECK(run_line(app, "compare sideways").error == "script line 1 (compare): unknown compare mode");
  CHECK(app.compare.mode == CompareMode::sentence_b);
  CHECK(run_line(app, "view gallery").error == "script line 1 (view): unknown view");
  CHECK(app.view == View::heads);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

ScriptLine parse_one(const std::string& text) {
  auto lines = script_parse(text);
  REQUIRE(lines.ok());
  REQUIRE(lines->size() == 1);
  return lines->front();
}

TEST_CASE("script: nowait, expect idle, wait_limit, echo_lines and report memory (the soak test's verbs)") {
  CHECK(script_pacing(parse_one("view heads")).wait_for_engine);
  CHECK_FALSE(script_pacing(parse_one("nowait view heads")).wait_for_engine);
  const ScriptPacing idle = script_pacing(parse_one("expect idle 5"));
  CHECK_FALSE(idle.wait_for_engine);
  CHECK(idle.retry_seconds == 5);
  CHECK(script_pacing(parse_one("expect tokens 5")).retry_seconds == 0);

  AppState app;
  app.dirty = false;
  CHECK(script_apply(app, parse_one("nowait try heads 0")).error.empty());  // refused, and tried
  CHECK(app.status.find("expected a head count") != std::string::npos);
  CHECK(script_apply(app, parse_one("nowait sentence a  b")).error.empty());
  CHECK(app.sentence == "a b");  // as `try` gives a TEXT verb its words
  const ScriptStep busy = script_apply(app, parse_one("expect idle 5"));  // nothing computed yet
  CHECK(busy.error.find("still busy: an edit not yet sent to the engine") != std::string::npos);
  CHECK(script_apply(app, parse_one("wait_limit 30")).wait_limit == 30);
  CHECK_FALSE(script_apply(app, parse_one("wait_limit -1")).error.empty());
  CHECK(script_apply(app, parse_one("echo_lines on")).echo_lines == 1);
  CHECK(script_apply(app, parse_one("report memory")).report.find("memory: peak ") == 0);
  CHECK(script_apply(app, parse_one("train pair_stop")).error.empty());
}

TEST_CASE("script: within, hangul, focus and expect composing (the input-method test's verbs)") {
  const ScriptPacing within = script_pacing(parse_one("within 20 expect sentence 안녕"));
  CHECK_FALSE(within.wait_for_engine);
  CHECK(within.retry_seconds == 20);
  AppState app;
  app.sentence = "안";
  const ScriptStep not_yet = script_apply(app, parse_one("within 20 expect sentence 안녕"));
  CHECK(not_yet.error == "script line 1 (expect): expected the sentence '안녕', it is '안'");
  app.sentence = "안녕";
  CHECK(script_apply(app, parse_one("within 20 expect sentence 안녕")).error.empty());
  CHECK(script_apply(app, parse_one("within soon expect sentence 안녕")).error.find("expected a number of seconds") !=
        std::string::npos);
  CHECK(script_apply(app, parse_one("within 5 view heads")).error.find("expected an expect line") != std::string::npos);

  CHECK_FALSE(app.hangul.on);
  CHECK(script_apply(app, parse_one("hangul on")).error.empty());
  CHECK(app.hangul.on);
  CHECK(script_apply(app, parse_one("expect composing")).error.empty());  // nothing composed
  app.hangul.composing = "녕";
  CHECK(script_apply(app, parse_one("expect composing 녕")).error.empty());
  CHECK(script_apply(app, parse_one("expect composing")).error == "script line 1 (expect): expected to be composing '', it is '녕'");
  CHECK(script_apply(app, parse_one("focus compare_sentence")).error.empty());
  CHECK(app.focus_field == "compare_sentence");
  CHECK(script_apply(app, parse_one("focus model")).error ==
        "script line 1 (focus): expected sentence, source, sentence_b or compare_sentence");
}

}  // namespace
}  // namespace attnviz
