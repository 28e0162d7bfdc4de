// attnviz-cli predict and heads on the shipped demos and the GPT-2 fixture: answers with heads
// switched off, the importance grid, and --measure in --json/--csv.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "analysis/answer.h"
#include "analysis/measures.h"
#include "base/file_io.h"
#include "io/model_open.h"
#include "support/check_util.h"
#include "support/cli_util.h"
#include "support/fixture_util.h"
#include "support/coref_sentences.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

const std::string kCoref = std::string(ATTNVIZ_ASSETS) + "/demo_coref";

nlohmann::json json_of(const CliRun& r) {
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("cli predict: the coreference demo's answer, and with the head that reads \"tired\" switched off \"it\" goes to the street") {
  CliRun tired = cli_in_process({"predict", "--model", kCoref, "--text", kTired});
  REQUIRE_MESSAGE(tired.status == 0, tired.err);
  CHECK(tired.out == "it (#7) -> animal (#1, p = 1.000)\n");
  CliRun off = cli_in_process({"predict", "--model", kCoref, "--text", kTired, "--ablate", " 0:2"});
  REQUIRE_MESSAGE(off.status == 0, off.err);
  CHECK(has(off.out, "heads off (zero): L1 H3\nit (#7) -> street (#5, p = 0.993)"));
  CHECK(has(off.out, "with every head on: it (#7) -> animal (#1, p = 1.000)"));
  // The layer-2 heads that look at the referent do not decide the answer: switched off, the demo
  // still answers "animal" from what layer 1 head 3 wrote into "it".
  CliRun looking = cli_in_process({"predict", "--model", kCoref, "--text", kTired, "--ablate", "1:0,1:3"});
  REQUIRE_MESSAGE(looking.status == 0, looking.err);
  CHECK(has(looking.out, "heads off (zero): L2 H1, L2 H4\nit (#7) -> animal (#1, p = 1.000)"));

  const auto j = json_of(cli_in_process({"predict", "--model", kCoref, "--text", kTired, "--ablate", "0:3,0:0,0:1,0:2",
                                         "--json", "-"}));
  CHECK(j["kind"] == "coref");
  CHECK(j["ablated"] == nlohmann::json::parse("[[0,0],[0,1],[0,2],[0,3]]"));
  CHECK(j["ablation"] == "zero");
  CHECK(j["referent"]["text"] == "street");
  CHECK(j["unablated"]["referent"]["text"] == "animal");
  CHECK(j["unablated"]["referent"]["probability"].get<float>() > 0.999f);
  CHECK(j["heads"].size() == 8);
  // Mean ablation passes on the head's average output: a different, milder change.
  const auto mean = json_of(cli_in_process({"predict", "--model", kCoref, "--text", kTired, "--ablate", "0:2",
                                            "--ablation", "mean", "--json", "-"}));
  CHECK(mean["ablation"] == "mean");
  CHECK(mean["referent"]["text"] == "animal");
  CHECK(mean["referent"]["probability"].get<float>() < 0.99f);
}

TEST_CASE("cli heads --importance: the grid on the shipped demo") {
  for (const std::string& text : {kTired, kWide}) {
    const auto j = json_of(cli_in_process({"heads", "--model", kCoref, "--text", text, "--importance", "--json", "-"}));
    REQUIRE(j["importance"].size() == 2);
    REQUIRE(j["importance"][0].size() == 4);
    float best = -1;
    for (const auto& row : j["importance"])
      for (const auto& v : row) {
        CHECK(std::isfinite(v.get<float>()));
        best = std::max(best, v.get<float>());
      }
    CHECK(j["answer"]["referent"]["text"] == (text == kTired ? "animal" : "street"));
    int changes = 0;
    for (const auto& row : j["answer_changes"])
      for (const auto& v : row) changes += v.get<bool>() ? 1 : 0;
    if (text == kTired) {
      // One head decides: layer 0 head 2, which reads "tired" into "it". Without it "it" is the
      // street (drop 4.9 in log p); no other head costs more than 0.05.
      CHECK(j["most_important"] == nlohmann::json::parse("[0,2]"));
      CHECK(j["importance"][0][2].get<float>() == doctest::Approx(best));
      CHECK(best > 4.5f);
      CHECK(j["answer_changes"][0][2] == true);
      CHECK(changes == 1);
      for (size_t l = 0; l < 2; ++l)
        for (size_t h = 0; h < 4; ++h)
          if (l != 0 || h != 2) CHECK(j["importance"][l][h].get<float>() < 0.05f);
    } else {
      // "street" is what the demo answers when nothing points at the animal: no head alone
      // changes it.
      CHECK(changes == 0);
      CHECK(best < 0.05f);
    }
  }
  CliRun text = cli_in_process({"heads", "--model", kCoref, "--text", kTired, "--importance"});
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK(has(text.out, "most important: layer 0 head 2"));
  CHECK(has(text.out, "4.911*"));  // layer 0 head 2 decides: off, "it" turns to "street"
  CHECK(has(text.out, "* the answer changes"));
  CHECK_FALSE(has(text.out, "no single head"));
  // The 4-head grid cell at d_model 64 resolves "it" redundantly: no head alone changes the answer.
  CliRun wide = cli_in_process({"heads", "--model", "demo:coref/heads4_dmodel64", "--text", kTired, "--importance"});
  REQUIRE_MESSAGE(wide.status == 0, wide.err);
  CHECK(wide.out.find('*') == std::string::npos);  // no cell marked, and no legend for a mark
  CHECK(has(wide.out, "no single head changes the answer when switched off"));
}

TEST_CASE("cli predict: causal models give their next tokens, the induction demo needs the causal mask") {
  const std::string induction = std::string(ATTNVIZ_ASSETS) + "/demo_induction";
  const std::string repeat = "t3 t9 t4 t12 t7 t1 t3 t9 t4 t12";
  CliRun r = cli_in_process({"predict", "--model", induction, "--text", repeat});
  CHECK(r.status == 1);
  CHECK(has(r.err, "--mask causal"));
  // Under the causal mask the demo completes the repeat: t12 was followed by t7.
  r = cli_in_process({"predict", "--model", induction, "--text", repeat, "--mask", "causal"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.rfind("next token after #9 (t12):  t7 (7) 0.952", 0) == 0);
  // Its previous-token head (layer 0 head 1) is the one the copy cannot do without.
  const auto grid = nlohmann::json::parse(
      cli_in_process({"heads", "--model", induction, "--text", repeat, "--mask", "causal", "--importance", "--json", "-"}).out);
  CHECK(grid["most_important"] == nlohmann::json::parse("[0,1]"));
  CHECK(grid["answer_changes"][0][1] == true);
  CHECK(grid["importance"][0][1].get<float>() > 2.5f);
  CliRun gpt = cli_in_process({"predict", "--model", fixture_path("hf/gpt2_tiny"), "--text", "It was tired.", "--top-k",
                               "3", "--json", "-"});
  const auto j = json_of(gpt);
  CHECK(j["kind"] == "next_token");
  REQUIRE(j["predictions"].size() == 1);
  REQUIRE(j["predictions"][0]["top"].size() == 3);
  float sum = 0, last = 2;
  for (const auto& t : j["predictions"][0]["top"]) {
    CHECK(t["p"].get<float>() <= last);
    last = t["p"].get<float>();
    sum += last;
  }
  CHECK(sum <= 1.0f + 1e-5f);
}

TEST_CASE("cli attention --measure: value-norm and rollout in --json and --csv") {
  const std::string csv = temp_path("attnviz_cli_measure.csv");
  const auto j = json_of(cli_in_process({"attention", "--model", kCoref, "--text", kTired, "--measure", "rollout",
                                         "--json", "-"}));
  REQUIRE(j["layers"].size() == 2);
  for (const auto& layer : j["layers"]) {
    REQUIRE(layer.contains("rollout"));
    for (const auto& row : layer["rollout"]) {
      float s = 0;
      for (const auto& v : row) s += v.get<float>();
      CHECK(s == doctest::Approx(1.0f).epsilon(1e-5));
    }
  }
  const auto v = json_of(cli_in_process({"attention", "--model", kCoref, "--text", kTired, "--measure", "value-norm",
                                         "--json", "-", "--csv", csv, "--layer", "1", "--head", "3"}));
  // The CSV and the JSON hold the engine's value-norm map.
  auto model = model_open(kCoref);
  REQUIRE(model.ok());
  TraceInput in;
  in.text = kTired;
  auto trace = trace_run(*model, in);
  REQUIRE(trace.ok());
  auto map = value_norm_map(*model, *trace, 1, 3);
  REQUIRE(map.ok());
  const auto& jmap = v["layers"][1]["heads"][3]["value_norm"];
  for (int i = 0; i < map->rows(); ++i)
    for (int k = 0; k < map->cols(); ++k) CHECK(jmap[i][k].get<float>() == (*map)(i, k));
  auto bytes = file_read_bytes(csv);
  REQUIRE(bytes.ok());
  const std::string text(bytes->begin(), bytes->end());
  CHECK(has(text, "query\\key,The,animal"));
  std::filesystem::remove(csv);
}

TEST_CASE("cli heads --set --importance: the mean over sentences, each head's spread and the answers it changes") {
  const TempFile set("attnviz-heads-set.txt");
  REQUIRE(file_write_atomic(set.path(), "# the coreference demo's kind of sentence\n" + kTired + "\tthe seed's\r\n\n" + kWide +
                                            "\nThe horse didn't cross the bridge because it was too scared.\n"));
  const auto j = json_of(cli_in_process({"heads", "--model", kCoref, "--set", set.path(), "--importance", "--json", "-"}));
  REQUIRE(j["sentences"].size() == 3);
  CHECK(j["sentences"][0]["line"] == 2);
  CHECK(j["sentences"][0]["text"] == kTired);
  CHECK(j["sentences"][2]["line"] == 5);
  REQUIRE(j["per_sentence"].size() == 3);
  // Each sentence's grid is the single-sentence command's; the set's is their mean.
  const auto tired = json_of(cli_in_process({"heads", "--model", kCoref, "--text", kTired, "--importance", "--json", "-"}));
  // The same floats (the set's JSON writes each float's shortest text, the single sentence's its double).
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < 4; ++h)
      CHECK(j["per_sentence"][0][l][h].get<float>() == tired["importance"][l][h].get<float>());
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < 4; ++h) {
      double sum = 0;
      for (size_t i = 0; i < 3; ++i) sum += j["per_sentence"][i][l][h].get<double>();
      CHECK(j["importance"][l][h].get<double>() == doctest::Approx(sum / 3).epsilon(1e-6));
      CHECK(j["spread"][l][h].get<double>() >= 0.0);
      CHECK(j["answer_changes"][l][h].get<int>() <= 3);
    }
  // Layer 0 head 2 decides "tired" alone: off, one of the three answers changes; the mean is a third of its drop or more.
  CHECK(j["answer_changes"][0][2].get<int>() >= 1);
  CHECK(j["importance"][0][2].get<double>() >= tired["importance"][0][2].get<double>() / 3 - 1e-6);
  CHECK(j["per_sentence_answer_changes"][0] == tired["answer_changes"]);
  CliRun text = cli_in_process({"heads", "--model", kCoref, "--set", set.path(), "--importance"});
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK(has(text.out, "over 3 sentences"));
  CHECK(has(text.out, "most important on average: layer "));

  // Refused: both --text and --set, no file, no sentence, a sentence without an answer (by its line).
  CliRun both = cli_in_process({"heads", "--model", kCoref, "--set", set.path(), "--text", kTired, "--importance"});
  CHECK(both.status == 2);
  CHECK(has(both.err, "--text or --set, not both"));
  CliRun missing = cli_in_process({"heads", "--model", kCoref, "--set", set.path() + ".none", "--importance"});
  CHECK(missing.status == 1);
  CHECK(has(missing.err, "--set: "));
  REQUIRE(file_write_atomic(set.path(), "# nothing\n\n"));
  CliRun empty = cli_in_process({"heads", "--model", kCoref, "--set", set.path(), "--importance"});
  CHECK(empty.status == 1);
  CHECK(has(empty.err, "no sentence"));
  REQUIRE(file_write_atomic(set.path(), kTired + "\n\nThe animal didn't cross the street.\n"));
  CliRun no_it = cli_in_process({"heads", "--model", kCoref, "--set", set.path(), "--importance"});
  CHECK(no_it.status == 1);
  CHECK(has(no_it.err, "line 3: "));
}

