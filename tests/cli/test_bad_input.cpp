// Bad input, one test per case, since files and text come from strangers: what the engine and
// attnviz-cli answer to empty, huge, malformed and hostile input, and to saving onto a full or
// read-only disk. Each test pins the one-line message, a time or memory bound where one matters,
// and that nothing was written.
// The app's side of the same cases is tests/gui/bad_input_test.sh.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/stat.h>

#include "analysis/export.h"
#include "base/file_io.h"
#include "cli_options.h"
#include "cli_run.h"
#include "io/model_file.h"
#include "io/model_open.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "io/session.h"
#include "model/trace.h"
#include "support/byte_util.h"
#include "support/check_util.h"
#include "support/cli_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

namespace fs = std::filesystem;

std::string temp(const std::string& name) { return temp_path("attnviz_bad_" + name); }

using Run = CliRun;
CliRun cli(const std::vector<std::string>& args) { return cli_in_process(args); }
// The real binary, for what only a real process shows (standard output on a full disk).
int cli_binary(const std::string& args) { return cli_binary_status(args); }

ModelConfig small_config() { return sized_config({.d_model = 16, .n_heads = 2, .n_layers = 2, .d_ff = 16}); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

std::string error_of_trace(const Model& m, const std::string& text) {
  TraceInput in;
  in.text = text;
  auto t = trace_run(m, in);
  return t ? std::string("(accepted)") : t.error();
}

bool trace_all_finite(const Trace& t) {
  for (const LayerTrace& l : t.layers) {
    for (const HeadTrace& h : l.attn.heads)
      if (!h.weights_kept.allFinite() || !h.out.allFinite() || !h.scores_scaled.allFinite()) return false;
    if (!l.out.allFinite()) return false;
  }
  return t.final.allFinite();
}

std::string read_text(const std::string& path) {
  auto b = file_read_bytes(path);
  return b ? std::string(b->begin(), b->end()) : std::string("(unreadable)");
}

// While alive, this process may not write a file past `bytes` (a full disk as seen by one
// writer, and it works for root, whom permissions do not stop); the kernel's SIGXFSZ is ignored
// so the write fails with EFBIG instead of killing the test.
struct FileSizeLimit {
  rlimit saved{};
  void (*saved_handler)(int) = nullptr;
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved);
    saved_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit r = saved;
    r.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, saved_handler);
  }
};

// What the temporary file of file_write_atomic would be called; it must never be left behind.
bool temp_left_behind(const std::string& path) { return fs::exists(path + ".tmp-" + std::to_string(::getpid())); }

Bytes serialize_with_header(const std::string& header, size_t data_bytes) {
  Bytes b;
  append_le(b, header.size(), 8);
  b.insert(b.end(), header.begin(), header.end());
  b.resize(b.size() + data_bytes, 0);
  return b;
}

void write_bytes(const std::string& path, const Bytes& b) {
  REQUIRE(file_write_atomic(path, std::span<const uint8_t>(b)).ok());
}

}  // namespace

TEST_CASE("bad input: an empty or whitespace-only sentence is refused by name, the CLI writes nothing") {
  const Model m = model_init_random(small_config(), 1);
  CHECK(error_of_trace(m, "") == "the sentence has no tokens: type some words");
  CHECK(error_of_trace(m, " \t\r\n  \n\t ") == "the sentence has no tokens: type some words");
  CHECK(error_of_trace(m, std::string("\0\0\0", 3)) == "the sentence has no tokens: type some words");
  // A checkpoint's own tokenizer: GPT-2 frames nothing, so an empty sentence is refused, but its
  // byte-level BPE reads spaces as pieces of their own (shown as '·'), as Hugging Face does. BERT
  // frames even an empty sentence as [CLS] [SEP], and those two tokens are a valid input.
  auto gpt2 = model_open(fixture_path("hf/gpt2_tiny"));
  REQUIRE_MESSAGE(gpt2.ok(), gpt2.error());
  CHECK(error_of_trace(*gpt2, "") == "the sentence has no tokens: type some words");
  TraceInput spaces;
  spaces.text = "   ";
  auto spaced = trace_run(*gpt2, spaces);
  REQUIRE_MESSAGE(spaced.ok(), spaced.error());
  REQUIRE(spaced->n_queries() == 3);
  CHECK(spaced->queries[0].text == "·");
  auto bert = model_open(fixture_path("hf/bert_tiny"));
  REQUIRE_MESSAGE(bert.ok(), bert.error());
  TraceInput in;
  in.text = " \n ";
  auto framed = trace_run(*bert, in);
  REQUIRE_MESSAGE(framed.ok(), framed.error());
  REQUIRE(framed->n_queries() == 2);
  CHECK(framed->queries[0].piece == "[CLS]");
  CHECK(framed->queries[1].piece == "[SEP]");

  const std::string json = temp("empty.json");
  for (const std::string text : {"", "   \t  "}) {
    const Run r = cli({"attention", "--text", text, "--d-model", "16", "--heads", "2", "--json", json});
    CHECK(r.status == 1);
    CHECK(r.err == "attnviz-cli: the sentence has no tokens: type some words\n");
    CHECK_FALSE(fs::exists(json));
  }
}

