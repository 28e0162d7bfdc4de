// trace_run_reusing against trace_run: after every kind of edit each intermediate of the trace
// agrees within 1e-5, the rows it says it reused are the unchanged prefix, and where reuse cannot
// be right (a bidirectional model after an edit, mean ablation, a changed mask) it reuses nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "io/model_open.h"
#include "model/trace.h"
#include "model/trace_reuse.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::fixture_path;
using attnviz::test::gpt_config;
using attnviz::test::max_abs_diff;
using attnviz::test::sized_model;

namespace {

// Absolute, on every matrix. GEMMs over other row counts round differently; the largest
// differences seen here are 7.6e-6, in raw scores of magnitude ~18 (gpt2_tiny).
constexpr float kTolerance = 1e-5f;
const char* kCat = "the cat sat on the mat";  // 6 word tokens

TraceInput text_input(const std::string& text) {
  TraceInput in;
  in.text = text;
  return in;
}

// A small GPT-shaped word-level model (hashed word vectors, learned positions) that is causal.
Model causal_model(int d_ff = 64, uint64_t seed = 7) {
  ModelConfig c = gpt_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = d_ff}, 1024);
  c.causal = true;
  return model_init_random(c, seed);
}

float max_head_diff(const HeadTrace& a, const HeadTrace& b) {
  CHECK(a.score == b.score);
  CHECK(a.ablated == b.ablated);
  return std::max({max_abs_diff(a.q, b.q), max_abs_diff(a.k, b.k), max_abs_diff(a.v, b.v),
                   max_abs_diff(a.scores_raw, b.scores_raw), max_abs_diff(a.scores_scaled, b.scores_scaled),
                   max_abs_diff(a.weights_kept, b.weights_kept), max_abs_diff(a.out, b.out),
                   max_abs_diff(a.q_unrotated, b.q_unrotated), max_abs_diff(a.k_unrotated, b.k_unrotated)});
}

float max_layer_diff(const LayerTrace& a, const LayerTrace& b) {
  float d = std::max(
      {max_abs_diff(a.x_in, b.x_in), max_abs_diff(a.attn_in, b.attn_in), max_abs_diff(a.attn.concat, b.attn.concat),
       max_abs_diff(a.attn.out, b.attn.out), max_abs_diff(a.resid1, b.resid1), max_abs_diff(a.ffn_in, b.ffn_in),
       max_abs_diff(a.ffn_hidden, b.ffn_hidden), max_abs_diff(a.ffn_out, b.ffn_out), max_abs_diff(a.out, b.out)});
  REQUIRE(a.attn.heads.size() == b.attn.heads.size());
  for (size_t h = 0; h < a.attn.heads.size(); ++h) d = std::max(d, max_head_diff(a.attn.heads[h], b.attn.heads[h]));
  return d;
}

// Two traces of the same input: tokens, mask and flags equal; the largest difference over every
// intermediate (shapes must match) is returned.
float max_trace_diff(const Trace& a, const Trace& b) {
  REQUIRE(a.n_queries() == b.n_queries());
  REQUIRE(a.n_keys() == b.n_keys());
  for (int i = 0; i < a.n_queries(); ++i) {
    CHECK(a.queries[static_cast<size_t>(i)].text == b.queries[static_cast<size_t>(i)].text);
    CHECK(a.queries[static_cast<size_t>(i)].id == b.queries[static_cast<size_t>(i)].id);
  }
  CHECK(a.real_keys == b.real_keys);
  CHECK(a.causal == b.causal);
  CHECK(a.cross == b.cross);
  CHECK(a.ablation.heads == b.ablation.heads);
  CHECK(a.mask == b.mask);  // 0 / -inf: exact
  float d = std::max(max_abs_diff(a.embed, b.embed), max_abs_diff(a.final, b.final));
  REQUIRE(a.layers.size() == b.layers.size());
  for (size_t l = 0; l < a.layers.size(); ++l) d = std::max(d, max_layer_diff(a.layers[l], b.layers[l]));
  return d;
}

// Runs `before`, then `after` both ways: the reusing trace must equal trace_run's. Returns the
// rows it reused.
int reused_after_edit(const Model& m, const TraceInput& before, const TraceInput& after) {
  auto previous = trace_run(m, before);
  REQUIRE_MESSAGE(previous.ok(), previous.error());
  auto full = trace_run(m, after);
  REQUIRE_MESSAGE(full.ok(), full.error());
  auto reused = trace_run_reusing(m, after, *previous);
  REQUIRE_MESSAGE(reused.ok(), reused.error());
  CHECK(full->reused_rows == 0);
  const float d = max_trace_diff(*reused, *full);
  INFO("max difference ", d, " after reusing ", reused->reused_rows, " rows");
  CHECK(d < kTolerance);
  return reused->reused_rows;
}

int reused_after_edit(const Model& m, const std::string& before, const std::string& after) {
  return reused_after_edit(m, text_input(before), text_input(after));
}

