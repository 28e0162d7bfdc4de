// attnviz-cli train translate: a short run saved where --out says and read back as a translation
// model with the asked architecture; the flags that do not apply are refused by name.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/file_io.h"
#include "demos/translate_file.h"
#include "base/json.h"
#include "support/check_util.h"
#include "support/cli_util.h"

using namespace attnviz;
using namespace attnviz::test;

TEST_CASE("cli: train translate saves a translation model; --positions and a missing --out are refused") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "attnviz_translate_test";
  std::filesystem::remove_all(dir);
  const CliRun r = cli_in_process({"train", "translate", "--out", dir.string(), "--steps", "2", "--eval-every", "2", "--d-model", "16",
                                   "--heads", "2", "--layers", "1", "--ffn", "16", "--batch", "4"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(has(r.out, "training the translation demo (English -> Korean): d_model 16, 2 heads, encoder 1 layer, decoder 1 layer, FFN 16"));
  CHECK(has(r.out, "  step 2: loss "));
  CHECK(has(r.out, "after 2 steps — saved "));
  auto m = translate_load((dir / "model.safetensors").string());
  REQUIRE_MESSAGE(m, m.error());
  CHECK(m->arch.d_model == 16);
  CHECK(m->arch.encoder_layers == 1);
  CHECK(m->encoder.config.n_heads == 2);
  std::filesystem::remove_all(dir);

  const CliRun positions = cli_in_process({"train", "translate", "--out", dir.string(), "--positions", "sinusoidal"});
  CHECK(positions.status != 0);
  CHECK(has(positions.err, "train translate takes no --positions"));
  const CliRun no_out = cli_in_process({"train", "translate"});
  CHECK(no_out.status != 0);
  CHECK(has(no_out.err, "train translate needs --out DIR"));
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("cli: translate --model demo:translate prints the Korean and writes the cross-attention JSON; refusals") {
  const std::string path = (std::filesystem::temp_directory_path() / "attnviz_translate_test.json").string();
  const CliRun r = cli_in_process({"translate", "--model", "demo:translate", "--text", "the big cat chased the small dog in the park .",
                                   "--json", path});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(has(r.out, "큰 고양이 가 공원 에서 작은 개 를 쫓았다 ."));
  auto bytes = file_read_bytes(path);
  REQUIRE(bytes.ok());
  auto j = json_parse_strict(std::string(bytes->begin(), bytes->end()), "the translate JSON");
  REQUIRE_MESSAGE(j.ok(), j.error());
  CHECK((*j)["source_tokens"].size() == 11);
  REQUIRE((*j)["target_tokens"].size() == 10);
  CHECK((*j)["target_tokens"][8] == "쫓았다");
  const auto& cross = (*j)["cross_attentions"];
  REQUIRE(cross.size() == 1);     // decoder layers
  REQUIRE(cross[0].size() == 4);  // heads
  REQUIRE(cross[0][0].size() == 10);
  REQUIRE(cross[0][0][0].size() == 11);
  double sum = 0;
  for (const auto& w : cross[0][2][8]) sum += w.get<double>();
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  // The aligning head (3): the verb's row has its maximum on "chased" (source token 3).
  const auto& verb_row = cross[0][2][8];
  size_t best = 0;
  for (size_t k = 0; k < verb_row.size(); ++k)
    if (verb_row[k].get<double>() > verb_row[best].get<double>()) best = k;
  CHECK(best == 3);
  std::filesystem::remove(path);

  const CliRun unknown = cli_in_process({"translate", "--model", "demo:translate", "--text", "the cat ate the fish ."});
  CHECK(unknown.status == 1);
  CHECK(has(unknown.err, "not in the translation demo's lexicon: 'ate' 'fish'"));
  const CliRun other = cli_in_process({"predict", "--model", "demo:translate", "--text", "the cat saw the dog ."});
  CHECK(other.status == 1);
  CHECK(has(other.err, "demo:translate is an encoder-decoder: attnviz-cli translate reads it"));
  const CliRun coref = cli_in_process({"translate", "--model", "demo:coref", "--text", "the cat saw the dog ."});
  CHECK(coref.status == 1);
  CHECK(has(coref.err, "translate reads a translation model (demo:translate), not demo:coref"));
  const CliRun no_text = cli_in_process({"translate", "--model", "demo:translate"});
  CHECK(no_text.status != 0);
  CHECK(has(no_text.err, "translate needs --text"));
}
