// Output heads against PyTorch (tests/fixtures/hf/PREDICTIONS.md, written by make_hf_checkpoints.py):
// GPT-2's next token (lm_head tied to wte) and a BERT masked-LM head's tokens at each [MASK], with no
// head switched off and with heads zero- and mean-ablated. model_answer's top-5 ids must be the
// reference's and its probabilities must agree to 1e-5.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/answer.h"
#include "model/trace.h"
#include "support/fixture_util.h"
#include "support/hf_fixture.h"

namespace attnviz {
namespace {

using namespace test;
using json = nlohmann::json;

constexpr float kProbTolerance = 1e-5f;

json read_predictions(const std::string& folder) {
  std::ifstream in(fixture_path("hf/" + folder + "/predictions.json"));
  REQUIRE_MESSAGE(in.good(), "no predictions.json in hf/" << folder);
  return json::parse(in);
}

// The reference's answers for one case and mode against ours; returns the worst |p - torch|.
float check_answer(const ModelAnswer& got, const json& want) {
  REQUIRE(got.predictions.size() == want.size());
  float worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const PositionAnswer& pa = got.predictions[i];
    CHECK(pa.position == want[i]["position"].get<int>());
    const auto ids = want[i]["ids"].get<std::vector<int>>();
    const auto p = want[i]["p"].get<std::vector<double>>();
    REQUIRE(pa.top.size() == ids.size());
    for (size_t k = 0; k < ids.size(); ++k) {
      CAPTURE(k);
      CHECK(pa.top[k].id == ids[k]);
      worst = std::max(worst, static_cast<float>(std::abs(pa.top[k].p - p[k])));
    }
  }
  return worst;
}

// Every case of a folder's predictions.json, in each mode, through trace_run with the ablation and
// through trace_final_ablated from the unablated trace (the path importance measures take).
void check_folder(const std::string& folder, AnswerKind kind) {
  const Model model = open_fixture(folder);
  const json doc = read_predictions(folder);
  REQUIRE(doc["top_k"].get<int>() == 5);
  Ablation off;
  for (const auto& h : doc["heads_off"]) ablation_set(off, HeadRef{h[0].get<int>(), h[1].get<int>()}, true);
  REQUIRE(off.heads.size() == 2);
  float worst = 0, worst_incremental = 0;
  for (const auto& c : doc["cases"]) {
    const std::string name = c["name"];
    CAPTURE(folder);
    CAPTURE(name);
    TraceInput in;
    in.text = c["text"];
    in.text_b = c.value("text_b", "");
    auto base = trace_run(model, in);
    REQUIRE_MESSAGE(base.ok(), base.error());
    const auto ids = c["ids"].get<std::vector<int>>();
    REQUIRE(base->n_queries() == static_cast<int>(ids.size()));
    for (size_t i = 0; i < ids.size(); ++i) CHECK(base->queries[i].id == ids[i]);
    auto base_answer = model_answer(model, *base, in.text, 5);
    REQUIRE_MESSAGE(base_answer.ok(), base_answer.error());
    for (const char* mode : {"none", "zero", "mean"}) {
      CAPTURE(mode);
      TraceInput ablated = in;
      if (std::string(mode) != "none") {
        ablated.ablation = off;
        ablated.ablation.mode = *ablation_mode_from_name(mode);
      }
      auto t = trace_run(model, ablated);
      REQUIRE_MESSAGE(t.ok(), t.error());
      auto answer = model_answer(model, *t, in.text, 5);
      REQUIRE_MESSAGE(answer.ok(), answer.error());
      CHECK(answer->kind == kind);
      worst = std::max(worst, check_answer(*answer, c["answers"][mode]));

      auto final = trace_final_ablated(model, *base, ablated.ablation);
      REQUIRE_MESSAGE(final.ok(), final.error());
      auto incremental = model_answer_from_final(model, *base, *final, *base_answer, 5);
      REQUIRE_MESSAGE(incremental.ok(), incremental.error());
      worst_incremental = std::max(worst_incremental, check_answer(*incremental, c["answers"][mode]));
    }
  }
  MESSAGE(folder << ": worst |p - torch| " << worst << " (trace_run), " << worst_incremental
                 << " (trace_final_ablated)");
  CHECK(worst < kProbTolerance);
  CHECK(worst_incremental < kProbTolerance);
}

TEST_CASE("predictions: GPT-2's next token (lm_head tied to wte), heads on and off, matches PyTorch") {
  check_folder("gpt2_tiny", AnswerKind::next_token);
}

TEST_CASE("predictions: BERT's masked-LM head at each [MASK], heads on and off, matches PyTorch") {
  check_folder("bert_mlm", AnswerKind::masked);
}

TEST_CASE("predictions: a BERT without its masked-LM head, or a sentence without [MASK], answers nothing") {
  TraceInput in;
  in.text = "The animal didn't cross the street.";
  const Model encoder = open_fixture("bert_tiny_cased");  // BertModel: pooler, no cls.predictions
  auto t = trace_run(encoder, in);
  REQUIRE(t.ok());
  auto a = model_answer(encoder, *t, in.text, 5);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().find("cls.predictions") != std::string::npos);

  const Model mlm = open_fixture("bert_mlm");
  t = trace_run(mlm, in);
  REQUIRE(t.ok());
  a = model_answer(mlm, *t, in.text, 5);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().find("[MASK]") != std::string::npos);
}

}  // namespace
}  // namespace attnviz