// The ids two traces share from the start: what a causal model may reuse.
int shared_ids(const Trace& a, const Trace& b) {
  int n = 0;
  while (n < std::min(a.n_queries(), b.n_queries()) &&
         a.queries[static_cast<size_t>(n)].id == b.queries[static_cast<size_t>(n)].id)
    ++n;
  return n;
}

// The rows a causal trace reuses: the shared ids, all of them only for the same input again (an
// input cut short at the end computes its last row anew).
int causal_reuse(const Trace& next, const Trace& previous) {
  const int shared = shared_ids(next, previous);
  if (shared == next.n_queries() && shared == previous.n_queries()) return shared;
  return std::min(shared, next.n_queries() - 1);
}

}  // namespace

TEST_CASE("trace reuse: a causal model computes only the rows after the edit") {
  const Model m = causal_model();
  CHECK(reused_after_edit(m, kCat, "the cat sat on the rug") == 5);        // last word changed
  CHECK(reused_after_edit(m, kCat, "the cat sat on the mat today") == 6);  // a word appended
  // A word removed at the end: every row is shared, yet the last is computed again (no block of an
  // empty matrix is ever formed).
  CHECK(reused_after_edit(m, kCat, "the cat sat on the") == 4);
  CHECK(reused_after_edit(m, kCat, "a cat sat on the mat") == 0);          // the first word: nothing shared
  CHECK(reused_after_edit(m, kCat, kCat) == 6);                            // identical
  CHECK(reused_after_edit(m, kCat, "the cat lay on a mat") == 2);          // an edit in the middle
}

TEST_CASE("trace reuse: a Llama-shaped model rotates the new rows at their own positions") {
  const Model m = model_init_random(test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 48}, 2), 5);
  CHECK(reused_after_edit(m, kCat, "the cat sat on the rug") == 5);
  CHECK(reused_after_edit(m, kCat, "the cat sat on the mat again and again") == 6);
  CHECK(reused_after_edit(m, kCat, kCat) == 6);  // nothing new: every head keeps its unrotated Q and K
}

TEST_CASE("trace reuse: attention-only layers, the post-norm layout and every scoring function") {
  CHECK(reused_after_edit(causal_model(/*d_ff=*/0), kCat, "the cat sat on the rug") == 5);
  ModelConfig c = test::sized_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 48});
  c.causal = true;  // post-norm, sinusoidal positions
  c.head_scores = {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive};
  c.temperature = 0.7f;
  const Model m = model_init_random(c, 3);
  CHECK(reused_after_edit(m, kCat, "the cat sat on the rug") == 5);
  CHECK(reused_after_edit(m, kCat, "the cat sat on the mat again") == 6);
}

TEST_CASE("trace reuse: typing into a GPT-2 checkpoint, keystroke after keystroke") {
  auto m = model_open(fixture_path("hf/gpt2_tiny"));
  REQUIRE_MESSAGE(m.ok(), m.error());
  const std::string stem = "The animal didn't cross the street because it was too ";
  auto previous = trace_run(*m, text_input(stem + "tired."));
  REQUIRE_MESSAGE(previous.ok(), previous.error());
  // Each keystroke reuses the trace the previous keystroke made, as the app does: differences
  // must not pile up.
  int reused_total = 0;
  for (const std::string word : {"tired", "tire", "tir", "ti", "t", "sl", "sle", "sleepy", "sleepy and"}) {
    auto full = trace_run(*m, text_input(stem + word));
    auto reused = trace_run_reusing(*m, text_input(stem + word), *previous);
    REQUIRE((full.ok() && reused.ok()));
    INFO("typed '", word, "'");
    CHECK(reused->reused_rows == causal_reuse(*full, *previous));
    CHECK(max_trace_diff(*reused, *full) < kTolerance);
    reused_total += reused->reused_rows;
    previous = std::move(reused);
  }
  CHECK(reused_total > 9 * 8);  // the stem alone is more than 8 tokens: most rows were reused
}

TEST_CASE("trace reuse: a GPT-2 checkpoint with given ids and switched-off heads") {
  auto m = model_open(fixture_path("hf/gpt2_tiny"));
  REQUIRE_MESSAGE(m.ok(), m.error());
  TraceInput before, after;
  before.token_ids = {10, 20, 30, 40, 50, 60};
  after.token_ids = {10, 20, 30, 40, 50, 61, 62};
  CHECK(reused_after_edit(*m, before, after) == 5);
  ablation_set(before.ablation, {0, 1}, true);
  ablation_set(before.ablation, {1, 3}, true);
  after.ablation = before.ablation;  // zeros: each row is switched off on its own
  CHECK(reused_after_edit(*m, before, after) == 5);
}

TEST_CASE("trace reuse: padding after the prefix and masks on top of the causal one") {
  const Model m = causal_model();
  TraceInput before = text_input(kCat), after = text_input("the cat sat on the rug");
  before.mask.pad_to = after.mask.pad_to = 9;
  CHECK(reused_after_edit(m, before, after) == 5);
  before.mask.window = after.mask.window = 2;
  before.mask.stride = after.mask.stride = 3;
  CHECK(reused_after_edit(m, before, after) == 5);
}

