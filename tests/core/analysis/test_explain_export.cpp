// The explanations as data (analysis/explain_export.h): each writer's JSON keys and CSV rows carry
// exactly the numbers given (floats read back bit for bit), with tokens quoted where CSV needs it.
#include <doctest/doctest.h>

#include <sstream>

#include "analysis/explain_export.h"

using namespace attnviz;

namespace {

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {  // enough CSV for these tests
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') rows.back().back() += '"', ++i;
      else if (c == '"') quoted = false;
      else rows.back().back() += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') rows.back().emplace_back();
    else if (c == '\n') rows.emplace_back(1);
    else rows.back().back() += c;
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

PatchResult by_position_result() {
  PatchResult r;
  r.metric = PatchMetric::log_prob_diff;
  r.by = PatchBy::position;
  r.clean = 8.0771f;
  r.corrupt = -7.6331f;
  r.clean_referent = 1;
  r.clean_referent_text = "animal";
  r.corrupt_referent = 6;
  r.corrupt_referent_text = "street";
  r.effect = {{0.1f, 1.0f / 3.0f, 0.0f}, {-0.25f, 0.943f, 1e-7f}};
  r.patched = {{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
  r.patched_answer = {{"street", "animal", "street"}, {"street", "animal", "street"}};
  return r;
}

}  // namespace

TEST_CASE("patching as JSON and as long CSV: every effect with its layer, position and both tokens") {
  const PatchResult r = by_position_result();
  const PatchExport ex{&r, "The animal, tired", "The animal, wide", {"The", "animal", "a,\"b\""}, {"The", "animal", "wide"}};
  const ExplainJson j = patch_json(ex);
  CHECK(j["metric"] == "log_prob_diff");
  CHECK(j["by"] == "position");
  CHECK(j["clean"].get<float>() == 8.0771f);
  CHECK(j["effect"][0][1].get<float>() == 1.0f / 3.0f);
  CHECK(j["clean_referent"]["text"] == "animal");
  CHECK(j["corrupt_referent"]["position"] == 6);
  CHECK(j["tokens"][2][0] == "a,\"b\"");
  CHECK_FALSE(j.contains("answer"));
  // Round trip through the text: the same floats.
  const ExplainJson back = ExplainJson::parse(j.dump(2));
  CHECK(back["effect"][1][2].get<float>() == 1e-7f);

  const auto rows = csv_rows(patch_csv(ex));
  REQUIRE(rows.size() == 1 + 6);
  CHECK(rows[0] == std::vector<std::string>{"layer", "position", "clean_token", "corrupt_token", "effect", "patched_metric", "patched_answer"});
  CHECK(rows[3][0] == "0");
  CHECK(rows[3][1] == "2");
  CHECK(rows[3][2] == "a,\"b\"");  // quoted in the file, whole when read
  CHECK(rows[3][3] == "wide");
  CHECK(rows[2][4] == "0.33333334");  // the shortest text of the float 1/3
  CHECK(std::stof(rows[2][4]) == 1.0f / 3.0f);
  CHECK(rows[5][4] == "0.943");
  CHECK(rows[5][6] == "animal");
}

TEST_CASE("patching by head: one row per head, its patched answer") {
  PatchResult r;
  r.by = PatchBy::head;
  r.answer_id = 7;
  r.answer_text = "·street";
  r.wrong_id = 9;
  r.wrong_text = "·road";
  r.effect = {{0.5f, -0.5f}};
  r.patched = {{1.5f, 0.5f}};
  r.patched_answer = {{"·street", "·road"}};
  const PatchExport ex{&r, "a", "b", {}, {}};
  const auto rows = csv_rows(patch_csv(ex));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"layer", "head", "effect", "patched_metric", "patched_answer"});
  CHECK(rows[2] == std::vector<std::string>{"0", "1", "-0.5", "0.5", "·road"});
  const ExplainJson j = patch_json(ex);
  CHECK(j["metric"] == "logit_diff");
  CHECK(j["answer"]["id"] == 7);
  CHECK(j["wrong"]["text"] == "·road");
}

TEST_CASE("attribution: heads, MLPs, embeddings, biases and total as rows that sum to the total") {
  LogitAttribution a;
  a.position = 4;
  a.answer_id = 3;
  a.wrong_id = 5;
  a.heads = {{0.5f, -0.25f}, {1.0f, 0.125f}};
  a.mlps = {0.75f, -1.0f};
  a.embeddings = 0.25f;
  a.biases = -0.125f;
  a.total = 1.25f;
  a.logit_diff = 1.2500001f;
  const AttributionExport ex{&a, "text", "·yes", "·no"};
  const ExplainJson j = attribution_json(ex);
  CHECK(j["attribution"]["heads"][1][0].get<float>() == 1.0f);
  CHECK(j["attribution"]["mlps"][1].get<float>() == -1.0f);
  CHECK(j["answer"]["text"] == "·yes");
  CHECK(j["logit_diff"].get<float>() == 1.2500001f);
  const auto rows = csv_rows(attribution_csv(ex));
  REQUIRE(rows.size() == 1 + 4 + 2 + 4);
  double sum = 0;
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i][0] != "total" && rows[i][0] != "logit_diff") sum += std::stod(rows[i][3]);
  CHECK(sum == doctest::Approx(1.25));
  CHECK(rows[3] == std::vector<std::string>{"head", "1", "0", "1"});
  CHECK(rows[6] == std::vector<std::string>{"mlp", "1", "", "-1"});
  CHECK(rows[9] == std::vector<std::string>{"total", "", "", "1.25"});
}