TEST_CASE("bad input: a 1 MB single word is one token in bounded time, a 10 MB paste is refused before any work") {
  const Model m = model_init_random(small_config(), 1);
  const std::string word(1'000'000, 'a');
  auto t0 = std::chrono::steady_clock::now();
  TraceInput in;
  in.text = word;
  auto t = trace_run(m, in);
  const double word_s = seconds_since(t0);
  REQUIRE_MESSAGE(t.ok(), t.error());
  CHECK(t->n_queries() == 1);
  CHECK(t->queries[0].text.size() == 1'000'000);
  CHECK(t->head(0, 0).weights_kept(0, 0) == doctest::Approx(1.0));
  MESSAGE("1 MB word, sandbox: " << word_s << " s");
  CHECK(word_s < 2.0);  // measured 0.01 s (Release), 0.09 s (ASan + UBSan)

  // The same word through both checkpoint tokenizers, in bounded time: GPT-2's BPE splits it into
  // more pieces than a trace may hold and says so; BERT's WordPiece reads an over-long word as [UNK].
  auto gpt2 = model_open(fixture_path("hf/gpt2_tiny"));
  auto bert = model_open(fixture_path("hf/bert_tiny"));
  REQUIRE_MESSAGE(gpt2.ok(), gpt2.error());
  REQUIRE_MESSAGE(bert.ok(), bert.error());
  t0 = std::chrono::steady_clock::now();
  CHECK(trace_run(*gpt2, in).error() == "the text has more than 8192 tokens");
  const double gpt2_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto b = trace_run(*bert, in);
  const double bert_s = seconds_since(t0);
  REQUIRE_MESSAGE(b.ok(), b.error());
  REQUIRE(b->n_queries() == 3);
  CHECK(b->queries[1].piece == "[UNK]");
  MESSAGE("1 MB word: GPT-2 BPE refused in " << gpt2_s << " s, BERT WordPiece [UNK] in " << bert_s << " s");
  CHECK(gpt2_s < 5.0);  // measured 0.05 s and 0.13 s (Release), 0.34 s and 1.8 s (ASan + UBSan)
  CHECK(bert_s < 5.0);

  // 10 MB: refused by size before tokenizing, embedding or allocating a (T, T) map.
  const std::string paste(10u << 20, 'x');
  in.text = paste;
  const long rss_before = peak_rss_kb();
  t0 = std::chrono::steady_clock::now();
  const std::string err = trace_run(m, in).error();
  const double paste_s = seconds_since(t0);
  CHECK(err == "the text is 10485760 bytes; the limit is 1048576");
  MESSAGE("10 MB paste refused in " << paste_s << " s; peak RSS grew " << (peak_rss_kb() - rss_before) << " kB");
  CHECK(paste_s < 0.5);  // measured 0.003 s (Release), 0.012 s (ASan + UBSan)
  CHECK(peak_rss_kb() - rss_before < 16 * 1024);  // no copy of the paste beyond the one we made
  // A 10 MB paste of many short words is refused the same way, not tokenized up to the limit.
  std::string words;
  while (words.size() < (10u << 20)) words += "cat sat ";
  in.text = words;
  CHECK(has(trace_run(m, in).error(), "the text is 10485760 bytes"));

  const std::string json = temp("paste.json");
  const Run r = cli({"attention", "--text", paste, "--d-model", "16", "--heads", "2", "--json", json});
  CHECK(r.status == 1);
  CHECK(r.err == "attnviz-cli: the text is 10485760 bytes; the limit is 1048576\n");
  CHECK_FALSE(fs::exists(json));
  // Many words under the size limit but over the token limit: refused by count.
  std::string many;
  for (int i = 0; i <= kMaxTokens; ++i) many += "w ";
  in.text = many;
  CHECK(has(trace_run(m, in).error(), "8192"));
}