TEST_CASE("cli sentences coref: the demo's held-out and training sentences, one a line") {
  CliRun heldout = cli_in_process({"sentences", "coref"});
  REQUIRE_MESSAGE(heldout.status == 0, heldout.err);
  CHECK(std::count(heldout.out.begin(), heldout.out.end(), '\n') == 1560);
  CHECK(heldout.out.rfind("The bridge couldn't be crossed by the woman because it was too hungry.\n", 0) == 0);
  CliRun train = cli_in_process({"sentences", "coref", "--split", "train"});
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(std::count(train.out.begin(), train.out.end(), '\n') == 7816 - 1560);
  // No held-out sentence is a training one.
  CHECK_FALSE(has(train.out, "The bridge couldn't be crossed by the woman because it was too hungry.\n"));
  const TempFile file("attnviz-sentences.txt");
  CliRun written = cli_in_process({"sentences", "coref", "--out", file.path()});
  REQUIRE_MESSAGE(written.status == 0, written.err);
  CHECK(has(written.out, "1560 sentences written to "));
  auto bytes = file_read_bytes(file.path());
  REQUIRE(bytes.ok());
  CHECK(std::string(bytes->begin(), bytes->end()) == heldout.out);
  CliRun bad = cli_in_process({"sentences", "coref", "--split", "test"});
  CHECK(bad.status == 2);
  CHECK(has(bad.err, "--split is heldout or train, not 'test'"));
  CliRun other = cli_in_process({"sentences", "induction"});
  CHECK(other.status == 2);
  CHECK(has(other.err, "sentences needs a demo name: 'sentences coref'"));
  CliRun foreign = cli_in_process({"sentences", "coref", "--text", "x"});
  CHECK(foreign.status == 2);
}

