// attnviz-cli: option parsing (usage errors are one line, exit 2), end-to-end runs against the
// PyTorch fixtures through --weights/--input-npy/--json, and every output format.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "cli_options.h"
#include "cli_run.h"
#include "io/model_file.h"
#include "io/npy.h"
#include "support/check_util.h"
#include "support/cli_util.h"
#include "support/fixture_util.h"

using namespace attnviz;
using namespace attnviz::test;
using attnviz::test::has;

namespace {

TempFile cli_temp(const std::string& name) { return TempFile("attnviz_cli_" + name); }

using Run = CliRun;
CliRun run(const std::vector<std::string>& args) { return cli_in_process(args); }
// Runs the real binary quietly; returns its exit status.
int run_binary(const std::string& args) { return cli_binary_status(args + " >/dev/null 2>&1"); }

}  // namespace

TEST_CASE("cli: usage errors are one line and name the problem") {
  auto check = [](std::vector<std::string> args, const std::string& expected) {
    auto r = cli_parse(args);
    REQUIRE_FALSE(r.ok());
    CHECK_MESSAGE(r.error().find(expected) != std::string::npos, r.error());
    CHECK(r.error().find('\n') == std::string::npos);
  };
  check({}, "no command");
  check({"frobnicate"}, "unknown command");
  check({"attention", "--text"}, "--text needs a value");
  check({"attention", "--text", "hi", "--bogus", "1"}, "unknown flag --bogus");
  check({"attention", "--text", "hi", "--heads", "three"}, "--heads 'three'");
  check({"attention", "--text", "hi", "--heads", "3"}, "not divisible by 3 heads");
  check({"attention"}, "exactly one of --text or --input-npy");
  check({"attention", "--text", "hi", "--input-npy", "x.npy"}, "exactly one of");
  check({"attention", "--text", "hi", "--csv", "out.csv", "--layer", "0"}, "--csv needs --layer and --head");
  check({"attention", "--text", "hi", "--png", "out.png"}, "--png needs --layer");
  check({"attention", "--text", "hi", "--mask", "diagonal"}, "unknown mask");
  check({"attention", "--text", "hi", "--temperature", "0"}, "--temperature '0'");
  check({"attention", "--text", "hi", "--score", "cosine"}, "scaled_dot, dot, general or additive");
  check({"attention", "--text", "hi", "--no-weights=1"}, "takes no value");
}

TEST_CASE("cli: flags set the config and combine masks, --flag=value works") {
  auto o = cli_parse({"attention", "--text=it was tired", "--d-model", "96", "--heads=12", "--layers", "3", "--norm", "pre",
                      "--activation", "gelu", "--score", "additive", "--temperature", "0.5", "--mask", "causal",
                      "--mask", "window:2", "--seed", "99"});
  REQUIRE_MESSAGE(o.ok(), o.error());
  CHECK(o->text == "it was tired");
  CHECK(o->config.d_model == 96);
  CHECK(o->config.n_heads == 12);
  CHECK(o->config.n_layers == 3);
  CHECK(o->config.norm == NormPlacement::pre);
  CHECK(o->config.activation == Activation::gelu);
  CHECK(o->config.score == ScoreKind::additive);
  CHECK(o->config.temperature == doctest::Approx(0.5));
  CHECK(o->mask.causal);
  CHECK(o->mask.window == 2);
  CHECK(o->seed == 99);
  CHECK(cli_parse({"--help"})->command == CliCommand::help);
  CHECK(cli_help().find("--mask SPEC") != std::string::npos);
}

