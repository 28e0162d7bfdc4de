// trace_run end to end: tokens, padding, cross-attention, per-head shapes, errors that keep going.
#include <doctest/doctest.h>

#include <cmath>

#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::max_abs_diff;
using attnviz::test::sized_config;
using attnviz::test::sized_model;

namespace {
const char* kAnimal = "The animal didn't cross the street because it was too tired.";

ModelConfig paper_config(int layers = 2) {
  ModelConfig c;  // C = 512, 8 heads, post-norm, sinusoidal: the paper's base model
  c.n_layers = layers;
  return c;
}
}  // namespace

TEST_CASE("trace: the paper's configuration on the animal sentence keeps every intermediate") {
  const Model m = model_init_random(paper_config(), 1);
  TraceInput in;
  in.text = kAnimal;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  REQUIRE(t->n_queries() == 12);
  CHECK(t->queries[2].text == "didn't");
  CHECK(t->queries[11].kind == TokenKind::punct);
  REQUIRE(t->layers.size() == 2);
  for (const LayerTrace& l : t->layers) {
    REQUIRE(l.attn.heads.size() == 8);
    for (const HeadTrace& h : l.attn.heads) {
      CHECK(h.q.rows() == 12);
      CHECK(h.q.cols() == 64);
      CHECK(h.weights_kept.rows() == 12);
      CHECK(h.weights_kept.cols() == 12);
      CHECK((h.weights_kept.rowwise().sum().array() - 1.0f).abs().maxCoeff() < 1e-5f);
    }
    CHECK(l.attn.concat.cols() == 512);
    CHECK(l.ffn_hidden.cols() == 2048);
    CHECK(l.out.allFinite());
  }
  CHECK(max_abs_diff(t->final, t->layers[1].out) == 0.0f);
  // Random weights still are not uniform: heads differ from each other.
  CHECK(max_abs_diff(t->head(0, 0).weights_kept, t->head(0, 1).weights_kept) > 0.01f);
}

TEST_CASE("trace: the same seed gives the same trace, a different seed a different one") {
  TraceInput in;
  in.text = kAnimal;
  auto a = trace_run(model_init_random(paper_config(1), 5), in);
  auto b = trace_run(model_init_random(paper_config(1), 5), in);
  auto c = trace_run(model_init_random(paper_config(1), 6), in);
  REQUIRE((a.ok() && b.ok() && c.ok()));
  CHECK(max_abs_diff(a->head(0, 3).weights_kept, b->head(0, 3).weights_kept) == 0.0f);
  CHECK(max_abs_diff(a->head(0, 3).weights_kept, c->head(0, 3).weights_kept) > 1e-3f);
}

TEST_CASE("trace: padding adds [PAD] tokens that no query can see") {
  const Model m = sized_model({.d_model = 64, .n_heads = 4, .n_layers = 1, .d_ff = 64}, 2);
  TraceInput in;
  in.text = "The cat sat on the mat";
  in.mask.pad_to = 10;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  REQUIRE(t->n_keys() == 10);
  CHECK(t->real_keys == 6);
  CHECK(t->keys[7].text == "[PAD]");
  CHECK(t->keys[7].pad);
  for (int h = 0; h < 4; ++h) CHECK(t->head(0, h).weights_kept.rightCols(4).isZero(0.0f));
  in.mask.pad_to = 3;
  auto too_short = trace_run(m, in);
  REQUIRE_FALSE(too_short.ok());
  CHECK(too_short.error().find("more than the pad length 3") != std::string::npos);
}

TEST_CASE("trace: cross-attention has target rows and source columns") {
  const Model m = sized_model({.d_model = 64, .n_heads = 4, .n_layers = 2, .d_ff = 64}, 3);
  TraceInput in;
  in.source_text = "The cat sat on the mat .";
  in.text = "고양이가 매트 위에 앉았다";
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  CHECK(t->cross);
  CHECK(t->n_queries() == 4);
  CHECK(t->n_keys() == 7);
  CHECK(t->queries[0].text == "고양이가");
  CHECK(t->memory.rows() == 7);
  for (const LayerTrace& l : t->layers) {
    CHECK(l.attn.heads[0].weights_kept.rows() == 4);
    CHECK(l.attn.heads[0].weights_kept.cols() == 7);
    CHECK(l.attn.heads[0].k.rows() == 7);
  }
}

TEST_CASE("trace: bad input is an error with a message, never a crash") {
  const Model m = model_init_random(paper_config(1), 1);
  TraceInput empty;
  empty.text = "   \t\n ";
  auto e = trace_run(m, empty);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().find("no tokens") != std::string::npos);

  TraceInput wrong_width;
  wrong_width.embeddings = Mat::Zero(3, 10);
  auto w = trace_run(m, wrong_width);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().find("d_model is 512") != std::string::npos);

  TraceInput nan_input;
  nan_input.embeddings = Mat::Constant(3, 512, NAN);
  CHECK_FALSE(trace_run(m, nan_input).ok());

  Model broken = m;
  broken.config.n_heads = 7;
  auto b = trace_run(broken, empty);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().find("divisible") != std::string::npos);

  // NaN weights are caught where weights enter (model_check runs in the loader), and a shape
  // that does not match the config is caught before every forward.
  Model nan_weights = m;
  nan_weights.weights.layers[0].ff1_w(3, 3) = NAN;
  Status n = model_check(nan_weights);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().find("linear1.weight") != std::string::npos);
  CHECK(model_check_shapes(nan_weights).ok());
  Model wrong_shape = m;
  wrong_shape.weights.layers[0].ff2_w.resize(3, 3);
  TraceInput ok_text;
  ok_text.text = "hello";
  auto w2 = trace_run(wrong_shape, ok_text);
  REQUIRE_FALSE(w2.ok());
  CHECK(w2.error().find("linear2.weight") != std::string::npos);
}