TEST_CASE("cli predict/heads: usage errors and refused heads name the problem") {
  auto usage = [](std::vector<std::string> args) {
    CliRun r = cli_in_process(args);
    CHECK(r.status == 2);
    return r.err;
  };
  CHECK(has(usage({"predict", "--model", kCoref, "--text", "x", "--ablate", "1"}), "'1' is not a head"));
  CHECK(has(usage({"predict", "--model", kCoref, "--text", "x", "--ablate", "a:b"}), "'a:b' is not a head"));
  CHECK(has(usage({"predict", "--model", kCoref, "--text", "x", "--ablation", "half"}), "zero or mean"));
  CHECK(has(usage({"heads", "--model", kCoref, "--text", "x"}), "heads needs --importance"));
  CHECK(has(usage({"heads", "--text", "x", "--importance"}), "heads needs --model"));
  CHECK(has(usage({"heads", "--model", kCoref, "--importance"}), "heads needs --text or --set"));
  CHECK(has(usage({"attention", "--text", "x", "--measure", "rollout"}), "--measure needs --json"));
  CHECK(has(usage({"attention", "--text", "x", "--measure", "size", "--json", "-"}), "weights, value-norm or rollout"));
  CliRun r = cli_in_process({"predict", "--model", kCoref, "--text", kTired, "--ablate", "2:0"});
  CHECK(r.status == 1);
  CHECK(has(r.err, "the model has layers 0 to 1"));
  r = cli_in_process({"predict", "--model", kCoref, "--text", kTired, "--ablate", "0:4"});
  CHECK(r.status == 1);
  CHECK(has(r.err, "the model has heads 0 to 3"));
  r = cli_in_process({"attention", "--text", "a b", "--source", "c d", "--d-model", "16", "--heads", "2", "--measure",
                      "rollout", "--json", "-"});
  CHECK(r.status == 1);
  CHECK(has(r.err, "not defined for cross-attention"));
}

