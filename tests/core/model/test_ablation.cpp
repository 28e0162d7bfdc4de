// Switching heads off: the "L:H,L:H" form and its errors, validation against a config, and the
// forward with heads ablated — fast equals naive, the head's own weights are untouched, its concat
// block is zeros or one repeated row, nothing ablated is the plain forward bit for bit, and
// trace_final_ablated (rerun from the first changed layer) equals a full trace_run.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/ablation.h"
#include "model/attention.h"
#include "model/layer.h"
#include "model/mask.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using attnviz::test::has;
using attnviz::test::max_abs_diff;
using attnviz::test::random_mat;

namespace {

constexpr float kTol = 1e-5f;

std::vector<HeadRef> heads_of(const char* text) {
  auto h = ablation_heads_parse(text);
  REQUIRE_MESSAGE(h.ok(), h.error());
  return *h;
}

std::string parse_error(const char* text) {
  auto h = ablation_heads_parse(text);
  REQUIRE_FALSE(h.ok());
  return h.error();
}

LayerAblation layer_off(int n_heads, std::vector<int> heads, AblationMode mode) {
  LayerAblation a;
  a.mode = mode;
  a.off.assign(static_cast<size_t>(n_heads), false);
  for (int h : heads) a.off[static_cast<size_t>(h)] = true;
  return a;
}

ModelConfig config_of(int C, int NH, int L, ScoreKind score = ScoreKind::scaled_dot) {
  ModelConfig c = test::sized_config({.d_model = C, .n_heads = NH, .n_layers = L, .d_ff = 2 * C});
  c.score = score;
  c.positions = PositionEncoding::none;
  return c;
}

}  // namespace

TEST_CASE("ablation: \"0:1,1:3\" parses, formats back and labels from 1") {
  const std::vector<HeadRef> h = heads_of("0:1,1:3");
  REQUIRE(h.size() == 2);
  CHECK(h[0] == HeadRef{0, 1});
  CHECK(h[1] == HeadRef{1, 3});
  CHECK(ablation_heads_format(h) == "0:1,1:3");
  CHECK(ablation_heads_label(h) == "L1 H2, L2 H4");
  CHECK(ablation_heads_format({}).empty());
  CHECK(ablation_heads_label({}).empty());

  // Spaces around items and numbers, any order, repeats: sorted, each head once.
  CHECK(heads_of(" 1:3 , 0:1 ") == h);
  CHECK(heads_of("1 : 3,0: 1") == h);
  CHECK(heads_of("0:1,1:3,0:1,1:3") == h);
  CHECK(heads_of("2:0,0:3,0:1") == std::vector<HeadRef>{{0, 1}, {0, 3}, {2, 0}});
  CHECK(heads_of("").empty());
  CHECK(heads_of("   ").empty());
  // format(parse(s)) is the canonical form, and parse(format(h)) gives h back.
  CHECK(ablation_heads_format(heads_of(" 2:0 ,0:3,0:3")) == "0:3,2:0");
  CHECK(heads_of(ablation_heads_format(h).c_str()) == h);
}

TEST_CASE("ablation: items that are not LAYER:HEAD are errors naming the item") {
  for (const char* bad : {"1", "a:b", "-1:0", "0:-1", "0:", ":1", "1:2:3", "0:1,", ",0:1", "0:1,,1:3", "0;1", "1.5:0",
                          "0:x", "97:0"}) {
    CAPTURE(bad);
    const std::string err = parse_error(bad);
    CHECK(has(err, "LAYER:HEAD"));
  }
  CHECK(has(parse_error("0:1, a:b ,1:3"), "'a:b'"));
  CHECK(has(parse_error("-1:0"), "'-1:0'"));
}

