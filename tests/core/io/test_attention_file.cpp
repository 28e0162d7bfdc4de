// Attention files: every rejection names its tensor or key (files made in memory with the
// safetensors writer), flagged rows, a write-and-read round trip, and the files written by
// tests/fixtures/make_attention_files.py as the README's Python lines would (F32 and F16, cross).
#include <doctest/doctest.h>

#include "support/byte_util.h"
#include "support/check_util.h"
#include "support/fixture_util.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file_io.h"
#include "io/attention_file.h"
#include "io/safetensors.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

// A (H, T, T) tensor whose rows are uniform: every row sums to 1.
Tensor uniform(const std::string& name, int64_t heads, int64_t rows, int64_t cols) {
  Tensor t;
  t.name = name;
  t.shape = {heads, rows, cols};
  t.data.assign(static_cast<size_t>(heads * rows * cols), 1.0f / static_cast<float>(cols));
  return t;
}

std::string tokens_json(int n) {
  nlohmann::json j = nlohmann::json::array();
  for (int i = 0; i < n; ++i) j.push_back("t" + std::to_string(i));
  return j.dump();
}

// Two layers, two heads, three tokens: a valid file to break one thing at a time.
TensorFile valid_file() {
  TensorFile f;
  f.metadata["tokens"] = R"(["The", "cat", "."])";
  f.metadata["model"] = "tiny";
  f.tensors = {uniform("attentions.0", 2, 3, 3), uniform("attentions.1", 2, 3, 3)};
  return f;
}

Result<AttentionFile> parse(const TensorFile& f) {
  REQUIRE(tensor_file_check(f).ok());
  const std::vector<uint8_t> bytes = safetensors_serialize(f);
  return attention_file_parse(bytes, "a.safetensors");
}

std::string error_of(const TensorFile& f) {
  auto r = parse(f);
  return r ? std::string("<parsed without error>") : r.error();
}

}  // namespace

TEST_CASE("attention file: a valid file becomes a weights-only trace") {
  TensorFile f = valid_file();
  f.tensors[1].data[2 * 3 * 3 - 1] = 0.5f;  // layer 1, head 1, last row: sums to 5/6
  auto r = parse(f);
  REQUIRE_MESSAGE(r.ok(), r.error());
  const Trace& t = r->trace;
  CHECK(t.weights_only);
  CHECK_FALSE(t.cross);
  CHECK(t.config.n_layers == 2);
  CHECK(t.config.n_heads == 2);
  CHECK(t.layers.size() == 2);
  CHECK(t.n_queries() == 3);
  CHECK(t.n_keys() == 3);
  CHECK(t.queries[1].text == "cat");
  CHECK(t.queries[1].piece == "cat");
  CHECK(t.queries[2].kind == TokenKind::punct);
  CHECK(t.queries[0].kind == TokenKind::word);
  CHECK(t.mask.rows() == 3);
  CHECK(t.mask.isZero());
  CHECK(t.head(0, 1).q.size() == 0);
  CHECK(t.head(0, 1).scores_raw.size() == 0);
  CHECK(t.head(1, 1).weights_kept(2, 2) == doctest::Approx(0.5));
  CHECK(r->model == "tiny");
  CHECK(has(t.model_source, "a.safetensors (tiny)"));
  CHECK_FALSE(r->cross_trace.has_value());
  REQUIRE(r->off_rows.size() == 1);
  CHECK(r->off_rows[0].layer == 1);
  CHECK(r->off_rows[0].head == 1);
  CHECK(r->off_rows[0].row == 2);
  CHECK(r->off_rows[0].sum == doctest::Approx(2.0 / 3 + 0.5));
  CHECK(has(off_rows_summary(r->off_rows), "layer 1 head 1 row 2 (sum 1.167)"));
}