TEST_CASE("cli generate: greedy tokens are each step's most probable, reuse the prefix, and equal a full forward") {
  const std::string llama = fixture_path("families/llama3_tokenized");
  const auto j = nlohmann::json::parse(
      cli_in_process({"generate", "--model", llama, "--text", "The animal didn't cross", "--tokens", "6", "--json", "-"}).out);
  REQUIRE(j["steps"].size() == 6);
  const std::vector<int> ids = j["ids"];
  const std::vector<int> prompt = j["prompt_ids"];
  REQUIRE(ids.size() == prompt.size() + 6);
  CHECK(j["reused_rows"].get<int>() >= 6 * static_cast<int>(prompt.size()));  // each step computes its new row only
  // Step by step, the chosen token is the first of its list and the full forward's arg-max.
  auto model = model_open(llama);
  REQUIRE(model.ok());
  for (size_t s = 0; s < 6; ++s) {
    const auto& step = j["steps"][s];
    CHECK(step["token"]["id"] == step["top"][0]["id"]);
    CHECK(step["position"].get<size_t>() == prompt.size() + s);
    TraceInput in;
    in.token_ids.assign(ids.begin(), ids.begin() + static_cast<long>(prompt.size() + s));
    auto t = trace_run(*model, in);
    REQUIRE(t.ok());
    auto logits = output_logits(*model, t->final.row(t->n_queries() - 1));
    REQUIRE(logits.ok());
    Eigen::Index best = 0;
    logits->maxCoeff(&best);
    CHECK(static_cast<int>(best) == ids[prompt.size() + s]);
  }
  // Sampling: the same seed gives the same tokens, each from the listed pool; another seed may not.
  auto sampled = [&](const char* seed) {
    return nlohmann::json::parse(cli_in_process({"generate", "--model", llama, "--text", "The animal", "--tokens", "8",
                                                 "--temperature", "1.5", "--top-k", "4", "--seed", seed, "--json", "-"})
                                     .out);
  };
  const auto a = sampled("7"), b = sampled("7");
  CHECK(a["ids"] == b["ids"]);
  for (const auto& step : a["steps"]) {
    bool listed = false;
    for (const auto& t : step["top"]) listed |= t["id"] == step["token"]["id"];
    CHECK(listed);
    CHECK(step["top"].size() == 4);
  }
  CliRun text = cli_in_process({"generate", "--model", llama, "--text", "It was", "--tokens", "2"});
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK(text.out.rfind("It was[", 0) == 0);
  CHECK(has(text.out, "\ntext: "));
}

