// Replays every committed fuzz finding (tests/fuzz/regressions/<target>/) and every seed input
// (tests/fuzz/corpus/<target>/) through the same check functions the libFuzzer targets call, so a
// fixed crash stays fixed in the normal suite. Running the fuzzers themselves is bench/fuzz.sh's job.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// The targets' .cpp files are included rather than linked: each defines its check function in a
// header-like way and keeps its libFuzzer entry behind ATTNVIZ_FUZZ_ENTRY, off here.
#include "fuzz/fuzz_bpe.cpp"
#include "fuzz/fuzz_cli.cpp"
#include "fuzz/fuzz_gguf.cpp"
#include "fuzz/fuzz_hf_config.cpp"
#include "fuzz/fuzz_npy.cpp"
#include "fuzz/fuzz_safetensors.cpp"
#include "fuzz/fuzz_session.cpp"
#include "fuzz/fuzz_tokenizer_json.cpp"
#include "fuzz/fuzz_word_tokenizer.cpp"
#include "fuzz/fuzz_wordpiece.cpp"

using namespace attnviz;

namespace {

const std::string kFuzzDir = std::string(ATTNVIZ_FIXTURES) + "/../fuzz";

// The input files of one folder, sorted; README files describe the folder and are not inputs.
std::vector<std::filesystem::path> inputs_in(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint8_t> bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs every regression and seed input of `target` through `check`; returns how many ran.
template <class Check>
size_t replay(const std::string& target, Check check) {
  size_t count = 0;
  for (const char* kind : {"regressions", "corpus"}) {
    for (const auto& path : inputs_in(kFuzzDir + "/" + kind + "/" + target)) {
      const std::vector<uint8_t> bytes = bytes_of(path);
      INFO(path.string());
      CHECK(check(fuzz::Bytes(bytes)) == "");
      ++count;
    }
  }
  return count;
}

}  // namespace

TEST_CASE("fuzz regressions: safetensors reader and index") {
  CHECK(replay("safetensors", fuzz::fuzz_safetensors) >= 11);
}

TEST_CASE("fuzz regressions: npy reader") { CHECK(replay("npy", fuzz::fuzz_npy) >= 7); }

TEST_CASE("fuzz regressions: GGUF reader") { CHECK(replay("gguf", fuzz::fuzz_gguf) >= 14); }

TEST_CASE("fuzz regressions: session loader") { CHECK(replay("session", fuzz::fuzz_session) >= 5); }

TEST_CASE("fuzz regressions: CLI option parser") {
  CHECK(replay("cli", fuzz::fuzz_cli) >= 11);
  // The finding behind regressions/cli/newline_in_flag_name: a flag typed with a newline in it
  // was echoed raw, so the "one-line" usage message had two lines.
  auto r = cli_parse({"attention", "--m\nask", "causal"});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error() == "unknown flag --m\\x0aask (try 'attnviz-cli --help')");
  auto esc = cli_parse({"attention", "--text", "hi", "--heads", "\x1b[2J"});
  REQUIRE_FALSE(esc.ok());
  CHECK(esc.error().rfind("--heads '\\x1b[2J': expected a whole number from 1 to ", 0) == 0);
}

TEST_CASE("fuzz regressions: word tokenizer") {
  CHECK(replay("word_tokenizer", fuzz::fuzz_word_tokenizer) >= 12);
}

TEST_CASE("fuzz regressions: BPE tokenizer and loaders") {
  auto tok = fuzz::bpe_fuzz_tokenizer(ATTNVIZ_FIXTURES);
  REQUIRE_MESSAGE(tok.ok(), tok.error());
  CHECK(tok->vocab_size() == 586);
  CHECK(replay("bpe", [&](fuzz::Bytes b) { return fuzz::fuzz_bpe(*tok, b); }) >= 14);
}

TEST_CASE("fuzz regressions: WordPiece tokenizer and loaders") {
  auto tok = fuzz::wordpiece_fuzz_tokenizer(ATTNVIZ_FIXTURES);
  REQUIRE_MESSAGE(tok.ok(), tok.error());
  CHECK(tok->vocab_size() == 65);
  CHECK(replay("wordpiece", [&](fuzz::Bytes b) { return fuzz::fuzz_wordpiece(*tok, b); }) >= 16);
}

TEST_CASE("fuzz regressions: tokenizer.json pipelines and loader") {
  auto fixtures = fuzz::tokenizer_json_fuzz_fixtures(ATTNVIZ_FIXTURES);
  REQUIRE_MESSAGE(fixtures.ok(), fixtures.error());
  CHECK(replay("tokenizer_json", [&](fuzz::Bytes b) { return fuzz::fuzz_tokenizer_json(*fixtures, b); }) >= 9);
}

TEST_CASE("fuzz regressions: Hugging Face config.json") {
  CHECK(replay("hf_config", fuzz::fuzz_hf_config) >= 5);
}

TEST_CASE("fuzz helpers: NUL splitting builds the argument lists and pairs the targets see") {
  using V = std::vector<std::string_view>;
  CHECK(fuzz::split_at_nuls(std::string_view("a\0bc\0", 5)) == V{"a", "bc", ""});
  CHECK(fuzz::split_at_nuls("abc") == V{"abc"});
  const auto p = fuzz::split_at_first_nul(std::string_view("x\0y\0z", 5));
  CHECK(p.first == "x");
  CHECK(p.second == std::string_view("y\0z", 3));
  CHECK(p.second_given);
  CHECK_FALSE(fuzz::split_at_first_nul("xyz").second_given);
}
