// Session files: exact round trip, a file from before the seed had a generator reopening to the
// same weights, and every kind of bad file refused with its own message.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "base/file_io.h"
#include "io/session.h"
#include "model/model.h"
#include "support/check_util.h"

using namespace attnviz;
using attnviz::test::has;
using attnviz::test::TempFile;

namespace {
Session sample() {
  Session s;
  s.sentence = "그 동물은 너무 피곤해서 길을 건너지 않았다.";
  s.source_sentence = "The animal didn't cross the street because it was too tired.";
  s.cross = true;
  s.config.d_model = 64;
  s.config.n_heads = 4;
  s.config.norm = NormPlacement::pre;
  s.config.score = ScoreKind::additive;
  s.seed = 12345678901234ull;
  s.mask.causal = true;
  s.mask.window = 3;
  s.mask.hidden_cells = {{1, 0}, {4, 2}};
  s.layer = 0;
  s.head = 3;
  s.query = 7;
  s.ui = {{"view", "steps"}, {"lang", "ko"}};
  return s;
}
}  // namespace

TEST_CASE("session: save and load give back every field") {
  const TempFile path("attnviz-session.json");
  REQUIRE(session_save(path, sample()).ok());
  auto s = session_load(path);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(s->sentence == sample().sentence);
  CHECK(s->source_sentence == sample().source_sentence);
  CHECK(s->cross);
  CHECK(s->config.d_model == 64);
  CHECK(s->config.norm == NormPlacement::pre);
  CHECK(s->config.score == ScoreKind::additive);
  CHECK(s->seed == 12345678901234ull);
  CHECK(s->generator == RngGenerator::philox4x32_10);
  CHECK(s->mask.causal);
  CHECK(s->mask.window == 3);
  CHECK(s->mask.hidden_cells == sample().mask.hidden_cells);
  CHECK(s->head == 3);
  CHECK(s->query == 7);
  CHECK(s->ui.at("view") == "steps");
}

TEST_CASE("session: the seed's generator is saved by name and read back") {
  Session s = sample();
  CHECK(session_to_json(s).find("\"generator\": \"philox4x32-10\"") != std::string::npos);
  s.generator = RngGenerator::polar_splitmix64;
  const std::string text = session_to_json(s);
  CHECK(text.find("\"generator\": \"polar-splitmix64\"") != std::string::npos);
  auto back = session_from_json(text);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->generator == RngGenerator::polar_splitmix64);
  CHECK(Session{}.generator == kRngNewest);  // what a new session draws with
}

TEST_CASE("session: a session saved before generators were named reopens to exactly the old weights") {
  // As the first release wrote it: no "generator" key.
  const char* old_file = R"({
  "format": "attnviz.session",
  "version": 1,
  "sentence": "The animal didn't cross the street because it was too tired.",
  "source_sentence": "",
  "cross": false,
  "config": {"d_model": 64, "n_heads": 4, "n_layers": 2, "d_ff": 96},
  "seed": 7,
  "mask": {"causal": false},
  "selection": {"layer": 0, "head": 0, "query": -1},
  "ui": {}
})";
  auto s = session_from_json(old_file);
  REQUIRE_MESSAGE(s.ok(), s.error());
  CHECK(s->generator == RngGenerator::polar_splitmix64);
  // The sandbox the app builds from it: the weights the first release drew for this session
  // (pinned from it).
  const Model m = model_init_random(s->config, s->seed, s->generator);
  CHECK(m.weights.layers[1].attn.out_w(3, 5) == 0x1.8d20b4p-4f);        // 0.0969550163
  CHECK(m.weights.layers[0].ff1_w(0, 0) == -0x1.7b33b4p-5f);            // -0.0462893024
  CHECK(m.weights.layers[1].attn.additive_v(1, 2) == -0x1.168bc4p-2f);  // -0.272017539
  // Every random value of the model, as FNV-1a over its bytes.
  uint64_t h = 0xCBF29CE484222325ull;
  for (const LayerWeights& L : m.weights.layers)
    for (const WeightMat* w : {&L.attn.in_proj_w, &L.attn.out_w, &L.ff1_w, &L.ff2_w, &L.attn.general_w,
                               &L.attn.additive_wq, &L.attn.additive_wk, &L.attn.additive_v}) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(w->data());
      for (size_t i = 0; i < static_cast<size_t>(w->size()) * sizeof(float); ++i) h = (h ^ bytes[i]) * 0x100000001B3ull;
    }
  CHECK(h == 0x027c851b77a53482ull);
  // Saved again, it keeps its generator, and so its weights.
  auto again = session_from_json(session_to_json(*s));
  REQUIRE(again.ok());
  CHECK(again->generator == RngGenerator::polar_splitmix64);
}