TEST_CASE("cli generate: models that cannot generate and bad flags are named") {
  CliRun r = cli_in_process({"generate", "--model", fixture_path("hf/bert_tiny"), "--text", "a", "--tokens", "2"});
  CHECK(r.status == 1);
  CHECK(has(r.err, "generation needs a causal model"));
  r = cli_in_process({"generate", "--model", fixture_path("hf/gpt2_tiny"), "--text", "a", "--tokens", "0"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "--tokens"));
  r = cli_in_process({"generate", "--model", fixture_path("hf/gpt2_tiny"), "--text", "a", "--temperature", "-1"});
  CHECK(r.status == 2);
  r = cli_in_process({"generate", "--text", "a"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "generate needs --model PATH"));
  r = cli_in_process({"generate", "--model", fixture_path("hf/gpt2_tiny"), "--text", "a", "--ablate", "0:0"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "--ablate does not apply to 'generate'"));
}

TEST_CASE("cli attention --words --hide-special: words for pieces in the outputs, not with --measure") {
  const auto j = nlohmann::json::parse(cli_in_process({"attention", "--model", fixture_path("hf/bert_tiny"), "--text",
                                                       "The animal didn't cross the street.", "--words",
                                                       "--hide-special", "--json", "-"})
                                           .out);
  for (const auto& t : j["tokens"]) CHECK(t["text"] != "[CLS]");
  // [CLS] and [SEP] left out; BERT's own pre-tokenizer splits "didn't" at the apostrophe into three
  // words (didn ' t), which no ## piece joins: 9 words.
  CHECK(j["tokens"].size() == 9);
  CliRun r = cli_in_process({"attention", "--model", fixture_path("hf/bert_tiny"), "--text", "a", "--words", "--measure",
                             "rollout", "--json", "-"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "--words shows the softmax weights only"));
}