TEST_CASE("ablation: set and toggle keep the heads sorted and unique, mode names round trip") {
  Ablation a;
  CHECK_FALSE(a.any());
  ablation_set(a, {1, 3}, true);
  ablation_set(a, {0, 1}, true);
  ablation_set(a, {1, 3}, true);
  CHECK(a.heads == std::vector<HeadRef>{{0, 1}, {1, 3}});
  CHECK(a.has(1, 3));
  CHECK_FALSE(a.has(3, 1));
  ablation_toggle(a, {0, 1});
  CHECK(a.heads == std::vector<HeadRef>{{1, 3}});
  ablation_toggle(a, {0, 2});
  CHECK(a.heads == std::vector<HeadRef>{{0, 2}, {1, 3}});
  ablation_set(a, {5, 5}, false);  // removing an absent head changes nothing
  CHECK(a.heads.size() == 2);
  for (AblationMode m : {AblationMode::zero, AblationMode::mean}) CHECK(ablation_mode_from_name(name_of(m)) == m);
  CHECK(name_of(AblationMode::zero) == "zero");
  CHECK(name_of(AblationMode::mean) == "mean");
  CHECK_FALSE(ablation_mode_from_name("Zero").has_value());
  CHECK_FALSE(ablation_mode_from_name("").has_value());
}

TEST_CASE("ablation: validation names the layer and head ranges of the model") {
  const ModelConfig c = config_of(16, 4, 2);
  CHECK(ablation_validate(Ablation{heads_of("0:0,1:3")}, c));
  CHECK(ablation_validate(Ablation{}, c));
  const Status bad_layer = ablation_validate(Ablation{{{2, 0}}}, c);
  REQUIRE_FALSE(bad_layer);
  CHECK(has(bad_layer.error(), "2:0"));
  CHECK(has(bad_layer.error(), "layers 0 to 1"));
  const Status bad_head = ablation_validate(Ablation{{{1, 4}}}, c);
  REQUIRE_FALSE(bad_head);
  CHECK(has(bad_head.error(), "1:4"));
  CHECK(has(bad_head.error(), "heads 0 to 3"));
  const Status negative = ablation_validate(Ablation{{{0, -1}}}, c);
  REQUIRE_FALSE(negative);
  CHECK(has(negative.error(), "heads 0 to 3"));

  // trace_run refuses such a set before running anything.
  const Model m = model_init_random(c, 5);
  TraceInput in;
  in.embeddings = random_mat(5, 16, 6);
  in.ablation = Ablation{{{0, 1}, {1, 7}}};
  auto t = trace_run(m, in);
  REQUIRE_FALSE(t.ok());
  CHECK(has(t.error(), "heads 0 to 3"));
}

TEST_CASE("ablation: one layer's share of a set") {
  const Ablation a{heads_of("0:1,1:0,1:3"), AblationMode::mean};
  const LayerAblation l0 = ablation_for_layer(a, 0, 4), l1 = ablation_for_layer(a, 1, 4), l2 = ablation_for_layer(a, 2, 4);
  CHECK(l0.off == std::vector<bool>{false, true, false, false});
  CHECK(l1.off == std::vector<bool>{true, false, false, true});
  CHECK(l0.mode == AblationMode::mean);
  CHECK(l0.any());
  CHECK_FALSE(l2.any());
  CHECK(l2.off.empty());
  CHECK_FALSE(LayerAblation{}.any());
  CHECK_FALSE(layer_off(4, {}, AblationMode::zero).any());
}

TEST_CASE("ablation: fast and naive attention agree under zero and mean ablation, for every scoring function") {
  for (ScoreKind score : {ScoreKind::scaled_dot, ScoreKind::dot, ScoreKind::general, ScoreKind::additive}) {
    CAPTURE(name_of(score));
    const ModelConfig c = config_of(32, 4, 1, score);
    const Model m = model_init_random(c, 11);
    const AttentionWeights& w = m.weights.layers[0].attn;
    const Mat x = random_mat(9, 32, 12);
    const Mat src = random_mat(6, 32, 13);
    MaskSpec spec;
    spec.causal = true;
    for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
      CAPTURE(name_of(mode));
      const LayerAblation off = layer_off(4, {0, 2}, mode);
      const Mat self_mask = mask_build(spec, 9, 9, 9);
      const AttentionTrace fast = attention_forward(w, c, x, x, self_mask, MapsKept::all, off);
      const AttentionTrace naive = attention_forward_naive(w, c, x, x, self_mask, off);
      CHECK(max_abs_diff(fast.concat, naive.concat) < kTol);
      CHECK(max_abs_diff(fast.out, naive.out) < kTol);
      for (int h = 0; h < 4; ++h) {
        CHECK(fast.heads[static_cast<size_t>(h)].ablated == (h == 0 || h == 2));
        CHECK(naive.heads[static_cast<size_t>(h)].ablated == (h == 0 || h == 2));
      }
      // Cross-attention: the mean runs over the target's rows.
      const Mat cross_mask = Mat::Zero(9, 6);
      const AttentionTrace fast_x = attention_forward(w, c, x, src, cross_mask, MapsKept::all, off);
      const AttentionTrace naive_x = attention_forward_naive(w, c, x, src, cross_mask, off);
      CHECK(max_abs_diff(fast_x.concat, naive_x.concat) < kTol);
      CHECK(max_abs_diff(fast_x.out, naive_x.out) < kTol);
      // And the whole layer.
      const LayerTrace lf = layer_forward(m.weights.layers[0], c, x, nullptr, self_mask, MapsKept::all, off);
      const LayerTrace ln = layer_forward_naive(m.weights.layers[0], c, x, nullptr, self_mask, off);
      CHECK(max_abs_diff(lf.out, ln.out) < kTol);
    }
  }
}