TEST_CASE("bad input: invalid UTF-8 becomes U+FFFD tokens, NUL bytes separate words") {
  const Model m = model_init_random(small_config(), 1);
  TraceInput in;
  in.text = "caf\xC3 ok \xFF\xFE end \xED\xA0\x80";  // a cut sequence, stray bytes, an encoded surrogate
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  std::vector<std::string> texts;
  for (const TraceToken& q : t->queries) texts.push_back(q.text);
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(texts.front() == "caf");
  CHECK(texts[1] == fffd);
  CHECK(std::count(texts.begin(), texts.end(), fffd) >= 4);
  for (const std::string& s : texts) CHECK(s.find('\xFF') == std::string::npos);
  CHECK(trace_all_finite(*t));
  // The JSON export is valid JSON (nlohmann would throw on invalid UTF-8 in a string).
  CHECK(nlohmann::json::accept(trace_to_json(*t, in.mask)));

  in.text = std::string("the\0cat\0\0sat", 12);
  t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  REQUIRE(t->n_queries() == 3);
  CHECK(t->queries[0].text == "the");
  CHECK(t->queries[1].text == "cat");
  CHECK(t->queries[2].text == "sat");

  // Both through a checkpoint's byte-level BPE: every byte maps to a piece, nothing is lost.
  auto gpt2 = model_open(fixture_path("hf/gpt2_tiny"));
  REQUIRE_MESSAGE(gpt2.ok(), gpt2.error());
  in.text = std::string("a\xFF\0b", 4);
  t = trace_run(*gpt2, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  CHECK(trace_all_finite(*t));

  const Run r = cli({"attention", "--text", std::string("caf\xC3\0ok", 7), "--d-model", "16", "--heads", "2"});
  CHECK(r.status == 0);
  CHECK(has(r.out, "tokens (3): 0:caf 1:" + fffd + " 2:ok"));
}

TEST_CASE("bad input: d_model not divisible by heads, zero heads or layers: one line naming the numbers") {
  ModelConfig c = small_config();
  c.d_model = 10;
  c.n_heads = 3;
  CHECK(config_validate(c).error() ==
        "d_model 10 is not divisible by 3 heads: each head needs d_model / heads dimensions");
  c = small_config();
  c.n_heads = 0;
  CHECK(config_validate(c).error() == "the number of heads must be at least 1 (got 0)");
  c = small_config();
  c.n_layers = 0;
  CHECK(config_validate(c).error() == "the number of layers must be between 1 and 96 (got 0)");
  c.n_layers = -3;
  CHECK(config_validate(c).error() == "the number of layers must be between 1 and 96 (got -3)");

  const std::string json = temp("cfg.json");
  const Run div = cli({"attention", "--text", "hi", "--d-model", "10", "--heads", "3", "--json", json});
  CHECK(div.status == 2);
  CHECK(has(div.err, "d_model 10 is not divisible by 3 heads"));
  const Run heads = cli({"attention", "--text", "hi", "--heads", "0", "--json", json});
  CHECK(heads.status == 2);
  CHECK(has(heads.err, "--heads"));
  const Run layers = cli({"attention", "--text", "hi", "--layers", "0", "--json", json});
  CHECK(layers.status == 2);
  CHECK(has(layers.err, "--layers"));
  CHECK_FALSE(fs::exists(json));

  // The same config inside a model file's metadata is refused when the file is opened.
  TensorFile f;
  f.metadata[kConfigKey] = R"({"d_model": 10, "n_heads": 3})";
  CHECK(has(model_from_tensors(f, std::nullopt).error(), "d_model 10 is not divisible by 3 heads"));
  f.metadata[kConfigKey] = R"({"n_heads": 0})";
  CHECK(has(model_from_tensors(f, std::nullopt).error(), "the number of heads must be at least 1 (got 0)"));
}

TEST_CASE("bad input: a huge model is refused before anything is allocated") {
  ModelConfig c;
  c.d_model = 8192;
  c.n_heads = 64;
  c.d_ff = 65536;
  c.n_layers = 20;  // 20 x (4 C² + 2 C F) = 26.8e9 parameters: 107 GB of float32
  const long rss_before = peak_rss_kb();
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(config_validate(c).error() == "the model is too large: 26843545600 parameters");
  c.d_model = 100000;
  CHECK(config_validate(c).error() == "d_model must be between 1 and 8192 (got 100000)");
  c.d_model = std::numeric_limits<int>::max();
  CHECK(has(config_validate(c).error(), "d_model must be between 1 and 8192"));

  TensorFile f;  // a model file claiming that config, with no weights at all
  f.metadata[kConfigKey] = R"({"d_model": 8192, "n_heads": 64, "d_ff": 65536, "n_layers": 20})";
  CHECK(has(model_from_tensors(f, std::nullopt).error(), "the model is too large: 26843545600 parameters"));
  CHECK(has(session_from_json(R"({"format": "attnviz.session", "version": 1, "config": {"d_model": 8192,
        "n_heads": 64, "d_ff": 65536, "n_layers": 20}})").error(), "too large"));
  CHECK(seconds_since(t0) < 0.1);
  CHECK(peak_rss_kb() - rss_before < 16 * 1024);

  const Run r = cli({"attention", "--text", "hi", "--d-model", "8192", "--heads", "64", "--ffn", "65536", "--layers",
                     "20", "--json", temp("huge.json")});
  CHECK(r.status == 2);
  CHECK(has(r.err, "the model is too large: 26843545600 parameters"));
  CHECK_FALSE(fs::exists(temp("huge.json")));
  CHECK(cli({"attention", "--text", "hi", "--d-model", "99999999999"}).status == 2);
}

TEST_CASE("bad input: a query whose every key is masked gets an all-zero row, never NaN, and the CLI says so") {
  const Model m = model_init_random(small_config(), 1);
  TraceInput in;
  in.text = "the cat sat";
  for (int k = 0; k < 3; ++k) in.mask.hidden_cells.emplace_back(1, k);
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  CHECK(trace_all_finite(*t));
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      const Mat& w = t->head(l, h).weights_kept;
      CHECK(w.row(1).cwiseAbs().maxCoeff() == 0.0f);
      CHECK(w.row(0).sum() == doctest::Approx(1.0));
      CHECK(w.row(2).sum() == doctest::Approx(1.0));
      CHECK(t->head(l, h).out.row(1).cwiseAbs().maxCoeff() == 0.0f);  // attends nowhere: adds nothing
    }
  const auto j = nlohmann::json::parse(trace_to_json(*t, in.mask));
  CHECK(j["layers"][0]["heads"][0]["weights"][1] == nlohmann::json::array({0.0, 0.0, 0.0}));

  // The CLI has no custom cells, but a local window in cross-attention with a short source leaves
  // the far queries no key at all: it runs (exit 0), numbers stay finite and stderr says which.
  const std::string json = temp("masked.json");
  const Run r = cli({"attention", "--text", "one two three four", "--source", "a b", "--mask", "window:0", "--d-model",
                     "16", "--heads", "2", "--json", json});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.err == "attnviz-cli: note: every key is masked for queries 2 (three), 3 (four): their attention rows are "
                 "all zeros\n");
  const std::string text = read_text(json);
  CHECK_FALSE(has(text, "nan"));
  CHECK_FALSE(has(text, "null"));
  const auto cj = nlohmann::json::parse(text);
  CHECK(cj["layers"][0]["heads"][1]["weights"][3] == nlohmann::json::array({0.0, 0.0}));
  const Run summary = cli({"attention", "--text", "one two three", "--source", "a", "--mask", "window:0", "--d-model",
                           "16", "--heads", "2"});
  REQUIRE(summary.status == 0);
  CHECK(summary.err == "attnviz-cli: note: every key is masked for queries 1 (two), 2 (three): their attention rows "
                       "are all zeros\n");
  CHECK_FALSE(has(summary.out, "nan"));
  fs::remove(json);
}