TEST_CASE("cli: --weights + --input-npy + --json reproduce PyTorch's numbers (encoder fixture)") {
  const std::string fixture = fixture_path("torch/encoder_c64_h4_post_relu_causal.safetensors");
  const TensorFile f = load_fixture(fixture);
  const TempFile npy = cli_temp("input.npy");
  const auto bytes = npy_serialize(fixture_mat(f, "fixture.input"));
  REQUIRE(file_write_atomic(npy, std::span<const uint8_t>(bytes)).ok());
  const TempFile json_path = cli_temp("trace.json");
  Run r = run({"attention", "--weights", fixture, "--input-npy", npy, "--mask", "causal", "--json", json_path});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto text = file_read_bytes(json_path);
  REQUIRE(text.ok());
  const auto j = nlohmann::json::parse(text->begin(), text->end());
  CHECK(j["model"]["config"]["n_heads"] == 4);
  CHECK(j["tokens"].size() == 8);
  REQUIRE(j["layers"].size() == 2);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      const Mat expect = fixture_slice(f, "fixture.weights." + std::to_string(l), h);
      const auto& got = j["layers"][l]["heads"][h]["weights"];
      float worst = 0;
      for (int q = 0; q < expect.rows(); ++q)
        for (int k = 0; k < expect.cols(); ++k) worst = std::max(worst, std::abs(got[q][k].get<float>() - expect(q, k)));
      CHECK(worst < 1e-5f);
      CHECK(j["layers"][l]["heads"][h]["top_keys"][0].size() == 1);  // query 0 sees only key 0 (causal)
    }
  const Mat out = fixture_mat(f, "fixture.layer_out.1");
  float worst = 0;
  for (int t = 0; t < out.rows(); ++t)
    for (int c = 0; c < out.cols(); ++c) worst = std::max(worst, std::abs(j["final_hidden"][t][c].get<float>() - out(t, c)));
  CHECK(worst < 1e-5f);
}

TEST_CASE("cli: --csv, --png and --save-weights write files, the summary names tokens and heads") {
  const TempFile csv = cli_temp("head.csv"), png = cli_temp("layer.png"), weights = cli_temp("model.safetensors");
  Run r = run({"attention", "--text", "The cat, the mat", "--d-model", "32", "--heads", "2", "--ffn", "32", "--csv", csv,
               "--layer", "0", "--head", "1", "--png", png, "--save-weights", weights});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto c = file_read_bytes(csv);
  REQUIRE(c.ok());
  const std::string text(c->begin(), c->end());
  CHECK(text.rfind("query\\key,The,cat,\",\",the,mat\n", 0) == 0);  // the comma token is quoted
  CHECK(std::count(text.begin(), text.end(), '\n') == 6);
  auto p = file_read_bytes(png);
  REQUIRE(p.ok());
  REQUIRE(p->size() > 1000);
  CHECK((*p)[1] == 'P');
  CHECK((*p)[2] == 'N');
  // The saved model reproduces the same attention when loaded back.
  const TempFile csv2 = cli_temp("head2.csv");
  Run again = run({"attention", "--text", "The cat, the mat", "--weights", weights, "--csv", csv2, "--layer", "0", "--head", "1"});
  REQUIRE_MESSAGE(again.status == 0, again.err);
  CHECK(file_read_bytes(csv2)->size() == c->size());
  CHECK(*file_read_bytes(csv2) == *c);

  Run summary = run({"attention", "--text", "it was tired", "--d-model", "16", "--heads", "2", "--ffn", "16"});
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("0:it 1:was 2:tired") != std::string::npos);
  CHECK(summary.out.find("scaled_dot") != std::string::npos);
}