TEST_CASE("attention file: rows summing to 0 or drifting past 1e-3 are flagged, small drift is not") {
  TensorFile f = valid_file();
  for (int j = 0; j < 3; ++j) f.tensors[0].data[static_cast<size_t>(j)] = 0.0f;  // layer 0 head 0 row 0
  f.tensors[0].data[3] += 0.0005f;                                               // row 1: within 1e-3
  f.tensors[0].data[6] += 0.002f;                                                // row 2: past it
  auto r = parse(f);
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->off_rows.size() == 2);
  CHECK(r->off_rows[0].row == 0);
  CHECK(r->off_rows[0].sum == 0.0f);
  CHECK(r->off_rows[1].row == 2);
  CHECK(r->trace.head(0, 0).weights_kept(0, 0) == 0.0f);  // shown as it is, not renormalised
}

TEST_CASE("attention file: a batch of one (1, H, T, T) is read, a larger batch is refused") {
  TensorFile f = valid_file();
  f.tensors[0].shape = {1, 2, 3, 3};
  auto r = parse(f);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->trace.config.n_heads == 2);
  f.tensors[0].shape = {2, 1, 3, 3};
  CHECK(has(error_of(f), "attentions.0 has shape (2, 1, 3, 3): a batch of 2 inputs"));
  f.tensors[0].shape = {18};
  CHECK(has(error_of(f), "attentions.0 has shape (18), expected (heads, queries, keys)"));
}

TEST_CASE("attention file: BPE's and SentencePiece's space markers read as the app's space mark") {
  TensorFile f = valid_file();
  f.metadata["tokens"] = "[\"The\", \"\\u0120cat\", \"\\u2581.\"]";
  auto r = parse(f);
  REQUIRE_MESSAGE(r.ok(), r.error());
  CHECK(r->trace.queries[1].text == "\xC2\xB7" "cat");
  CHECK(r->trace.queries[1].piece == "\xC4\xA0" "cat");
  CHECK(r->trace.queries[2].text == "\xC2\xB7.");
  CHECK(r->trace.queries[2].kind == TokenKind::punct);
}

TEST_CASE("attention file: the tokens key is required and must be a JSON list of strings") {
  TensorFile f = valid_file();
  f.metadata.erase("tokens");
  CHECK(has(error_of(f), "metadata key 'tokens' is missing"));
  f.metadata["tokens"] = "The cat .";
  CHECK(has(error_of(f), "metadata 'tokens' is not valid JSON"));
  f.metadata["tokens"] = R"({"a": 1})";
  CHECK(has(error_of(f), "metadata 'tokens' is not a JSON list of strings"));
  f.metadata["tokens"] = R"(["The", 3, "."])";
  CHECK(has(error_of(f), "metadata 'tokens' item 1 is not a string (number)"));
  f.metadata["tokens"] = "[]";
  CHECK(has(error_of(f), "metadata 'tokens' is an empty list"));
}

TEST_CASE("attention file: the token count must match every tensor's T") {
  TensorFile f = valid_file();
  f.metadata["tokens"] = tokens_json(4);
  const std::string e = error_of(f);
  CHECK(has(e, "attentions.0 has shape (2, 3, 3), but the metadata lists 4 tokens"));
  CHECK(has(e, "expected (2, 4, 4)"));
  f = valid_file();
  f.tensors[1] = uniform("attentions.1", 2, 3, 4);
  CHECK(has(error_of(f), "attentions.1 has shape (2, 3, 4), but the metadata lists 3 tokens"));
}

TEST_CASE("attention file: layers are numbered 0 to L-1 without a gap") {
  TensorFile f = valid_file();
  f.tensors[1].name = "attentions.2";
  CHECK(has(error_of(f), "attentions.1 is missing: layers must be numbered 0 to 1 without a gap (found attentions.2)"));
  f.tensors = {uniform("attentions.1", 2, 3, 3)};
  CHECK(has(error_of(f), "attentions.0 is missing"));
  f.tensors = {};
  CHECK(has(error_of(f), "no tensor attentions.0"));
  f.tensors = {uniform("attentions.00", 2, 3, 3)};
  CHECK(has(error_of(f), "unknown tensor 'attentions.00'"));
}