TEST_CASE("bad input: temperature 0, negative or NaN is refused wherever it can be given") {
  ModelConfig c = small_config();
  for (const float bad : {0.0f, -1.0f, 1e-6f, std::numeric_limits<float>::quiet_NaN()}) {
    c.temperature = bad;
    CHECK(has(config_validate(c).error(), "temperature must be between 0.001000 and 1000.000000"));
  }
  for (const char* bad : {"0", "-1", "nan", "-0"}) {
    const Run r = cli({"attention", "--text", "hi", "--temperature", bad, "--json", temp("t.json")});
    CHECK(r.status == 2);
    CHECK(has(r.err, std::string("--temperature '") + bad + "'"));
  }
  CHECK_FALSE(fs::exists(temp("t.json")));
  CHECK(has(config_from_json(nlohmann::json{{"temperature", 0}}).error(), "model config: temperature must be"));
  CHECK(has(session_from_json(R"({"format": "attnviz.session", "version": 1, "config": {"temperature": -2}})").error(),
            "session: model config: temperature must be between"));
  // The smallest allowed temperature keeps every weight finite even with large scores.
  c.temperature = kMinTemperature;
  const Model m = model_init_random(c, 3);
  TraceInput in;
  in.text = "the cat sat on the mat";
  auto t = trace_run(m, in);
  REQUIRE(t.ok());
  CHECK(trace_all_finite(*t));
}