TEST_CASE("ablation: a switched-off head keeps its weights and output, its concat block is zeros or one repeated row") {
  const ModelConfig c = config_of(32, 4, 1);
  const Model m = model_init_random(c, 21);
  const AttentionWeights& w = m.weights.layers[0].attn;
  const Mat x = random_mat(7, 32, 22);
  MaskSpec spec;
  spec.window = 2;
  const Mat mask = mask_build(spec, 7, 7, 7);
  const int HS = c.head_size();
  for (bool naive : {false, true}) {
    CAPTURE(naive);
    const AttentionTrace plain = naive ? attention_forward_naive(w, c, x, x, mask) : attention_forward(w, c, x, x, mask);
    for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
      CAPTURE(name_of(mode));
      const LayerAblation off = layer_off(4, {1, 3}, mode);
      const AttentionTrace t =
          naive ? attention_forward_naive(w, c, x, x, mask, off) : attention_forward(w, c, x, x, mask, MapsKept::all, off);
      for (int h = 0; h < 4; ++h) {
        CAPTURE(h);
        const HeadTrace& a = t.heads[static_cast<size_t>(h)];
        const HeadTrace& p = plain.heads[static_cast<size_t>(h)];
        CHECK(a.weights_kept == p.weights_kept);  // computed before the ablation, so bit for bit
        CHECK(a.out == p.out);
        const Mat block = t.concat.middleCols(h * HS, HS);
        if (!off.off[static_cast<size_t>(h)]) {
          CHECK(block == plain.concat.middleCols(h * HS, HS));
        } else if (mode == AblationMode::zero) {
          CHECK(block.cwiseAbs().maxCoeff() == 0.0f);
        } else {
          const RowVec mean = p.out.colwise().mean();
          CHECK(max_abs_diff(block.row(0), mean) < 1e-6f);
          for (Eigen::Index i = 1; i < block.rows(); ++i) CHECK(block.row(i) == block.row(0));
        }
      }
      // W_O then reads the replaced concat.
      CHECK(max_abs_diff(t.out, (t.concat * w.out_w.transpose()).rowwise() + w.out_b.transpose()) < kTol);
      CHECK(max_abs_diff(t.out, plain.out) > 1e-3f);
    }
  }
}

TEST_CASE("ablation: switching nothing off is the plain forward, bit for bit") {
  const ModelConfig c = config_of(32, 4, 2);
  const Model m = model_init_random(c, 31);
  const Mat x = random_mat(6, 32, 32);
  const Mat mask = Mat::Zero(6, 6);
  const AttentionWeights& w = m.weights.layers[0].attn;
  const AttentionTrace plain = attention_forward(w, c, x, x, mask);
  for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
    const AttentionTrace none = attention_forward(w, c, x, x, mask, MapsKept::all, layer_off(4, {}, mode));
    CHECK(none.concat == plain.concat);
    CHECK(none.out == plain.out);
    for (const HeadTrace& h : none.heads) CHECK_FALSE(h.ablated);
    const AttentionTrace naive_plain = attention_forward_naive(w, c, x, x, mask);
    const AttentionTrace naive_none = attention_forward_naive(w, c, x, x, mask, layer_off(4, {}, mode));
    CHECK(naive_none.out == naive_plain.out);
  }
  // A set that names only other layers leaves layer 0 alone; trace_run with an empty set is the plain trace.
  const AttentionTrace elsewhere = attention_forward(w, c, x, x, mask, MapsKept::all, ablation_for_layer(Ablation{heads_of("1:2")}, 0, 4));
  CHECK(elsewhere.out == plain.out);
  TraceInput in;
  in.embeddings = x;
  auto a = trace_run(m, in);
  in.ablation = Ablation{{}, AblationMode::mean};
  auto b = trace_run(m, in);
  REQUIRE((a.ok() && b.ok()));
  CHECK(a->final == b->final);
  CHECK_FALSE(b->ablation.any());
}