TEST_CASE("cli: unreadable or invalid files exit 1 naming the problem, as does a layer or head out of range") {
  Run missing = run({"attention", "--text", "hi", "--weights", "/nonexistent/model.safetensors"});
  CHECK(missing.status == 1);
  CHECK(missing.err.find("/nonexistent/model.safetensors") != std::string::npos);
  const TempFile junk = cli_temp("junk.safetensors");
  REQUIRE(file_write_atomic(junk, std::string_view("not a safetensors file at all")).ok());
  Run bad = run({"attention", "--text", "hi", "--weights", junk});
  CHECK(bad.status == 1);
  CHECK(bad.err.find("safetensors") != std::string::npos);
  Run layer = run({"attention", "--text", "hi", "--d-model", "16", "--heads", "2", "--png", cli_temp("x.png"), "--layer", "4"});
  CHECK(layer.status == 1);
  CHECK(layer.err.find("layer 4 does not exist") != std::string::npos);
  Run unwritable = run({"attention", "--text", "hi", "--d-model", "16", "--heads", "2", "--json", "/nonexistent/dir/out.json"});
  CHECK(unwritable.status == 1);
  CHECK(unwritable.err.find("--json") != std::string::npos);
}

TEST_CASE("cli: the real binary exits 0, 1 and 2 as documented") {
  CHECK(run_binary("--help") == 0);
  CHECK(run_binary("attention --text 'hi there' --d-model 16 --heads 2 --ffn 8") == 0);
  CHECK(run_binary("attention --heads 3 --text hi") == 2);
  CHECK(run_binary("attention --text hi --weights /nonexistent.safetensors") == 1);
  CHECK(run_binary("attention --text hi --heads 8 --weights " +
                   fixture_path("torch/encoder_c64_h4_post_relu_causal.safetensors")) == 2);
}

TEST_CASE("cli: every architecture flag that disagrees with the model file is a usage error naming both values") {
  // d_model 64, 4 heads, 2 layers, d_ff 48, relu, post-norm, no positions, eps 1e-5.
  const std::string file = fixture_path("torch/encoder_c64_h4_post_relu_causal.safetensors");
  auto refused = [&](const std::string& flag, const std::string& value, const std::string& message) {
    Run r = run({"attention", "--text", "hi", "--weights", file, "--" + flag, value});
    CHECK(r.status == 2);
    CHECK(r.err == "attnviz-cli: " + message + "\n");
    CHECK(r.out.empty());
  };
  refused("d-model", "32", "--d-model 32 disagrees with the model file's d_model 64");
  refused("heads", "2", "--heads 2 disagrees with the model file's n_heads 4");
  refused("layers", "1", "--layers 1 disagrees with the model file's n_layers 2");
  refused("ffn", "128", "--ffn 128 disagrees with the model file's d_ff 48");
  refused("activation", "gelu", "--activation gelu disagrees with the model file's activation relu");
  refused("norm", "pre", "--norm pre disagrees with the model file's norm post");
  refused("positions", "sinusoidal", "--positions sinusoidal disagrees with the model file's positions none");
  refused("ln-eps", "1e-6", "--ln-eps 1e-06 disagrees with the model file's ln_eps 1e-05");
  // A flag equal to the file's value is fine, and so is the same model named by --model.
  for (const char* source : {"--weights", "--model"}) {
    Run same = run({"attention", "--text", "hi",       source,        file,    "--d-model", "64",
                    "--heads",   "4",      "--layers", "2",           "--ffn", "48",        "--activation",
                    "relu",      "--norm", "post",     "--positions", "none",  "--ln-eps",  "1e-5"});
    CHECK_MESSAGE(same.status == 0, same.err);
  }

  // A PyTorch state dict without our config: what its shapes fix is checked the same way.
  ModelConfig learned;
  learned.d_model = 16;
  learned.n_heads = 2;
  learned.d_ff = 16;
  learned.positions = PositionEncoding::learned;
  learned.max_positions = 8;
  TensorFile raw = model_to_tensors(model_init_random(learned, 1));
  raw.metadata.clear();
  const std::string raw_path = cli_temp("raw_state_dict.safetensors");
  REQUIRE(safetensors_write(raw_path, raw).ok());
  Run shapes = run({"attention", "--text", "hi", "--weights", raw_path, "--heads", "2", "--positions", "sinusoidal"});
  CHECK(shapes.status == 2);
  CHECK(shapes.err == "attnviz-cli: --positions sinusoidal disagrees with the model file's positions learned\n");
  std::filesystem::remove(raw_path);
}