TEST_CASE("bad input: damaged checkpoints are refused naming the problem, the CLI exits 1 and writes nothing") {
  const std::string good = temp("good.safetensors");
  REQUIRE(model_save(good, model_init_random(small_config(), 1)).ok());
  auto bytes = file_read_bytes(good);
  REQUIRE(bytes.ok());
  const std::string json = temp("ck.json");
  auto refused = [&](const std::string& path, const std::string& part) {
    auto m = model_open(path);
    REQUIRE_FALSE(m.ok());
    INFO("model_open: " << m.error());
    CHECK(has(m.error(), part));
    CHECK(m.error().find('\n') == std::string::npos);
    const Run r = cli({"attention", "--text", "hi", "--weights", path, "--json", json});
    CHECK(r.status == 1);
    INFO("cli: " << r.err);
    CHECK(has(r.err, part));
    CHECK_FALSE(fs::exists(json));
  };

  SUBCASE("truncated in the middle of a tensor") {
    const std::string cut = temp("cut.safetensors");
    write_bytes(cut, Bytes(bytes->begin(), bytes->end() - 100));
    refused(cut, "safetensors: file is truncated: the tensors need ");
    write_bytes(cut, Bytes(bytes->begin(), bytes->begin() + 4));  // not even the header length
    refused(cut, "safetensors: file is 4 bytes, shorter than the 8-byte header length");
    fs::remove(cut);
  }
  SUBCASE("a header length of 2^64 - 1 bytes") {
    const std::string huge = temp("hdr.safetensors");
    Bytes b;
    append_le(b, ~uint64_t{0}, 8);
    b.push_back('{');
    b.push_back('}');
    write_bytes(huge, b);
    const long rss_before = peak_rss_kb();
    refused(huge, "safetensors: header length 18446744073709551615 is over the 100000000-byte limit");
    CHECK(peak_rss_kb() - rss_before < 16 * 1024);
    // A tensor claiming bytes far past the end of the file.
    write_bytes(huge, serialize_with_header(
                          R"({"x":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,18446744073709551612]}})", 16));
    refused(huge, "tensor 'x' shape [4611686018427387904] overflows 64 bits in bytes of dtype F32");
    fs::remove(huge);
  }
  SUBCASE("a shape whose element count overflows 64 bits") {
    const std::string over = temp("over.safetensors");
    write_bytes(over, serialize_with_header(
                          R"({"x":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,16]}})", 16));
    refused(over, "tensor 'x' shape [4294967296, 4294967296, 16] has more values than 64 bits can count");
    write_bytes(over, serialize_with_header(R"({"x":{"dtype":"F32","shape":[-1,-4],"data_offsets":[0,16]}})", 16));
    refused(over, "tensor 'x' shape entry 0 is -1, not a non-negative integer");
    fs::remove(over);
  }
  SUBCASE("a NaN weight: refused naming the tensor") {
    Model m = model_init_random(small_config(), 1);
    m.weights.layers[1].attn.out_w(3, 4) = std::numeric_limits<float>::quiet_NaN();
    const std::string nan = temp("nan.safetensors");
    write_bytes(nan, safetensors_serialize(model_to_tensors(m)));
    refused(nan, "tensor 'layers.1.self_attn.out_proj.weight' contains NaN or infinite values");
    m.weights.layers[1].attn.out_w(3, 4) = 0.0f;
    m.weights.layers[0].ff1_b(2) = std::numeric_limits<float>::infinity();
    write_bytes(nan, safetensors_serialize(model_to_tensors(m)));
    refused(nan, "tensor 'layers.0.linear1.bias' contains NaN or infinite values");
    fs::remove(nan);
  }
  fs::remove(good);
}