TEST_CASE("ablation: trace_final_ablated equals trace_run's final with the same heads switched off") {
  struct Case {
    const char* what;
    ModelConfig config;
    MaskSpec mask;
  };
  ModelConfig gpt = test::gpt_config({.d_model = 32, .n_heads = 4, .n_layers = 3, .d_ff = 48}, 16);
  gpt.positions = PositionEncoding::none;  // X is given as is
  MaskSpec causal;
  causal.causal = true;
  const std::vector<Case> cases = {{"post-norm, 3 layers", config_of(32, 4, 3), MaskSpec{}},
                                   {"pre-norm GPT shape with a final norm, causal", gpt, causal}};
  for (const Case& k : cases) {
    CAPTURE(k.what);
    const Model m = model_init_random(k.config, 41);
    TraceInput in;
    in.embeddings = random_mat(8, 32, 42);
    in.mask = k.mask;
    auto base = trace_run(m, in);
    REQUIRE_MESSAGE(base.ok(), base.error());
    // Includes a set touching only the last layer (the rerun is one layer long) and one with a whole layer.
    for (const char* set : {"0:1,1:3", "2:0", "2:1,2:3", "1:0,1:1,1:2,1:3", "0:0", "0:2,2:2"}) {
      CAPTURE(set);
      for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
        CAPTURE(name_of(mode));
        const Ablation a{heads_of(set), mode};
        TraceInput ablated_in = in;
        ablated_in.ablation = a;
        auto full = trace_run(m, ablated_in);
        REQUIRE_MESSAGE(full.ok(), full.error());
        CHECK(full->ablation.heads == a.heads);
        CHECK(full->ablation.mode == a.mode);
        auto rerun = trace_final_ablated(m, *base, a);
        REQUIRE_MESSAGE(rerun.ok(), rerun.error());
        CHECK(max_abs_diff(*rerun, full->final) < kTol);
        CHECK(max_abs_diff(*rerun, base->final) > 1e-3f);
        // Layers before the first ablated one are the same in both traces.
        const int first = a.heads.front().layer;
        for (int l = 0; l <= first; ++l)
          for (int h = 0; h < 4; ++h) CHECK(full->head(l, h).weights_kept == base->head(l, h).weights_kept);
        // Back from the ablated trace: nothing off is the base, the same set is its own final.
        auto back = trace_final_ablated(m, *full, Ablation{});
        REQUIRE_MESSAGE(back.ok(), back.error());
        CHECK(max_abs_diff(*back, base->final) < kTol);
        auto same = trace_final_ablated(m, *full, a);
        REQUIRE_MESSAGE(same.ok(), same.error());
        CHECK(*same == full->final);
      }
    }
    auto nothing = trace_final_ablated(m, *base, Ablation{});
    REQUIRE(nothing.ok());
    CHECK(*nothing == base->final);
    auto bad = trace_final_ablated(m, *base, Ablation{{{3, 0}}});
    REQUIRE_FALSE(bad.ok());
    CHECK(has(bad.error(), "layers 0 to 2"));
  }
}

TEST_CASE("ablation: trace_final_ablated refuses cross-attention traces") {
  const Model m = test::sized_model({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 32}, 51);
  TraceInput in;
  in.text = "a b c";
  in.source_text = "d e f g";
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  auto r = trace_final_ablated(m, *t, Ablation{heads_of("0:1")});
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error(), "cross-attention"));
}