TEST_CASE("attention file: every layer must have the same number of heads") {
  TensorFile f = valid_file();
  f.tensors[1] = uniform("attentions.1", 3, 3, 3);
  CHECK(has(error_of(f), "attentions.1 has 3 heads but attentions.0 has 2: every layer must have the same number of heads"));
}

TEST_CASE("attention file: NaN, infinite and negative weights are refused with their place") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (const auto& entry : std::vector<std::pair<float, std::string>>{{nan, "is NaN"}, {inf, "is inf"},
                                                                      {-inf, "is -inf"}, {-0.25f, "is negative (-0.25)"}}) {
    const float value = entry.first;
    const std::string& word = entry.second;
    TensorFile f = valid_file();
    f.tensors[1].data[1 * 9 + 2 * 3 + 1] = value;  // layer 1, head 1, row 2, column 1
    CAPTURE(word);
    CHECK(has(error_of(f), "attentions.1: head 1, row 2, column 1 " + word));
  }
}

TEST_CASE("attention file: unknown tensors and metadata keys are named with the known ones") {
  TensorFile f = valid_file();
  f.tensors.push_back(uniform("encoder_attentions.0", 2, 3, 3));
  const std::string e = error_of(f);
  CHECK(has(e, "unknown tensor 'encoder_attentions.0'"));
  CHECK(has(e, "known: attentions.{layer} and cross_attentions.{layer}"));
  f = valid_file();
  f.metadata["format"] = "pt";
  const std::string k = error_of(f);
  CHECK(has(k, "unknown metadata key 'format'"));
  CHECK(has(k, "known: tokens, source_tokens and model"));
}

TEST_CASE("attention file: only float tensors are attention weights") {
  TensorFile f = valid_file();
  std::vector<uint8_t> bytes = safetensors_serialize(f);
  // The writer stores F32; relabel the first tensor as I32 (same width) in the header text.
  std::string text(bytes.begin(), bytes.end());
  const size_t at = text.find("\"F32\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 5, "\"I32\"");
  const std::vector<uint8_t> relabelled(text.begin(), text.end());
  auto r = attention_file_parse(relabelled, "a.safetensors");
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error(), "has dtype I32, expected F32, F16 or BF16"));
}

TEST_CASE("attention file: cross-attention needs source_tokens of its own length") {
  TensorFile f = valid_file();
  f.tensors.push_back(uniform("cross_attentions.0", 4, 3, 5));
  f.tensors.push_back(uniform("cross_attentions.1", 4, 3, 5));
  CHECK(has(error_of(f), "cross_attentions need metadata key 'source_tokens'"));
  f.metadata["source_tokens"] = tokens_json(4);
  CHECK(has(error_of(f), "cross_attentions.0 has shape (4, 3, 5), but the metadata lists 3 tokens and 4 source tokens"));
  f.metadata["source_tokens"] = tokens_json(5);
  auto r = parse(f);
  REQUIRE_MESSAGE(r.ok(), r.error());
  REQUIRE(r->cross_trace.has_value());
  CHECK(r->cross_trace->cross);
  CHECK(r->cross_trace->weights_only);
  CHECK(r->cross_trace->config.n_heads == 4);
  CHECK(r->cross_trace->n_queries() == 3);
  CHECK(r->cross_trace->n_keys() == 5);
  CHECK(r->cross_trace->keys[4].text == "t4");
  f.tensors.pop_back();
  CHECK(has(error_of(f), "1 cross_attentions layers but 2 attentions layers"));
  f = valid_file();
  f.metadata["source_tokens"] = tokens_json(5);
  CHECK(has(error_of(f), "'source_tokens' is given but there is no cross_attentions.0"));
}

TEST_CASE("attention file: not a safetensors file at all") {
  const std::vector<uint8_t> junk = {1, 2, 3};
  auto r = attention_file_parse(junk, "junk.bin");
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error(), "attention file 'junk.bin': safetensors:"));
  auto missing = attention_file_read(temp_path("no-such-attention"));
  REQUIRE_FALSE(missing.ok());
  CHECK(has(missing.error(), "attention file"));
}

