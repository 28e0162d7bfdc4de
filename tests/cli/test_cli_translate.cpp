// attnviz-cli train translate: a short run saved where --out says and read back as a translation
// model with the asked architecture; the flags that do not apply are refused by name.
#include <doctest/doctest.h>

#include <filesystem>

#include "demos/translate_file.h"
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