TEST_CASE("the lens and a head's write; the flow graph's edges; the query/key projection; the set's grid") {
  std::vector<LensRow> lens(2);
  lens[0].after_layer = -1;
  lens[0].top = {{"Ġcat", "·cat", 11, 0.5f}, {"Ġdog", "·dog", 12, 0.25f}};
  lens[1].after_layer = 0;
  lens[1].top = {{"Ġdog", "·dog", 12, 0.75f}};
  HeadWrite write;
  write.promoted = {{12, "·dog", 2.5f}};
  write.suppressed = {{11, "·cat", -1.5f}};
  const LensExport lx{&lens, 3, "the", &write, 1, 2};
  const ExplainJson lj = lens_json(lx);
  CHECK(lj["lens"][1]["top"][0]["p"].get<float>() == 0.75f);
  CHECK(lj["head_write"]["suppressed"][0]["logit"].get<float>() == -1.5f);
  const auto lrows = csv_rows(lens_csv(lx));
  REQUIRE(lrows.size() == 1 + 3 + 1 + 2);
  CHECK(lrows[1] == std::vector<std::string>{"-1", "1", "·cat", "11", "0.5"});
  CHECK(lrows[6] == std::vector<std::string>{"suppressed", "1", "·cat", "11", "-1.5", "1", "2"});

  FlowGraph g;
  g.target = 2;
  g.threshold = 0.1f;
  g.edges = {{1, 0, 1, 2, 0.625f}, {0, 3, 0, 1, 0.5f}};
  g.reached = {{true, true, false}, {false, true, true}, {false, false, true}};
  const FlowExport fx{&g, {"A", "B", "C"}, "", ""};
  const ExplainJson fj = flow_json(fx);
  CHECK(fj["target_token"] == "C");
  CHECK(fj["edges"][0]["share"].get<float>() == 0.625f);
  CHECK(fj["reached"][0][2] == false);
  const auto frows = csv_rows(flow_csv(fx));
  REQUIRE(frows.size() == 3);
  CHECK(frows[1] == std::vector<std::string>{"1", "0", "1", "B", "2", "C", "0.625", "value_norm"});
  CHECK(fj["weight"] == "value_norm");
  CHECK_FALSE(fj.contains("answer"));
  // By attribution: signed shares, the two tokens compared.
  FlowGraph ga = g;
  ga.weight = FlowWeight::attribution;
  ga.answer_id = 4;
  ga.wrong_id = 5;
  ga.edges = {{1, 2, 0, 2, -0.375f, FlowWeight::attribution}};
  const FlowExport fa{&ga, {"A", "B", "C"}, "·yes", "·no"};
  const ExplainJson aj = flow_json(fa);
  CHECK(aj["answer"]["text"] == "·yes");
  CHECK(aj["wrong"]["id"] == 5);
  CHECK(aj["edges"][0]["share"].get<float>() == -0.375f);
  CHECK(aj["edges"][0]["weight"] == "attribution");
  CHECK(csv_rows(flow_csv(fa))[1] == std::vector<std::string>{"1", "2", "0", "A", "2", "C", "-0.375", "attribution"});

  QKProjection p;
  p.queries = Mat(2, 2);
  p.queries << 1, 2, 3, 4;
  p.keys = Mat(1, 2);
  p.keys << -0.5f, 0.25f;
  p.explained[0] = 0.75f;
  p.explained[1] = 0.125f;
  const QKExport qx{&p, 0, 1, {"a", "b"}, {"k"}};
  CHECK(qk_json(qx)["keys"][0]["x"].get<float>() == -0.5f);
  CHECK(qk_json(qx)["explained"][1].get<float>() == 0.125f);
  const auto qrows = csv_rows(qk_csv(qx));
  REQUIRE(qrows.size() == 4);
  CHECK(qrows[2] == std::vector<std::string>{"query", "1", "b", "3", "4"});
  CHECK(qrows[3] == std::vector<std::string>{"key", "0", "k", "-0.5", "0.25"});

  ImportanceSetGrid set;
  set.sentences = {{2, "one"}, {5, "two"}};
  set.per_sentence.resize(2);
  set.per_sentence[0].drop = {{1.0f}};
  set.per_sentence[0].flips = {{true}};
  set.per_sentence[1].drop = {{3.0f}};
  set.per_sentence[1].flips = {{false}};
  set.mean = {{2.0f}};
  set.spread = {{1.0f}};
  set.answer_changes = {{1}};
  set.best_layer = set.best_head = 0;
  const ImportanceSetExport sx{&set, "pairs"};
  const ExplainJson sj = importance_set_json(sx);
  CHECK(sj["set"] == "pairs");
  CHECK(sj["per_sentence"][1][0][0].get<float>() == 3.0f);
  CHECK(sj["per_sentence_answer_changes"][0][0][0] == true);
  CHECK(sj["sentences"][1]["line"] == 5);
  const auto srows = csv_rows(importance_set_csv(sx));
  REQUIRE(srows.size() == 2);
  CHECK(srows[1] == std::vector<std::string>{"0", "0", "2", "1", "1", "2"});
}