TEST_CASE("attention file: written and read back, every weight the same, sniffed apart from a model") {
  TensorFile f = valid_file();
  Rng rng(5);
  for (Tensor& t : f.tensors)
    for (float& v : t.data) v = static_cast<float>(rng.uniform());  // not normalised: every row flagged
  TempFile path("attention-roundtrip.safetensors");
  REQUIRE(safetensors_write(path, f).ok());
  auto r = attention_file_read(path);
  REQUIRE_MESSAGE(r.ok(), r.error());
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          CHECK(r->trace.head(l, h).weights_kept(i, j) == f.tensors[static_cast<size_t>(l)].data[static_cast<size_t>(h * 9 + i * 3 + j)]);
  CHECK(r->off_rows.size() == 12);
  CHECK(attention_file_sniff(path));
  CHECK_FALSE(attention_file_sniff(fixture_path("tiny.safetensors")));
  CHECK_FALSE(attention_file_sniff(temp_path("no-such-attention")));
}

TEST_CASE("attention file: the Python-written fixtures (F32 batch of one with cross-attention, F16, BF16)") {
  auto ref_text = file_read_bytes(fixture_path("attention/reference.json"), 1 << 20);
  REQUIRE_MESSAGE(ref_text.ok(), ref_text.error());
  const auto ref = nlohmann::json::parse(std::string(ref_text->begin(), ref_text->end()));
  for (const auto& entry : std::vector<std::pair<std::string, float>>{{"encdec_f32.safetensors", 1e-7f},
                                                                     {"encoder_f16.safetensors", 1e-3f},
                                                                     {"encoder_bf16.safetensors", 4e-3f}}) {
    const std::string& file = entry.first;
    const float tol = entry.second;
    CAPTURE(file);
    const nlohmann::json& want = ref.at(file);
    auto r = attention_file_read(fixture_path("attention/" + file));
    REQUIRE_MESSAGE(r.ok(), r.error());
    CHECK(r->model == want.at("model").get<std::string>());
    CHECK(r->trace.config.n_layers == want.at("layers").get<int>());
    CHECK(r->trace.config.n_heads == want.at("heads").get<int>());
    const auto tokens = want.at("tokens").get<std::vector<std::string>>();
    REQUIRE(r->trace.n_queries() == static_cast<int>(tokens.size()));
    for (size_t i = 0; i < tokens.size(); ++i) CHECK(r->trace.queries[i].piece == tokens[i]);
    if (tol <= 1e-3f) CHECK(r->off_rows.empty());  // rounded to BF16, a row may drift past 1e-3
    // One head of the last layer, as PyTorch computed it (float64 text).
    const auto cells = want.at("last_layer_head_1").get<std::vector<std::vector<double>>>();
    const Mat& w = r->trace.head(r->trace.config.n_layers - 1, 1).weights_kept;
    for (size_t i = 0; i < cells.size(); ++i)
      for (size_t j = 0; j < cells[i].size(); ++j)
        CHECK(std::abs(w(static_cast<int>(i), static_cast<int>(j)) - cells[i][j]) <= tol);
    CHECK(r->cross_trace.has_value() == want.contains("source_tokens"));
    if (r->cross_trace) {
      CHECK(r->cross_trace->n_keys() == static_cast<int>(want.at("source_tokens").size()));
      const auto cross = want.at("cross_last_layer_head_0").get<std::vector<std::vector<double>>>();
      const Mat& c = r->cross_trace->head(r->cross_trace->config.n_layers - 1, 0).weights_kept;
      for (size_t i = 0; i < cross.size(); ++i)
        for (size_t j = 0; j < cross[i].size(); ++j)
          CHECK(std::abs(c(static_cast<int>(i), static_cast<int>(j)) - cross[i][j]) <= tol);
    }
  }
}