TEST_CASE("trace: the sandbox embeds the same word the same way wherever it occurs") {
  ModelConfig c = paper_config(1);
  c.positions = PositionEncoding::none;
  const Model m = model_init_random(c, 9);
  TraceInput in;
  in.text = "it is it";
  auto t = trace_run(m, in);
  REQUIRE(t.ok());
  CHECK(max_abs_diff(t->embed.row(0), t->embed.row(2)) == 0.0f);
  CHECK(max_abs_diff(t->embed.row(0), t->embed.row(1)) > 0.1f);
}

TEST_CASE("trace: progress counts finished layers and a set cancel flag stops the pass") {
  const Model m = sized_model({.d_model = 32, .n_heads = 2, .n_layers = 3, .d_ff = 32}, 4);
  TraceInput in;
  in.text = "The cat sat on the mat";
  std::atomic<bool> cancel{false};
  std::atomic<int> done{0};
  auto full = trace_run(m, in, TraceControl{&cancel, &done});
  REQUIRE(full.ok());
  CHECK(done.load() == 3);
  in.source_text = "a source sentence";  // cross-attention: the encoder's layers count too
  done = 0;
  REQUIRE(trace_run(m, in, TraceControl{&cancel, &done}).ok());
  CHECK(done.load() == 6);
  cancel = true;
  done = 0;
  auto stopped = trace_run(m, in, TraceControl{&cancel, &done});
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error() == kTraceCancelled);
  CHECK(done.load() == 0);
}

TEST_CASE("trace: long inputs keep every head's weights but drop dot-product scores past kKeepScoresCells") {
  const ModelConfig c = sized_config({.d_model = 32, .n_heads = 8, .d_ff = 0});
  const Model m = model_init_random(c, 2);
  TraceInput in;
  in.embeddings = attnviz::test::random_mat(2100, 32, 4);  // 2100² x 8 heads = 35.3M cells > 2^25
  auto long_trace = trace_run(m, in);
  REQUIRE(long_trace.ok());
  const HeadTrace& h = long_trace->head(0, 3);
  CHECK(h.scores_raw.size() == 0);
  CHECK(h.weights_kept.rows() == 2100);
  CHECK(h.weights_kept.row(2099).sum() == doctest::Approx(1.0f).epsilon(1e-5));
  // A score recomputed on demand is the definition: q·k / √HS.
  const HeadScoreCell cell = head_score_at(h, c, 2000, 17);
  CHECK(cell.scaled == doctest::Approx(h.q.row(2000).dot(h.k.row(17)) / 2.0f).epsilon(1e-6));  // HS = 4
  in.embeddings = attnviz::test::random_mat(128, 32, 4);
  auto short_trace = trace_run(m, in);
  REQUIRE(short_trace.ok());
  CHECK(short_trace->head(0, 3).scores_raw.rows() == 128);  // 128² x 8 = 131k cells: all kept
}

TEST_CASE("trace: a forward past its memory limit is refused before it runs; long inputs form their maps on demand") {
  // Found by the soak test: padding to 4,096 tokens with 32 heads in 8 layers asked for 17 GB and
  // the system killed the app. Its maps are now formed on demand (2^32 cells > kKeepMapsCells): the
  // trace holds each layer's input and its heads' q, k, v and out, 45 MB, and the mask, 67 MB, within
  // the 2 GiB default. Under a 64 MiB limit it is refused before any layer runs, saying what it would take.
  ModelConfig c;
  c.d_model = 64;
  c.n_heads = 32;
  c.n_layers = 8;
  c.d_ff = 0;
  CHECK(trace_maps_kept(c, 4096, 4096) == MapsKept::none);
  CHECK(trace_bytes(c, 4096, 4096) == (4096LL * (8 * (64 + 2 * 64) + 3 * 64) + 4096LL * 8 * 2 * 64 + 4096LL * 4096) * 4);
  CHECK(trace_maps_kept(c, 4096, 4096, false) == trace_maps_kept(c, 4096, 4096));
  CHECK(trace_maps_kept(c, 10, 10) == MapsKept::all);
  CHECK(trace_maps_kept(c, 10, 10, true) == MapsKept::none);
  const Model big = model_init_random(c, 1);
  TraceInput in;
  in.text = kAnimal;
  in.mask.pad_to = 4096;
  in.max_memory = 64 * 1024 * 1024;
  auto refused = trace_run(big, in);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().find("the trace would take 112 MB (each layer's rows for 4096 tokens; the maps are formed when shown), "
                             "over its limit of 67 MB: ") == 0);
  in.source_text = kAnimal;  // cross-attention counts its encoder too
  CHECK_FALSE(trace_run(big, in).ok());
  in.max_memory = 0;
  c.n_heads = 1;
  c.n_layers = 1;
  in.source_text.clear();
  auto small = trace_run(model_init_random(c, 1), in);
  REQUIRE_MESSAGE(small.ok(), small.error());
  CHECK(small->n_keys() == 4096);
}