TEST_CASE("cli: a model file whose config has an unknown key is refused, not opened with a default") {
  // "heads" for "n_heads", as a hand-written PyTorch export might spell it: once 8 heads and exit 0.
  ModelConfig c;
  c.d_model = 64;
  c.n_heads = 4;
  c.d_ff = 32;
  TensorFile f = model_to_tensors(model_init_random(c, 1));
  f.metadata[kConfigKey] = R"({"d_model": 64, "heads": 4, "d_ff": 32})";
  const std::string path = cli_temp("typo.safetensors");
  REQUIRE(safetensors_write(path, f).ok());
  Run r = run({"attention", "--text", "hi", "--weights", path});
  CHECK(r.status == 1);
  CHECK(r.err.rfind("attnviz-cli: '" + path + "': attnviz.config: unknown key 'heads' (known: d_model, n_heads, ", 0) ==
        0);
  std::filesystem::remove(path);
}

TEST_CASE("cli: --score replaces the file's scoring function on every head, its per-head choices too") {
  ModelConfig c;
  c.d_model = 16;
  c.n_heads = 2;
  c.d_ff = 16;
  c.head_scores = {ScoreKind::general, ScoreKind::additive};
  const std::string path = cli_temp("head_scores.safetensors");
  REQUIRE(model_save(path, model_init_random(c, 1)).ok());
  Run kept = run({"attention", "--text", "hi there", "--weights", path});
  REQUIRE_MESSAGE(kept.status == 0, kept.err);
  CHECK(kept.out.find("general") != std::string::npos);
  Run dot = run({"attention", "--text", "hi there", "--weights", path, "--score", "dot"});
  REQUIRE_MESSAGE(dot.status == 0, dot.err);
  CHECK(dot.out.find("general") == std::string::npos);
  CHECK(dot.out.find("additive") == std::string::npos);
  CHECK(dot.out.find("    0    1  dot") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("cli: train coref writes a model that predict reads, JSON lists every head's attention to the candidates") {
  const TempFile dir = cli_temp("coref_model");
  Run train = run({"train", "coref", "--seed", "3", "--steps", "40", "--out", dir});
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(has(train.out, "seed 3, 16 sentences a step (heads4_dmodel32)\n"));
  CHECK(train.out.find("step    40") != std::string::npos);
  CHECK(train.out.find("saved") != std::string::npos);
  const TempFile json = cli_temp("predict.json");
  Run predict = run({"predict", "--model", dir, "--text", "The animal didn't cross the street because it was too tired.",
                     "--json", json});
  REQUIRE_MESSAGE(predict.status == 0, predict.err);
  CHECK(predict.out.rfind("it (#7) -> ", 0) == 0);
  auto bytes = file_read_bytes(json);
  REQUIRE(bytes.ok());
  const auto j = nlohmann::json::parse(bytes->begin(), bytes->end());
  CHECK(j["pronoun"]["index"] == 7);
  CHECK(j["candidates"][0]["text"] == "animal");
  CHECK(j["candidates"][1]["text"] == "street");
  REQUIRE(j["heads"].size() == 8);  // 2 layers x 4 heads
  for (const auto& h : j["heads"]) {
    const float a = h["to_candidates"][0].get<float>(), b = h["to_candidates"][1].get<float>();
    CHECK(a >= 0.0f);
    CHECK(a + b <= 1.0f + 1e-5f);
  }
  Run no_it = run({"predict", "--model", dir, "--text", "The cat sat on the mat."});
  CHECK(no_it.status == 1);
  CHECK(no_it.err.find("no pronoun") != std::string::npos);
}

TEST_CASE("cli: counts agree with their number (1 head, 2 heads)") {
  CHECK(counted(1, "head") == "1 head");
  CHECK(counted(0, "layer") == "0 layers");
  CHECK(counted(16, "sentence") == "16 sentences");
}

TEST_CASE("cli: the demo commands' usage errors") {
  auto error_of = [](std::vector<std::string> args) {
    auto r = cli_parse(args);
    return r.ok() ? std::string("(accepted)") : r.error();
  };
  CHECK(has(error_of({"train"}), "train coref"));
  CHECK(has(error_of({"train", "coref"}), "needs --out"));
  CHECK(has(error_of({"predict", "--text", "it"}), "needs --model"));
  CHECK(has(error_of({"attention", "--text", "hi", "--out", "x"}), "does not apply to 'attention'"));
  CHECK(has(error_of({"train", "coref", "--out", "d", "--mask", "causal"}), "does not apply to 'train'"));
  CHECK(has(error_of({"train", "induction"}), "train induction needs --out"));
  CHECK(has(error_of({"train", "sideways", "--out", "d"}), "'train induction'"));
  CHECK(has(error_of({"train", "coref", "--out", "d", "--batch", "0"}), "--batch"));
  CHECK(has(error_of({"train", "coref", "--out", "d", "--batch", "x"}), "--batch"));
  CHECK(has(error_of({"attention", "--text", "hi", "--batch", "4"}), "does not apply to 'attention'"));
  auto batch = cli_parse({"train", "coref", "--out", "d", "--batch", "48"});
  REQUIRE_MESSAGE(batch.ok(), batch.error());
  CHECK(batch->batch == 48);
}

TEST_CASE("cli: train induction writes an attention-only model that loads, and reports the induction head") {
  const std::string dir = cli_temp("induction_model");
  Run train = run({"train", "induction", "--seed", "2", "--steps", "50", "--heads", "4", "--d-model", "16", "--out", dir});
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(has(train.out,
            "training the induction demo (attention only): d_model 16, 4 heads, 2 layers, seed 2, 8 sequences a step "
            "(heads4_dmodel16)\n"));
  // One line per evaluation (every 25 steps): step, loss, held-out accuracy, time, and the induction
  // head's score on the repeat with its detector score.
  const size_t line = train.out.find("step    25  loss ");
  REQUIRE(line != std::string::npos);
  const std::string first = train.out.substr(line, train.out.find('\n', line) - line);
  CHECK(has(first, "% "));
  CHECK(has(first, " s  induction 0."));
  CHECK(has(first, " (detector 0."));
  CHECK(has(train.out, "step    50  loss "));
  CHECK(has(train.out, "steps; induction head L1H"));
  CHECK(has(train.out, " on the repeat (detector 0."));
  CHECK(has(train.out, ", previous-token head L0H"));
  CHECK(has(train.out, "; target not reached — saved "));  // 50 steps form no head
  CHECK(has(train.out, "saved "));
  auto model = model_load((std::filesystem::path(dir) / "model.safetensors").string(), std::nullopt);
  REQUIRE_MESSAGE(model.ok(), model.error());
  CHECK(model->config.d_ff == 0);
  CHECK(model->config.n_layers == 2);
  CHECK(model->config.n_heads == 4);
  CHECK(model->config.d_model == 16);
  CHECK(model->vocab.size() == 32);
  CHECK(model->vocab[5] == "t5");
  // The saved model runs like any other: attention over a repeated sequence of its tokens.
  Run attention = run({"attention", "--weights", (std::filesystem::path(dir) / "model.safetensors").string(), "--text",
                       "t1 t2 t3 t1 t2", "--mask", "causal"});
  REQUIRE_MESSAGE(attention.status == 0, attention.err);
  CHECK(has(attention.out, "4 heads, 2 layers, "));
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: train induction takes the Model panel's architecture, and says why 1 layer cannot do it") {
  const std::string dir = cli_temp("induction_arch");
  Run train = run({"train", "induction", "--steps", "25", "--layers", "3", "--ffn", "32", "--score", "additive",
                   "--norm", "post", "--positions", "sinusoidal", "--out", dir});
  REQUIRE_MESSAGE(train.status == 0, train.err);
  CHECK(has(train.out,
            "training the induction demo: d_model 32, 2 heads, 3 layers, seed 1, 8 sequences a step "
            "(heads2_dmodel32_layers3_ffn32_additive_post_sinusoidal)\n"));
  auto model = model_load((std::filesystem::path(dir) / "model.safetensors").string(), std::nullopt);
  REQUIRE_MESSAGE(model.ok(), model.error());
  CHECK(model->config.n_layers == 3);
  CHECK(model->config.d_ff == 32);
  CHECK(model->config.score == ScoreKind::additive);
  CHECK(model->config.norm == NormPlacement::post);
  CHECK(model->config.positions == PositionEncoding::sinusoidal);
  std::filesystem::remove_all(dir);
  Run one = run({"train", "induction", "--steps", "25", "--layers", "1", "--out", dir});
  CHECK(one.status != 0);
  CHECK(has(one.err, "an induction head needs at least 2 layers (got 1)"));
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("cli: --ffn 0 runs attention-only layers") {
  Run r = run({"attention", "--text", "the cat sat", "--d-model", "16", "--heads", "2", "--ffn", "0"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(has(r.out, "0:the 1:cat 2:sat"));
  Run bad = run({"attention", "--text", "hi", "--ffn", "-1"});
  CHECK(bad.status == 2);
  CHECK(has(bad.err, "from 0 to"));
}

TEST_CASE("cli: attention --model opens a BERT checkpoint folder, --text-b makes a sentence pair, JSON has ids") {
  const std::string json = cli_temp("bert_pair.json");
  const Run r = run({"attention", "--model", fixture_path("hf/bert_tiny"), "--text", "The animal didn't cross the street.",
                     "--text-b", "It was too tired.", "--json", json});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto text = file_read_bytes(json);
  REQUIRE(text.ok());
  const auto j = nlohmann::json::parse(text->begin(), text->end());
  // The reference case "pair" of tests/fixtures/hf/bert_tiny/reference.json: the same ids and segments.
  const std::vector<int> ids = {101, 208, 209, 210, 110, 165, 211, 208, 212, 117, 102, 214, 215, 216, 217, 117, 102};
  REQUIRE(j["tokens"].size() == ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    CHECK(j["tokens"][i]["id"] == ids[i]);
    CHECK(j["tokens"][i]["segment"] == (i >= 11 ? 1 : 0));
  }
  CHECK(j["tokens"][4]["kind"] == "punct");
  CHECK(j["tokens"][1]["piece"] == "the");
  CHECK(j["tokens"][1]["text"] == "The");  // labels show what was typed; the uncased model read "the"
  std::filesystem::remove(json);
}

TEST_CASE("cli: --model with a GPT-2 checkpoint, predict gives its next tokens, --model and --weights exclude each other") {
  Run r = run({"attention", "--model", fixture_path("hf/gpt2_tiny"), "--text", "It was tired.<|endoftext|>It"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(has(r.out, "pre-norm"));
  CHECK(has(r.out, "<|endoftext|>"));
  r = run({"predict", "--model", fixture_path("hf/gpt2_tiny"), "--text", "It was tired."});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.rfind("next token after #", 0) == 0);
  r = run({"attention", "--model", fixture_path("hf/gpt2_tiny"), "--weights", "x.safetensors", "--text", "a"});
  CHECK(r.status == 2);
  CHECK(r.err == "give one of --model or --weights");
}

TEST_CASE("cli: attention --attention reads a saved attention file: statistics, JSON, CSV, PNG, cross") {
  const std::string file = fixture_path("attention/encdec_f32.safetensors");
  Run summary = run({"attention", "--attention", file});
  REQUIRE_MESSAGE(summary.status == 0, summary.err);
  CHECK(
      has(summary.out, "attention file: " + file + " (tiny random encoder-decoder) — 2 heads, 2 layers, weights only"));
  CHECK(has(summary.out, "tokens (5): 0:<s> 1:Die 2:\xC2\xB7Katze"));
  CHECK(has(summary.out, "cross-attention: "));
  CHECK(has(summary.out, "keys (4): 0:\xC2\xB7The"));
  CHECK(summary.err.empty());

  const TempFile json = cli_temp("attn.json"), csv = cli_temp("attn.csv"), png = cli_temp("attn.png");
  Run out = run({"attention", "--attention", file, "--json", json, "--csv", csv, "--layer", "1", "--head", "1", "--png", png,
                 "--measure", "rollout"});
  REQUIRE_MESSAGE(out.status == 0, out.err);
  const auto json_bytes = file_read_bytes(json);
  REQUIRE(json_bytes.ok());
  auto j = nlohmann::json::parse(std::string(json_bytes->begin(), json_bytes->end()));
  CHECK(j["weights_only"] == true);
  CHECK(j["layers"].size() == 2);
  CHECK(j["layers"][0]["heads"].size() == 2);
  CHECK(j["layers"][1].contains("rollout"));
  CHECK_FALSE(j.contains("final_hidden"));
  CHECK(j["tokens"][2]["piece"] == "\xC4\xA0Katze");  // as saved; "text" shows the space mark
  CHECK(file_read_bytes(csv)->size() > 20);
  CHECK(file_read_bytes(png)->size() > 1000);

  Run cross = run({"attention", "--attention", file, "--cross", "--csv", csv, "--layer", "0", "--head", "0"});
  REQUIRE_MESSAGE(cross.status == 0, cross.err);
  const auto text = file_read_bytes(csv);
  CHECK(std::string(text->begin(), text->end()).rfind("query\\key,\xC2\xB7The,", 0) == 0);
  Run no_cross = run({"attention", "--attention", fixture_path("attention/encoder_f16.safetensors"), "--cross", "--json", json});
  CHECK(no_cross.status == 1);
  CHECK(has(no_cross.err, "has no cross_attentions"));
}

TEST_CASE("cli: --attention with a flag that needs a model is a usage error naming both") {
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--model", "x"}, {"--weights", "x"}, {"--text", "hi"}, {"--ablate", "0:0"}, {"--heads", "2"}}) {
    std::vector<std::string> args = {"attention", "--attention", "a.safetensors"};
    args.insert(args.end(), extra.begin(), extra.end());
    Run r = run(args);
    CAPTURE(extra[0]);
    CHECK(r.status == 2);
    CHECK(has(r.err, "--attention and " + extra[0] + " cannot be combined"));
  }
  Run vn = run({"attention", "--attention", "a.safetensors", "--measure", "value-norm", "--json", "-"});
  CHECK(vn.status == 2);
  CHECK(has(vn.err, "--attention and --measure value-norm cannot be combined"));
  CHECK(run({"attention", "--text", "hi", "--cross"}).status == 2);
  Run missing = run({"attention", "--attention", "/nonexistent/attention.safetensors"});
  CHECK(missing.status == 1);
  CHECK(has(missing.err, "attention file"));
  // Rows that do not sum to 1 are listed, not hidden.
  TensorFile f;
  f.metadata["tokens"] = R"(["a", "b"])";
  Tensor t;
  t.name = "attentions.0";
  t.shape = {1, 2, 2};
  t.data = {0.5f, 0.5f, 0.25f, 0.25f};
  f.tensors = {t};
  const TempFile path = cli_temp("off.safetensors");
  REQUIRE(safetensors_write(path, f).ok());
  Run off = run({"attention", "--attention", path});
  CHECK(off.status == 0);
  CHECK(has(off.err, "1 attention row(s) do not sum to 1"));
  CHECK(has(off.err, "layer 0 head 0 row 1 (sum 0.5)"));
}

TEST_CASE("cli: --max-trace-memory sets the trace's limit; a longer input is refused naming the tokens that fit") {
  auto o = cli_parse({"attention", "--text", "hi", "--max-trace-memory", "8G"});
  REQUIRE(o.ok());
  CHECK(o->max_trace_memory == int64_t{8} << 30);
  CHECK(cli_parse({"predict", "--model", "m", "--text", "hi", "--max-trace-memory", "1.5G"})->max_trace_memory ==
        int64_t{3} << 29);
  CHECK(cli_parse({"attention", "--text", "hi"})->max_trace_memory == 0);  // sized from the machine
  CHECK(cli_parse({"attention", "--text", "hi", "--max-trace-memory", "8X"}).error() ==
        "--max-trace-memory '8X': unknown unit 'X' (K, M, G or T: 8G, 512M)");
  CHECK(cli_parse({"attention", "--text", "hi", "--max-trace-memory", "100K"}).error() ==
        "--max-trace-memory '100K' is outside 1M to 1024T");
  CHECK(has(cli_parse({"attention", "--attention", "a.safetensors", "--max-trace-memory", "8G"}).error(),
            "--attention and --max-trace-memory cannot be combined"));
  CHECK(has(cli_help(), "--max-trace-memory SIZE"));
  // 2 layers x 2 heads of d_model 16: 266 tokens fit in 4 MiB (tests/core/base/test_memory_available.cpp).
  std::string words;
  for (int i = 0; i < 267; ++i) words += "cat ";
  const std::vector<std::string> small = {"attention", "--text", words, "--d-model", "16", "--heads", "2",
                                          "--layers", "2", "--ffn", "32"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = small;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  Run refused = with({"--max-trace-memory", "4M"});
  CHECK(refused.status == 1);
  CHECK(has(refused.err, "attnviz-cli: the attention weights would take "));
  CHECK(has(refused.err, ": 266 tokens fit in this model."));
  CHECK(has(refused.err, "raise the limit with --max-trace-memory SIZE (1G for this input)"));
  Run runs = with({"--max-trace-memory", "8M"});
  CHECK_MESSAGE(runs.status == 0, runs.err);
  CHECK(has(runs.out, "tokens (267):"));
}

TEST_CASE("cli: --layers-kept keeps a GGUF model's layers decoded or not, the same output; refused for other models") {
  const std::string gguf = fixture_path("gguf_models/gemma3_q8_0/model.gguf");
  CHECK(cli_parse({"attention", "--model", gguf, "--text", "hi", "--layers-kept", "0"})->layers_kept == 0);
  CHECK(cli_parse({"attention", "--model", gguf, "--text", "hi"})->layers_kept == -1);
  CHECK(has(cli_parse({"attention", "--model", gguf, "--text", "hi", "--layers-kept", "-1"}).error(), "layers-kept"));
  CHECK(has(cli_help(), "--layers-kept N"));
  const std::vector<std::string> base = {"attention", "--model", gguf, "--text", "The animal didn't cross the street"};
  std::vector<std::string> none = base;
  none.insert(none.end(), {"--layers-kept", "0"});
  const Run by_memory = run(base), every_time = run(none);
  REQUIRE_MESSAGE(by_memory.status == 0, by_memory.err);
  REQUIRE_MESSAGE(every_time.status == 0, every_time.err);
  CHECK(every_time.out == by_memory.out);
  const Run checkpoint = run({"attention", "--model", fixture_path("hf/gpt2_tiny"), "--text", "hi", "--layers-kept", "2"});
  CHECK(checkpoint.status == 1);
  CHECK(has(checkpoint.err, "is not a GGUF file"));
  const Run sandbox = run({"attention", "--text", "hi", "--layers-kept", "2"});
  CHECK(sandbox.status == 1);
  CHECK(has(sandbox.err, "--layers-kept needs a GGUF model"));
}