TEST_CASE("session: a pasted sentence that is not UTF-8 saves with U+FFFD instead of throwing") {
  // Found by the soak test: a paste of "ab\xff" then Save aborted the app (nlohmann's type_error 316).
  const TempFile path("attnviz-session-bytes.json");
  Session s = sample();
  s.sentence = "ab\xff cd \xc3";
  s.ui["compare_sentence"] = "\xed\xa0\x80";
  REQUIRE(session_save(path, s).ok());
  auto back = session_load(path);
  REQUIRE_MESSAGE(back.ok(), back.error());
  CHECK(back->sentence == "ab\xef\xbf\xbd cd \xef\xbf\xbd");
  CHECK(back->ui.at("compare_sentence").find("\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("session: bad files are refused with a message that says why") {
  const std::string good = session_to_json(sample());
  auto error_of = [](std::string_view text) {
    auto r = session_from_json(text);
    return r.ok() ? std::string("(accepted)") : r.error();
  };
  CHECK_ERROR(good.substr(0, good.size() / 2), "not valid JSON");
  CHECK_ERROR(std::string(100000, '[') + std::string(100000, ']'), "nested too deeply");
  CHECK_ERROR("[1, 2]", "not a JSON object");
  CHECK_ERROR("{\"format\": \"something else\"}", "not an attnviz session");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 99}", "version 99 is not supported");
  CHECK_ERROR("{\"format\": \"attnviz.session\"}", "no version");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"sentence\": 5}", "'sentence' must be text");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"seed\": -1}", "'seed'");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"generator\": 3}", "'generator' must be text");
  CHECK(error_of("{\"format\": \"attnviz.session\", \"version\": 1, \"seed\": 5, \"generator\": \"mt19937\"}") ==
        "session: unknown random generator 'mt19937' (known: polar-splitmix64, philox4x32-10)");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"config\": {\"d_model\": 10, \"n_heads\": 3}}", "divisible");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"mask\": {\"window\": \"wide\"}}", "mask");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"selection\": {\"layer\": -4}}", "'layer'");
  CHECK_ERROR("{\"format\": \"attnviz.session\", \"version\": 1, \"ui\": {\"view\": 3}}", "'ui.view' must be text");
  CHECK(session_from_json("{\"format\": \"attnviz.session\", \"version\": 1}").ok());  // all defaults
  // A key given twice is refused (a JSON reader would keep one of them silently), as is bad UTF-8.
  CHECK(error_of("{\"format\": \"attnviz.session\", \"version\": 1, \"seed\": 1, \"seed\": 2}") ==
        "session: the file has duplicate key 'seed'");
  CHECK(error_of("{\"format\": \"attnviz.session\", \"version\": 1, \"ui\": {\"view\": \"a\", \"view\": \"b\"}}") ==
        "session: the file has duplicate key 'view' in 'ui'");
  CHECK(error_of("{\"sentence\": \"caf\xE9\"}") == "session: the file is not valid UTF-8 (bad byte at offset 17)");
}

TEST_CASE("session: an unknown key, at any level but the app's own 'ui', is an error naming the known ones") {
  auto error_of = [](const std::string& body) {
    auto r = session_from_json(R"({"format": "attnviz.session", "version": 1, )" + body + "}");
    return r.ok() ? std::string("(accepted)") : r.error();
  };
  CHECK(error_of(R"("sentense": "hi")") ==
        "session: unknown key 'sentense' (known: format, version, sentence, source_sentence, cross, config, seed, "
        "generator, mask, selection, ui)");
  CHECK(error_of(R"("selection": {"layer": 1, "heads": 2})") ==
        "session: selection: unknown key 'heads' (known: layer, head, query)");
  CHECK(error_of(R"("config": {"d_model": 64, "heads": 4})") ==
        "session: model config: unknown key 'heads' (known: d_model, n_heads, n_layers, d_ff, activation, norm, "
        "positions, ln_eps, score, temperature, max_positions, final_norm, causal, embed_norm, type_vocab, n_kv_heads, "
        "norm_kind, gated_ffn, parallel_residual, sliding_window, position_padding_idx, rope, head_scores, "
        "head_dim, qk_norm, scaled_dot_scale, attn_softcap, logit_softcap, embed_multiplier, sublayer_norm, "
        "sliding_window_pattern, rope_local_theta)");
  CHECK(error_of(R"("mask": {"casual": true})") ==
        "session: mask: unknown key 'casual' (known: causal, pad_to, window, stride, hidden_cells)");
  // The ui map holds the app's settings; which keys it reads is the app's business.
  CHECK(error_of(R"("ui": {"anything": "1"})") == "(accepted)");
  // What session_to_json writes reads back, every key known.
  CHECK(session_from_json(session_to_json(sample())).ok());
}

TEST_CASE("session: a failed save leaves the existing file intact") {
  const TempFile path("attnviz-session-keep.json");
  REQUIRE(session_save(path, sample()).ok());
  const auto before = file_read_bytes(path);
  REQUIRE(before.ok());
  const TempFile dir_guard("attnviz-readonly-dir");
  const std::string& dir = dir_guard;
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  Status s = session_save(dir + "/session.json", sample());
  if (::geteuid() != 0) CHECK_FALSE(s.ok());  // root ignores directory permissions
  CHECK_FALSE(session_save("/nonexistent-dir/session.json", sample()).ok());
  CHECK(*file_read_bytes(path) == *before);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
}
