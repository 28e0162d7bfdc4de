// The architecture view's diagram, headless: the model's sizes in its boxes, one box per head (up
// to 8), every box that has numbers behind it opening the lecture step that shows them, the norms
// placed as the model places them, and the diagram without a trace (it needs only the config).
#include <doctest/doctest.h>

#include <string>
#include <variant>

#include "analysis/lecture.h"
#include "state/app_state.h"
#include "support/app_settle.h"
#include "views/arch/arch_diagram.h"

using namespace attnviz;

namespace {

std::string all_text(const Figure& f) {
  std::string out;
  for (const FigureItem& item : f.items)
    if (const auto* t = std::get_if<FigureText>(&item)) out += t->text + "\n";
  return out;
}

int steps_opened(const ArchDiagram& d, LectureStep s) {
  int n = 0;
  for (const ArchTarget& t : d.targets) n += t.view == View::steps && t.step == static_cast<int>(s) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("architecture diagram: the sandbox's sizes, a box per head, each box opening its step") {
  AppState app;
  app.config.d_model = 64;
  app.config.n_heads = 4;
  app.config.n_layers = 3;
  app.config.d_ff = 128;
  app.config.norm = NormPlacement::post;
  app.sentence = "The cat sat on the mat";
  app.dirty = true;
  settle(app);
  REQUIRE(app.trace);
  const ArchDiagram d = arch_diagram(app, nullptr);
  const std::string text = all_text(d.figure);
  CHECK(text.find("3 layers × 4 heads, d_model 64") != std::string::npos);
  CHECK(text.find("(B, 6, 64) → view (B, 6, 4, 16) → transpose (B, 4, 6, 16)") != std::string::npos);
  CHECK(text.find("64 → 128 → 64") != std::string::npos);  // the FFN
  CHECK(text.find("h·d_v × d_model = 64 × 64") != std::string::npos);
  CHECK(text.find("× 3") != std::string::npos);
  // Post-norm: LayerNorm after each residual, none before.
  CHECK(text.find("after the residual") != std::string::npos);
  CHECK(text.find("before the sublayer") == std::string::npos);
  CHECK(steps_opened(d, LectureStep::qkv) == 3);       // W^Q, W^K, W^V
  CHECK(steps_opened(d, LectureStep::softmax) == 4);   // one per head
  CHECK(steps_opened(d, LectureStep::head_split) == 1);
  CHECK(steps_opened(d, LectureStep::concat) == 1);
  CHECK(steps_opened(d, LectureStep::out_proj) == 1);
  for (const ArchTarget& t : d.targets) {
    CHECK(t.w > 0);
    CHECK(t.x + t.w <= d.figure.width);
    CHECK(t.y + t.h <= d.figure.height);
  }
}

TEST_CASE("architecture diagram: 12 heads show 8 boxes, the last the 12th; no trace needed") {
  AppState app;
  app.config.d_model = 96;
  app.config.n_heads = 12;
  app.config.norm = NormPlacement::pre;
  app.config.d_ff = 0;
  const ArchDiagram d = arch_diagram(app, nullptr);  // no trace: n stays a symbol
  const std::string text = all_text(d.figure);
  CHECK(text.find("X: n × d_model = n × 96") != std::string::npos);
  CHECK(text.find("… Head 12") != std::string::npos);
  CHECK(text.find("before the sublayer") != std::string::npos);
  CHECK(text.find("FFN") == std::string::npos);
  int heads = 0;
  for (const ArchTarget& t : d.targets) heads += t.step == static_cast<int>(LectureStep::softmax) ? 1 : 0;
  CHECK(heads == 8);
  CHECK(d.targets.back().view == View::heads);  // the output opens the Heads view
}
