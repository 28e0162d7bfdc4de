// Finding local GGUF models: made-up stores in a temporary folder, laid out as Ollama, LM Studio and
// llama.cpp lay theirs out (tiny files that start with "GGUF"), give the exact list, the exact
// problems and ollama_model_path's answers; the scan's bounds and the environment's places are checked.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "io/local_models.h"
#include "io/model_open.h"
#include "support/check_util.h"
#include "support/fixture_util.h"

using namespace attnviz;
namespace fs = std::filesystem;

namespace {

constexpr const char* kModelLayer = "application/vnd.ollama.image.model";
constexpr const char* kProjectorLayer = "application/vnd.ollama.image.projector";
constexpr const char* kTemplateLayer = "application/vnd.ollama.image.template";

void file_write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// A file of `size` bytes that starts with the GGUF magic (all the scan reads of it).
std::string gguf_bytes(size_t size) {
  std::string s = "GGUF";
  s.resize(size, 'x');
  return s;
}

std::string hex64(char c) { return std::string(64, c); }

struct Layer {
  std::string media_type;
  char hex;  // the digest is 64 of this hex digit
  uint64_t size;
};

// A manifest as Ollama writes one (server/manifest.go WriteManifest).
std::string manifest_json(const std::vector<Layer>& layers) {
  nlohmann::json j = {{"schemaVersion", 2},
                      {"mediaType", "application/vnd.docker.distribution.manifest.v2+json"},
                      {"config", {{"mediaType", "application/vnd.docker.container.image.v1+json"}, {"digest", "sha256:" + hex64('9')}, {"size", 487}}}};
  j["layers"] = nlohmann::json::array();
  for (const Layer& l : layers) j["layers"].push_back({{"mediaType", l.media_type}, {"digest", "sha256:" + hex64(l.hex)}, {"size", l.size}});
  return j.dump();
}

// What a test compares: one line per model.
std::string model_line(const LocalModel& m) {
  const char* store = m.store == LocalModelStore::ollama ? "ollama" : m.store == LocalModelStore::lm_studio ? "lm_studio" : "llama_cpp_cache";
  return std::string(store) + " | " + m.name + " | " + m.path + " | " + std::to_string(m.bytes) + " | " + std::to_string(m.parts);
}

void lines_check(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  CHECK(got.size() == want.size());
  for (size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    INFO("line ", i);
    CHECK((i < got.size() ? got[i] : "(none)") == (i < want.size() ? want[i] : "(none)"));
  }
}

std::vector<std::string> model_lines(const LocalModelScan& scan) {
  std::vector<std::string> out;
  for (const LocalModel& m : scan.models) out.push_back(model_line(m));
  return out;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The three made-up stores, removed with the temporary folder when the test ends.
struct Stores {
  test::TempFile dir{"attnviz_local_models"};
  fs::path ollama, ollama_blobs, library, lm_studio, llama_cache;

  Stores() {
    std::error_code ignored;
    fs::remove_all(dir.path(), ignored);
    const fs::path root = dir.path();
    ollama = root / "ollama" / "models";
    ollama_blobs = ollama / "blobs";
    const fs::path manifests = ollama / "manifests";
    library = manifests / "registry.ollama.ai" / "library";
    // Two library models, one with two tags; a user's model; a model from another registry.
    file_write(library / "llama3.2" / "1b", manifest_json({{kModelLayer, 'a', 100}, {kTemplateLayer, '6', 5}}));
    file_write(ollama_blobs / ("sha256-" + hex64('a')), gguf_bytes(100));
    file_write(library / "llama3.2" / "latest", manifest_json({{kModelLayer, 'b', 200}}));
    file_write(ollama_blobs / ("sha256-" + hex64('b')), gguf_bytes(200));
    // A blob under the name older Ollama gave it.
    file_write(library / "qwen2.5" / "0.5b", manifest_json({{kModelLayer, 'c', 300}}));
    file_write(ollama_blobs / ("sha256:" + hex64('c')), gguf_bytes(300));
    // A vision model: its projector layer (a GGUF too) is not listed.
    file_write(library / "llava" / "7b", manifest_json({{kModelLayer, 'd', 400}, {kProjectorLayer, 'e', 50}}));
    file_write(ollama_blobs / ("sha256-" + hex64('d')), gguf_bytes(400));
    file_write(ollama_blobs / ("sha256-" + hex64('e')), gguf_bytes(50));
    file_write(manifests / "registry.ollama.ai" / "someone" / "tiny" / "q4", manifest_json({{kModelLayer, 'f', 60}}));
    file_write(ollama_blobs / ("sha256-" + hex64('f')), gguf_bytes(60));
    file_write(manifests / "example.com" / "team" / "private" / "v1", manifest_json({{kModelLayer, '1', 70}}));
    file_write(ollama_blobs / ("sha256-" + hex64('1')), gguf_bytes(70));
    // The problems: a blob missing, a manifest that is not JSON, a blob shorter than its layer, weights
    // that are not GGUF, a path that is no model name. A model with no model layer (a cloud model)
    // and a hidden file are passed over without a word.
    file_write(library / "gone" / "latest", manifest_json({{kModelLayer, '2', 80}}));
    file_write(library / "broken" / "latest", "{\"schemaVersion\": 2, \"layers\": [");
    file_write(library / "cloudy" / "latest", manifest_json({{kTemplateLayer, '3', 9}}));
    file_write(library / "short" / "latest", manifest_json({{kModelLayer, '4', 1000}}));
    file_write(ollama_blobs / ("sha256-" + hex64('4')), gguf_bytes(10));
    file_write(library / "notgguf" / "latest", manifest_json({{kModelLayer, '5', 20}}));
    file_write(ollama_blobs / ("sha256-" + hex64('5')), std::string("PK\x03\x04", 4) + std::string(16, 'z'));
    file_write(library / "-bad" / "latest", manifest_json({{kModelLayer, 'a', 100}}));
    file_write(library / "llama3.2" / ".DS_Store", "junk");

    lm_studio = root / "home" / ".lmstudio" / "models";
    const fs::path llama_repo = lm_studio / "lmstudio-community" / "Llama-3.2-1B-Instruct-GGUF";
    file_write(llama_repo / "Llama-3.2-1B-Instruct-Q4_K_M.gguf", gguf_bytes(110));
    file_write(llama_repo / "mmproj-model-f16.gguf", gguf_bytes(33));
    file_write(llama_repo / "README.md", "# hello");
    file_write(lm_studio / "bartowski" / "Big-GGUF" / "Big-Q8_0-00001-of-00002.gguf", gguf_bytes(120));
    file_write(lm_studio / "bartowski" / "Big-GGUF" / "Big-Q8_0-00002-of-00002.gguf", gguf_bytes(130));
    // Links back up the tree, and a file deeper than the scan looks.
    fs::create_directories(lm_studio / "someone");
    fs::create_directory_symlink("..", lm_studio / "someone" / "loop");
    fs::create_directory_symlink(".", lm_studio / "someone" / "self");
    file_write(lm_studio / "deep" / "a" / "b" / "c" / "too-deep.gguf", gguf_bytes(8));

    llama_cache = root / "cache" / "llama.cpp";
    const std::string qwen = "bartowski_Qwen2.5-0.5B-Instruct-GGUF_Qwen2.5-0.5B-Instruct-Q4_K_M.gguf";
    file_write(llama_cache / qwen, gguf_bytes(140));
    file_write(llama_cache / (qwen + ".json"), "{\"etag\": \"x\"}");
    file_write(llama_cache / "manifest=bartowski=Qwen2.5-0.5B-Instruct-GGUF=latest.json", "{}");
    for (int part = 1; part <= 3; ++part)
      file_write(llama_cache / ("unsloth_X-GGUF_X-Q4_K_M-0000" + std::to_string(part) + "-of-00003.gguf"), gguf_bytes(10 * part));
    file_write(llama_cache / "lonely-00001-of-00002.gguf", gguf_bytes(15));
    file_write(llama_cache / "mmproj-F16.gguf", gguf_bytes(16));
    file_write(llama_cache / "notes.gguf", "<html>rate limited</html>");
    fs::create_symlink(llama_cache / "nowhere.gguf", llama_cache / "dangling.gguf");
  }

  LocalModelPlaces places() const { return LocalModelPlaces{{ollama.string()}, {lm_studio.string()}, {llama_cache.string()}}; }
};

}  // namespace

TEST_CASE("local models: Ollama, LM Studio and llama.cpp stores give the exact list and problems") {
  const Stores s;
  const LocalModelScan scan = local_models_find(s.places());
  const fs::path b = s.ollama_blobs, lm = s.lm_studio, lc = s.llama_cache;
  lines_check(model_lines(scan),
              {
                  "ollama | example.com/team/private:v1 | " + (b / ("sha256-" + hex64('1'))).string() + " | 70 | 1",
                  "ollama | llama3.2:1b | " + (b / ("sha256-" + hex64('a'))).string() + " | 100 | 1",
                  "ollama | llama3.2:latest | " + (b / ("sha256-" + hex64('b'))).string() + " | 200 | 1",
                  "ollama | llava:7b | " + (b / ("sha256-" + hex64('d'))).string() + " | 400 | 1",
                  "ollama | qwen2.5:0.5b | " + (b / ("sha256:" + hex64('c'))).string() + " | 300 | 1",
                  "ollama | someone/tiny:q4 | " + (b / ("sha256-" + hex64('f'))).string() + " | 60 | 1",
                  "lm_studio | bartowski/Big-GGUF/Big-Q8_0-00001-of-00002.gguf | " + (lm / "bartowski/Big-GGUF/Big-Q8_0-00001-of-00002.gguf").string() +
                      " | 250 | 2",
                  "lm_studio | lmstudio-community/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q4_K_M.gguf | " +
                      (lm / "lmstudio-community/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q4_K_M.gguf").string() + " | 110 | 1",
                  "llama_cpp_cache | bartowski_Qwen2.5-0.5B-Instruct-GGUF_Qwen2.5-0.5B-Instruct-Q4_K_M.gguf | " +
                      (lc / "bartowski_Qwen2.5-0.5B-Instruct-GGUF_Qwen2.5-0.5B-Instruct-Q4_K_M.gguf").string() + " | 140 | 1",
                  "llama_cpp_cache | unsloth_X-GGUF_X-Q4_K_M-00001-of-00003.gguf | " + (lc / "unsloth_X-GGUF_X-Q4_K_M-00001-of-00003.gguf").string() +
                      " | 60 | 3",
              });
  std::vector<std::string> want = {
      "Ollama manifest " + q(s.library / "gone" / "latest") + ": its model blob 'sha256-" + hex64('2') + "' is missing from " + q(b),
      "Ollama manifest " + q(s.library / "broken" / "latest") + " is not valid JSON",
      "Ollama manifest " + q(s.library / "short" / "latest") + ": its model blob " + q(b / ("sha256-" + hex64('4'))) +
          " is 10 bytes, the manifest says 1000",
      "Ollama manifest " + q(s.library / "notgguf" / "latest") + ": its model blob " + q(b / ("sha256-" + hex64('5'))) + " is not a GGUF file",
      q(s.library / "-bad" / "latest") + " is not an Ollama manifest: its path does not spell a model name",
      q(lc / "lonely-00002-of-00002.gguf") + " is missing: the split GGUF " + q(lc / "lonely-00001-of-00002.gguf") + " is not listed",
      q(lc / "notes.gguf") + " is named .gguf but does not start with \"GGUF\"",
      "cannot read " + q(lc / "dangling.gguf") + ": No such file or directory",
  };
  std::sort(want.begin(), want.end());
  lines_check(scan.problems, want);
}

TEST_CASE("local models: ollama_model_path finds the blob of a name as Ollama spells it") {
  const Stores s;
  const std::vector<std::string> dirs = {s.ollama.string()};
  const fs::path b = s.ollama_blobs;
  auto path_of = [&](std::string_view name) {
    auto r = ollama_model_path(dirs, name);
    INFO(name, ": ", r.error());
    REQUIRE(r.ok());
    return *r;
  };
  CHECK(path_of("llama3.2:1b") == (b / ("sha256-" + hex64('a'))).string());
  CHECK(path_of("llama3.2") == (b / ("sha256-" + hex64('b'))).string());  // tag "latest"
  CHECK(path_of("library/llama3.2:latest") == (b / ("sha256-" + hex64('b'))).string());
  CHECK(path_of("registry.ollama.ai/library/llama3.2:1b") == (b / ("sha256-" + hex64('a'))).string());
  CHECK(path_of("https://registry.ollama.ai/library/llama3.2:1b") == (b / ("sha256-" + hex64('a'))).string());
  CHECK(path_of("LLAMA3.2:1B") == (b / ("sha256-" + hex64('a'))).string());  // letter case does not matter
  CHECK(path_of("someone/tiny:q4") == (b / ("sha256-" + hex64('f'))).string());
  CHECK(path_of("Someone/Tiny:Q4") == (b / ("sha256-" + hex64('f'))).string());
  CHECK(path_of("example.com/team/private:v1") == (b / ("sha256-" + hex64('1'))).string());
  CHECK(path_of("qwen2.5:0.5b") == (b / ("sha256:" + hex64('c'))).string());  // the old blob name
  CHECK(path_of("llava:7b") == (b / ("sha256-" + hex64('d'))).string());      // the weights, not the projector
}

TEST_CASE("local models: ollama_model_path's errors say what was looked for and where") {
  const Stores s;
  const std::vector<std::string> dirs = {s.ollama.string()};
  const fs::path manifests = s.ollama / "manifests";
  CHECK(ollama_model_path(dirs, "llama3.2:8b").error() ==
        "no Ollama model 'llama3.2:8b': no manifest at " + q(manifests / "registry.ollama.ai/library/llama3.2/8b"));
  CHECK(ollama_model_path(dirs, "someone/huge").error() ==
        "no Ollama model 'someone/huge': no manifest at " + q(manifests / "registry.ollama.ai/someone/huge/latest"));
  CHECK(ollama_model_path(dirs, "gone").error() == "cannot open Ollama model 'gone': Ollama manifest " + q(s.library / "gone/latest") +
                                                       ": its model blob 'sha256-" + hex64('2') + "' is missing from " + q(s.ollama_blobs));
  CHECK(ollama_model_path(dirs, "broken").error() ==
        "cannot open Ollama model 'broken': Ollama manifest " + q(s.library / "broken/latest") + " is not valid JSON");
  CHECK(ollama_model_path(dirs, "cloudy").error() == "Ollama model 'cloudy' has no GGUF weights: " + q(s.library / "cloudy/latest") +
                                                         " has no layer of type application/vnd.ollama.image.model (a cloud model, or one not "
                                                         "stored as GGUF)");
  const std::string rule = " is not an Ollama model name ([host/][namespace/]model[:tag], each part letters, digits, '_', '-' or '.')";
  for (const char* bad : {"", "llama3.2:", "a/b/c/d", "../etc:passwd", "my.ns/model", "-x", "model:tag with space", "/llama3.2", "llama3.2/"})
    CHECK(ollama_model_path(dirs, bad).error() == "'" + std::string(bad) + "'" + rule);
  CHECK(ollama_model_path({}, "llama3.2").error() == "no Ollama model 'llama3.2': no Ollama models folder to look in");
  CHECK(ollama_model_path({""}, "llama3.2").error() == "no Ollama model 'llama3.2': no Ollama models folder to look in");

  // Folders are tried in order; the message names each place looked in.
  const fs::path second = fs::path(s.dir.path()) / "second";
  file_write(second / "manifests/registry.ollama.ai/library/extra/latest", manifest_json({{kModelLayer, '7', 12}}));
  file_write(second / "blobs" / ("sha256-" + hex64('7')), gguf_bytes(12));
  const std::vector<std::string> both = {s.ollama.string(), second.string()};
  CHECK(ollama_model_path(both, "extra").value() == (second / "blobs" / ("sha256-" + hex64('7'))).string());
  CHECK(ollama_model_path(both, "nothing").error() == "no Ollama model 'nothing': no manifest at " +
                                                          q(manifests / "registry.ollama.ai/library/nothing/latest") + " or " +
                                                          q(second / "manifests/registry.ollama.ai/library/nothing/latest"));
}

TEST_CASE("local models: the scan stops at its bounds, and looks in a store named twice once") {
  const Stores s;
  LocalModelPlaces few = s.places();
  // Sorted walk: manifests (2 entries), example.com (1), team (1), private (1), then the 6th entry
  // is in registry.ollama.ai.
  few.max_entries = 5;
  const LocalModelScan stopped = local_models_find(few);
  lines_check(model_lines(stopped), {"ollama | example.com/team/private:v1 | " + (s.ollama_blobs / ("sha256-" + hex64('1'))).string() + " | 70 | 1"});
  lines_check(stopped.problems, {"stopped looking after 5 folder entries, in " + q(s.ollama / "manifests/registry.ollama.ai") +
                                 ": models past there are not listed"});

  LocalModelPlaces shallow{{}, {s.lm_studio.string()}, {s.llama_cache.string()}};
  shallow.max_depth = 2;  // publisher/repo/file is 3 deep: LM Studio's files are past it
  const LocalModelScan shallow_scan = local_models_find(shallow);
  CHECK(std::none_of(shallow_scan.models.begin(), shallow_scan.models.end(), [](const LocalModel& m) { return m.store == LocalModelStore::lm_studio; }));
  CHECK(std::count_if(shallow_scan.models.begin(), shallow_scan.models.end(), [](const LocalModel& m) { return m.store == LocalModelStore::llama_cpp_cache; }) == 2);

  // The same store by two names (a link to it, a trailing slash): its models once.
  const fs::path alias = fs::path(s.dir.path()) / "ollama-link";
  fs::create_directory_symlink(s.ollama, alias);
  const LocalModelScan once = local_models_find(LocalModelPlaces{{s.ollama.string(), alias.string(), s.ollama.string() + "/"}, {}, {}});
  CHECK(once.models.size() == 6);

  // A place that is a file is a problem; one that does not exist is not.
  const fs::path file = fs::path(s.dir.path()) / "not-a-folder";
  file_write(file, "x");
  const LocalModelScan odd = local_models_find(LocalModelPlaces{{file.string(), (fs::path(s.dir.path()) / "missing").string()}, {}, {}});
  CHECK(odd.models.empty());
  lines_check(odd.problems, {q(file) + " is not a folder"});
}

TEST_CASE("local models: a folder that cannot be read is a problem, not a failure") {
  if (::geteuid() == 0) return;  // root reads every folder: there is nothing to refuse it
  const Stores s;
  const fs::path locked = s.lm_studio / "bartowski";
  fs::permissions(locked, fs::perms::none);
  const LocalModelScan scan = local_models_find(s.places());
  fs::permissions(locked, fs::perms::owner_all);  // so that the temporary folder can be removed
  CHECK(std::find(scan.problems.begin(), scan.problems.end(), "cannot read folder " + q(locked) + ": Permission denied") != scan.problems.end());
  CHECK(scan.models.size() == 9);  // all but the split model inside it
}

TEST_CASE("local models: the places come from the variables as each tool reads them") {
  const test::TempFile dir("attnviz_local_model_places");
  const fs::path root = dir.path();
  fs::create_directories(root / "service");

  LocalModelEnvironment env;
  env.home = "/home/ada";
  env.ollama_service = (root / "no-such-folder").string();
  const LocalModelPlaces plain = LocalModelPlaces::from_environment(env);
  CHECK(plain.ollama == std::vector<std::string>{"/home/ada/.ollama/models"});
  CHECK(plain.lm_studio == std::vector<std::string>{"/home/ada/.lmstudio/models", "/home/ada/.cache/lm-studio/models"});
  CHECK(plain.llama_cpp_cache == std::vector<std::string>{"/home/ada/.cache/llama.cpp"});
  CHECK(plain.max_depth == 4);
  CHECK(plain.max_entries == 10'000);

  env.ollama_models = " \"/srv/ollama\" ";  // Ollama trims spaces, then quotes
  env.ollama_service = (root / "service").string();
  env.xdg_cache_home = "/var/cache/ada";
  const LocalModelPlaces set = LocalModelPlaces::from_environment(env);
  CHECK(set.ollama == std::vector<std::string>{"/srv/ollama", (root / "service").string()});
  CHECK(set.llama_cpp_cache == std::vector<std::string>{"/var/cache/ada/llama.cpp"});
  env.llama_cache = "/models/llama";  // LLAMA_CACHE wins over XDG_CACHE_HOME
  CHECK(LocalModelPlaces::from_environment(env).llama_cpp_cache == std::vector<std::string>{"/models/llama"});

  // LM Studio moved: ~/.lmstudio-home-pointer names its home.
  env.home = (root / "home").string();
  file_write(root / "home" / ".lmstudio-home-pointer", "/data/lmstudio\n");
  CHECK(LocalModelPlaces::from_environment(env).lm_studio ==
        std::vector<std::string>{"/data/lmstudio/models", (root / "home/.lmstudio/models").string(), (root / "home/.cache/lm-studio/models").string()});

  const LocalModelPlaces none = LocalModelPlaces::from_environment(LocalModelEnvironment{"", "", "", "", ""});
  CHECK(none.ollama.empty());
  CHECK(none.lm_studio.empty());
  CHECK(none.llama_cpp_cache.empty());
  CHECK_NOTHROW(LocalModelPlaces::from_environment());
}

TEST_CASE("local models: model_open opens ollama:NAME from the store OLLAMA_MODELS names") {
  // A real model as an Ollama blob: the hostile-files set's valid control model.
  test::TempFile dir{"attnviz_ollama_open"};
  const fs::path store = fs::path(dir.path()) / "models";
  std::error_code ignored;
  fs::remove_all(dir.path(), ignored);
  const fs::path blob = store / "blobs" / ("sha256-" + hex64('7'));
  fs::create_directories(blob.parent_path());
  fs::copy_file(test::fixture_path("gguf_models/bad/control.gguf"), blob);
  const auto size = static_cast<uint64_t>(fs::file_size(blob));
  file_write(store / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4", manifest_json({{kModelLayer, '7', size}}));
  const char* before = std::getenv("OLLAMA_MODELS");
  const std::string saved = before ? before : "";
  setenv("OLLAMA_MODELS", store.c_str(), 1);
  auto model = model_open("ollama:tiny:q4");
  auto missing = model_open("ollama:tiny:q8");
  if (before) setenv("OLLAMA_MODELS", saved.c_str(), 1);
  else unsetenv("OLLAMA_MODELS");
  REQUIRE_MESSAGE(model.ok(), model.error());
  CHECK(model->source == "ollama:tiny:q4");
  CHECK(model->config.n_layers == 2);
  CHECK(model->tokenizer != nullptr);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("no Ollama model 'tiny:q8'") != std::string::npos);
  CHECK(missing.error().find("manifests/registry.ollama.ai/library/tiny/q8") != std::string::npos);
}