TEST_CASE("bad input: session files that are truncated, 100,000 deep, mistyped or from another version") {
  Session s;
  s.sentence = "The animal didn't cross the street";
  s.ui["view"] = "heads";
  const std::string full = session_to_json(s);
  REQUIRE(session_from_json(full).ok());
  for (const size_t cut : {size_t{0}, size_t{1}, full.size() / 2, full.size() - 1})
    CHECK(session_from_json(full.substr(0, cut)).error() == "session: the file is not valid JSON (truncated or damaged?)");

  const std::string deep = R"({"format": "attnviz.session", "version": 1, "ui": )" + std::string(100'000, '[') +
                           std::string(100'000, ']') + "}";
  auto t0 = std::chrono::steady_clock::now();
  CHECK(session_from_json(deep).error() == "session: the file is nested too deeply to be a session");
  CHECK(session_from_json(std::string(100'000, '{')).error() == "session: the file is nested too deeply to be a session");
  CHECK(seconds_since(t0) < 0.5);

  auto error_of = [](const std::string& body) {
    return session_from_json(R"({"format": "attnviz.session", "version": 1, )" + body + "}").error();
  };
  CHECK(error_of(R"("sentence": 5)") == "session: 'sentence' must be text");
  CHECK(error_of(R"("cross": "yes")") == "session: 'cross' must be true or false");
  CHECK(error_of(R"("seed": -1)") == "session: 'seed' must be a non-negative whole number");
  CHECK(error_of(R"("config": {"d_model": "big"})") == "session: model config: 'd_model' must be a whole number");
  CHECK(error_of(R"("config": [])") == "session: the model config must be a JSON object");
  CHECK(error_of(R"("mask": {"hidden_cells": [[1]]})") == "session: mask: each hidden cell must be [query, key]");
  CHECK(error_of(R"("selection": [0, 0])") == "session: 'selection' must be an object");
  CHECK(error_of(R"("selection": {"layer": 1.5})") == "session: 'layer' must be a whole number from 0 to 96");
  CHECK(error_of(R"("ui": {"view": 3})") == "session: 'ui.view' must be text");
  CHECK(session_from_json(R"({"format": "attnviz.session", "version": 2})").error() ==
        "session: version 2 is not supported (this attnviz reads version 1)");
  CHECK(session_from_json(R"({"format": "attnviz.session", "version": "1"})").error() == "session: the file has no version");
  CHECK(session_from_json(R"({"format": "something else", "version": 1})").error() ==
        "session: this is not an attnviz session file");

  // From a file, the message starts with the path.
  const std::string path = temp("truncated.session.json");
  REQUIRE(file_write_atomic(path, std::string_view(full).substr(0, 40)).ok());
  CHECK(session_load(path).error() == "'" + path + "': session: the file is not valid JSON (truncated or damaged?)");
  fs::remove(path);
}

TEST_CASE("bad input: saving to a full disk or a read-only place fails by name and keeps the original file") {
  Session s;
  s.sentence = "the original";
  const std::string original = session_to_json(s);
  Session big = s;
  big.sentence = std::string(200'000, 'w');

  SUBCASE("/dev/full is written in place (never renamed over) and reports the full disk") {
    CHECK(session_save("/dev/full", s).error() == "cannot write '/dev/full': No space left on device");
    struct stat st {};
    REQUIRE(::stat("/dev/full", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));  // still the device, not a regular file left by a rename
    CHECK(has(model_save("/dev/full", model_init_random(small_config(), 1)).error(), "No space left on device"));
    CHECK(has(npy_write("/dev/full", Mat::Ones(4, 4)).error(), "No space left on device"));
    CHECK(file_write_atomic("/dev/null", std::string_view("discarded")).ok());  // other devices still work
  }
  SUBCASE("a disk that fills up mid-write: the original stays byte for byte, no temporary file is left") {
    const std::string path = temp("full.session.json");
    REQUIRE(session_save(path, s).ok());
    {
      const FileSizeLimit limit(64 * 1024);
      const Status st = session_save(path, big);
      CHECK(st.error() == "cannot write '" + path + "': File too large");
      const std::string w = temp("full.safetensors");
      CHECK(has(model_save(w, model_init_random(ModelConfig{}, 1)).error(), "File too large"));
      CHECK_FALSE(fs::exists(w));
      CHECK_FALSE(temp_left_behind(w));
    }
    CHECK(read_text(path) == original);
    CHECK_FALSE(temp_left_behind(path));
    fs::remove(path);
  }
  SUBCASE("read-only places that stop root too: /proc, and a 'folder' that is a regular file") {
    CHECK(has(session_save("/proc/attnviz_no_such/session.json", s).error(),
              "cannot write '/proc/attnviz_no_such/session.json': "));
    CHECK(has(session_save("/proc/version", s).error(), "cannot write '/proc/version'"));
    const std::string file = temp("not_a_folder");
    REQUIRE(session_save(file, s).ok());
    CHECK(session_save(file + "/session.json", s).error() == "cannot write '" + file + "/session.json': Not a directory");
    CHECK(read_text(file) == original);
    fs::remove(file);
    const std::string folder = temp("a_folder");
    fs::create_directories(folder);
    CHECK(session_save(folder, s).error() == "cannot write '" + folder + "': it is a folder");
    CHECK(fs::is_directory(folder));
    fs::remove(folder);
  }
  SUBCASE("the CLI's exports: exit 1 naming the flag and the file; existing files untouched") {
    const std::vector<std::string> base = {"attention", "--text", "the cat sat", "--d-model", "16", "--heads", "2"};
    auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> a = base;
      a.insert(a.end(), extra.begin(), extra.end());
      return cli(a);
    };
    Run r = with({"--json", "/dev/full"});
    CHECK(r.status == 1);
    CHECK(r.err == "attnviz-cli: --json: cannot write '/dev/full': No space left on device\n");
    r = with({"--csv", "/dev/full", "--layer", "0", "--head", "0"});
    CHECK(r.status == 1);
    CHECK(r.err == "attnviz-cli: --csv: cannot write '/dev/full': No space left on device\n");
    r = with({"--png", "/dev/full", "--layer", "0"});
    CHECK(r.status == 1);
    CHECK(has(r.err, "--png: cannot write '/dev/full': No space left on device"));
    r = with({"--save-weights", "/dev/full"});
    CHECK(r.status == 1);
    CHECK(has(r.err, "--save-weights: cannot write '/dev/full': No space left on device"));
    r = with({"--json", "/proc/attnviz_no_such.json"});
    CHECK(r.status == 1);
    CHECK(has(r.err, "--json: cannot write '/proc/attnviz_no_such.json'"));

    // An export that runs out of space keeps the file it would have replaced.
    const std::string json = temp("keep.json");
    REQUIRE(file_write_atomic(json, std::string_view("{\"previous\": true}")).ok());
    {
      const FileSizeLimit limit(1024);
      r = with({"--json", json});
    }
    CHECK(r.status == 1);
    CHECK(r.err == "attnviz-cli: --json: cannot write '" + json + "': File too large\n");
    CHECK(read_text(json) == "{\"previous\": true}");
    CHECK_FALSE(temp_left_behind(json));
    fs::remove(json);

    // Standard output on a full disk: the real binary must not exit 0 having lost the output.
    CHECK(cli_binary("attention --text 'the cat' --d-model 16 --heads 2 --json - >/dev/full 2>/dev/null") == 1);
    CHECK(cli_binary("attention --text 'the cat' --d-model 16 --heads 2 >/dev/full 2>/dev/null") == 1);
    CHECK(cli_binary("attention --text 'the cat' --d-model 16 --heads 2 --json - >/dev/null") == 0);
  }
}