TEST_CASE("cli predict/heads: why there is no answer is printed in English, the words the app's English uses") {
  auto refused = [](std::vector<std::string> args) {
    CliRun r = cli_in_process(args);
    CHECK(r.status == 1);
    return r.err;
  };
  // BERT without its masked-LM head (cls.predictions.*) has no output head.
  const std::string no_head = refused({"predict", "--model", fixture_path("hf/bert_tiny_cased"), "--text", "The cat sat."});
  CHECK(no_head ==
        "attnviz-cli: the model has no output head (a random sandbox has none; BERT needs cls.predictions.*)\n");
  CHECK(no_head == "attnviz-cli: " + no_answer_english(NoAnswer{NoAnswerReason::no_output_head, {}}) + "\n");
  CHECK(refused({"heads", "--model", fixture_path("hf/bert_tiny_cased"), "--text", "The cat sat.", "--importance"}) == no_head);
  // With the head, it answers only at a [MASK].
  CHECK(refused({"predict", "--model", fixture_path("hf/bert_mlm"), "--text", "The cat sat."}) ==
        "attnviz-cli: type [MASK] where the model should fill in a word: its masked-LM head answers there\n");
  // The coreference demo without "it", and the induction demo (a word model too) without the causal
  // mask: the flag that makes a next-token model answer is named.
  const std::string no_it =
      "attnviz-cli: the sentence has no pronoun \"it\" for the model to resolve (a model that predicts the next token "
      "answers under the causal mask) (--mask causal)\n";
  CHECK(refused({"predict", "--model", kCoref, "--text", "The animal didn't cross the street."}) == no_it);
  CHECK(refused({"predict", "--model", std::string(ATTNVIZ_ASSETS) + "/demo_induction", "--text", "t3 t9 t3"}) == no_it);
}

TEST_CASE("cli patch: the coreference demo's pair by head and by position, as JSON") {
  const auto head = json_of(cli_in_process({"patch", "--model", "demo:coref", "--clean", kTired, "--corrupt", kWide, "--json", "-"}));
  CHECK(head["metric"] == "log_prob_diff");
  CHECK(head["by"] == "head");
  CHECK(head["clean"].get<float>() == doctest::Approx(8.0772).epsilon(1e-4));
  CHECK(head["corrupt"].get<float>() == doctest::Approx(-7.6329).epsilon(1e-4));
  CHECK(head["clean_referent"]["text"] == "animal");
  CHECK(head["corrupt_referent"]["position"] == 5);
  REQUIRE(head["effect"].size() == 2);
  CHECK(head["effect"][0][2].get<float>() > 0.9f);
  CHECK(head["patched_answer"][0][2] == "animal");
  CHECK(head["tokens"][10] == nlohmann::json::parse(R"(["tired", "wide"])"));
  const auto pos = json_of(cli_in_process({"patch", "--model", "demo:coref", "--clean", kTired, "--corrupt", kWide,
                                           "--by", "position", "--json", "-"}));
  CHECK(pos["by"] == "position");
  REQUIRE(pos["effect"][0].size() == 12);
  CHECK(pos["effect"][0][10] == 1.0);
  CHECK(pos["effect"][0][9] == 0.0);
  CliRun text = cli_in_process({"patch", "--model", "demo:coref", "--clean", kTired, "--corrupt", kWide});
  REQUIRE_MESSAGE(text.status == 0, text.err);
  CHECK(has(text.out, "metric: log p(animal #1) - log p(street #5) at \"it\"\nclean 8.077"));
  CHECK(has(text.out, "    0    0.00"));
}