TEST_CASE("trace reuse: a changed mask reuses only the rows whose mask cells did not change") {
  const Model m = causal_model();
  TraceInput windowed = text_input(kCat);
  windowed.mask.window = 2;  // on a causal model, it first hides a key in row 3 (key 0)
  CHECK(reused_after_edit(m, text_input(kCat), windowed) == 3);
  TraceInput cell = text_input(kCat);
  cell.mask.hidden_cells = {{0, 0}};  // row 0 sees nothing now
  CHECK(reused_after_edit(m, text_input(kCat), cell) == 0);
}

TEST_CASE("trace reuse: nothing is reused where rows before the edit change") {
  SUBCASE("a bidirectional model: every query sees the edited key") {
    const Model m = sized_model({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 64}, 5);
    CHECK(reused_after_edit(m, kCat, "the cat sat on the rug") == 0);
    CHECK(reused_after_edit(m, kCat, "the cat sat on the") == 0);
    CHECK(reused_after_edit(m, kCat, kCat) == 6);  // unless nothing changed at all
  }
  SUBCASE("mean ablation: a switched-off head's output is its mean over every position") {
    const Model m = causal_model();
    TraceInput before = text_input(kCat), after = text_input("the cat sat on the rug");
    before.ablation.mode = after.ablation.mode = AblationMode::mean;
    ablation_set(before.ablation, {1, 2}, true);
    after.ablation = before.ablation;
    CHECK(reused_after_edit(m, before, after) == 0);
  }
  SUBCASE("other switched-off heads") {
    const Model m = causal_model();
    TraceInput after = text_input(kCat);
    ablation_set(after.ablation, {0, 0}, true);
    CHECK(reused_after_edit(m, text_input(kCat), after) == 0);
  }
  SUBCASE("cross-attention: the source is encoded anew") {
    const Model m = causal_model();
    TraceInput before = text_input(kCat), after = text_input("the cat sat on the rug");
    before.source_text = after.source_text = "a dog ran";
    CHECK(reused_after_edit(m, before, after) == 0);
  }
}

TEST_CASE("trace reuse: a trace of another model is never reused") {
  const Model m = causal_model(64, 7), other_seed = causal_model(64, 8), other_size = causal_model(48, 7);
  auto previous = trace_run(other_seed, text_input(kCat));
  REQUIRE(previous.ok());
  auto a = trace_run_reusing(m, text_input(kCat), *previous);  // the seed changes the word vectors
  REQUIRE(a.ok());
  CHECK(a->reused_rows == 0);
  auto full = trace_run(m, text_input(kCat));
  REQUIRE(full.ok());
  CHECK(max_trace_diff(*a, *full) == 0.0f);
  previous = trace_run(other_size, text_input(kCat));
  REQUIRE(previous.ok());
  auto b = trace_run_reusing(m, text_input(kCat), *previous);
  REQUIRE(b.ok());
  CHECK(b->reused_rows == 0);
}

TEST_CASE("trace reuse: long inputs whose heads keep only their weights") {
  // 16 heads x 4 layers x 760^2 cells > 2^25: dot-product heads drop their scores.
  ModelConfig c = gpt_config({.d_model = 32, .n_heads = 16, .n_layers = 4, .d_ff = 0}, 1024);
  c.causal = true;
  const Model m = model_init_random(c, 11);
  std::string text;
  for (int i = 0; i < 760; ++i) text.append("w").append(std::to_string(i % 97)).append(" ");
  auto previous = trace_run(m, text_input(text + "end"));
  REQUIRE(previous.ok());
  REQUIRE(previous->head(0, 0).scores_raw.size() == 0);
  auto reused = trace_run_reusing(m, text_input(text + "stop here"), *previous);
  auto full = trace_run(m, text_input(text + "stop here"));
  REQUIRE((reused.ok() && full.ok()));
  CHECK(reused->reused_rows == 760);
  CHECK(reused->head(3, 5).scores_raw.size() == 0);
  CHECK(max_trace_diff(*reused, *full) < kTolerance);
}

TEST_CASE("trace reuse: errors and cancelling are trace_run's") {
  const Model m = causal_model();
  auto previous = trace_run(m, text_input(kCat));
  REQUIRE(previous.ok());
  auto empty = trace_run_reusing(m, text_input("  "), *previous);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error() == trace_run(m, text_input("  ")).error());
  const std::atomic<bool> cancel{true};
  auto stopped = trace_run_reusing(m, text_input("the cat sat on the rug"), *previous, TraceControl{.cancel = &cancel});
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error() == kTraceCancelled);
  std::atomic<int> layers{0};
  auto counted =
      trace_run_reusing(m, text_input("the cat sat on the rug"), *previous, TraceControl{.layers_done = &layers});
  REQUIRE(counted.ok());
  CHECK(counted->reused_rows == 5);
  CHECK(layers == 2);
}