TEST_CASE("cli patch and --logit-attribution on the GPT-2 fixture: tokens by text or id, refusals by name") {
  const std::string gpt2 = fixture_path("hf/gpt2_tiny");
  const auto j = json_of(cli_in_process({"patch", "--model", gpt2, "--clean", "the cat sat on the", "--corrupt",
                                         "the hat sat on the", "--answer", " on", "--wrong-id", "60", "--json", "-"}));
  CHECK(j["metric"] == "logit_diff");
  CHECK(j["answer"]["id"] == 345);
  CHECK(j["answer"]["text"] == "·on");
  CHECK(j["wrong"]["id"] == 60);
  CHECK(j["effect"].size() == 2);
  CHECK(j["effect"][0].size() == 4);

  CliRun two = cli_in_process({"patch", "--model", gpt2, "--clean", "the cat sat on the", "--corrupt", "the hat sat on the",
                               "--answer", " the street"});
  CHECK(two.status == 1);
  CHECK(has(two.err, "--answer: ' the street' is 2 tokens, not one: '·the', '·street'"));
  CliRun lengths = cli_in_process({"patch", "--model", gpt2, "--clean", "the cat sat on", "--corrupt", "the dog sat on"});
  CHECK(lengths.status == 1);
  CHECK(has(lengths.err, "the clean text has 7 tokens and the corrupt text 8"));
  CliRun same = cli_in_process({"patch", "--model", gpt2, "--clean", "the cat sat on", "--corrupt", "the cat sat on"});
  CHECK(same.status == 1);
  CHECK(has(same.err, "there is nothing to patch"));
  CHECK(cli_in_process({"patch", "--model", gpt2, "--clean", "a"}).status == 2);
  CHECK(cli_in_process({"patch", "--model", gpt2, "--clean", "a", "--corrupt", "b", "--by", "layer"}).status == 2);
  CHECK(cli_in_process({"patch", "--model", gpt2, "--clean", "a", "--corrupt", "b", "--answer", "x", "--answer-id", "3"}).status == 2);

  const auto a = json_of(cli_in_process({"heads", "--model", gpt2, "--text", "the cat sat on the", "--logit-attribution",
                                         "--json", "-"}));
  const auto& at = a["attribution"];
  REQUIRE(at["heads"].size() == 2);
  REQUIRE(at["mlps"].size() == 2);
  double sum = at["embeddings"].get<double>() + at["biases"].get<double>();
  for (const auto& row : at["heads"])
    for (const auto& v : row) sum += v.get<double>();
  for (const auto& v : at["mlps"]) sum += v.get<double>();
  CHECK(std::fabs(sum - at["total"].get<double>()) < 1e-4);
  CHECK(std::fabs(at["total"].get<double>() - a["logit_diff"].get<double>()) < 1e-4);
  CHECK(a["position"] == 7);
  CHECK(cli_in_process({"heads", "--model", gpt2, "--text", "x", "--logit-attribution", "--importance"}).status == 2);
  CHECK(cli_in_process({"heads", "--model", gpt2, "--text", "x", "--importance", "--answer", " on"}).status == 2);
  CliRun coref = cli_in_process({"heads", "--model", "demo:coref", "--text", kTired, "--logit-attribution"});
  CHECK(coref.status == 1);
  CHECK(has(coref.err, "under the causal mask"));
}
