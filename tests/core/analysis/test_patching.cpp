// Activation patching and direct logit attribution (analysis/patching.h, logit_attribution.h) on the
// shipped coreference demo and the GPT-2 fixture: the figures the README quotes, the exact 0 and 1
// that patching must give where a text does not differ, the refusals, and the attribution's parts
// adding up to the model's own logits. Agreement with PyTorch: tests/reference/test_patching_vs_torch.cpp.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <string>

#include "analysis/answer.h"
#include "analysis/flow_graph.h"
#include "analysis/logit_attribution.h"
#include "analysis/logit_lens.h"
#include "analysis/patching.h"
#include "analysis/qk_projection.h"
#include "io/model_open.h"
#include "support/check_util.h"
#include "support/coref_sentences.h"
#include "support/fixture_util.h"
#include "support/model_util.h"

using namespace attnviz;
using namespace attnviz::test;

namespace {

Model open_model(const std::string& path) {
  auto m = model_open(path);
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

Trace traced(const Model& m, const std::string& text, bool causal = false) {
  TraceInput in;
  in.text = text;
  in.mask.causal = causal;
  auto t = trace_run(m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

PatchResult patched(const Model& m, const std::string& clean, const std::string& corrupt, PatchBy by,
                    bool causal = false, PatchTokens tokens = {}) {
  auto r = patch_run(m, traced(m, clean, causal), clean, traced(m, corrupt, causal), corrupt, by, tokens);
  REQUIRE_MESSAGE(r.ok(), r.error());
  return std::move(*r);
}

PatchFailure failed(const Model& m, const std::string& clean, const std::string& corrupt, bool causal = false,
                    PatchTokens tokens = {}) {
  auto r = patch_run(m, traced(m, clean, causal), clean, traced(m, corrupt, causal), corrupt, PatchBy::head, tokens);
  REQUIRE_FALSE(r.ok());
  return r.failure();
}

const std::string kCat = "the cat sat on the", kHat = "the hat sat on the";  // 8 GPT-2 tokens each

}  // namespace

TEST_CASE("patch: the coreference demo's minimal pair by head — layer 1 head 3 carries tired into it") {
  const Model m = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  const PatchResult r = patched(m, kTired, kWide, PatchBy::head);
  CHECK(r.metric == PatchMetric::log_prob_diff);
  CHECK(r.clean_referent == 1);
  CHECK(r.clean_referent_text == "animal");
  CHECK(r.corrupt_referent == 5);
  CHECK(r.corrupt_referent_text == "street");
  CHECK(r.clean == doctest::Approx(8.0772).epsilon(1e-4));
  CHECK(r.corrupt == doctest::Approx(-7.6329).epsilon(1e-4));
  REQUIRE(r.effect.size() == 2);
  REQUIRE(r.effect[0].size() == 4);
  // Layer 0 head 2 (L1 H3 on screen) brings back 95% of the clean margin, and the answer with it.
  CHECK(r.effect[0][2] == doctest::Approx(0.950).epsilon(1e-2));
  CHECK(r.patched_answer[0][2] == "animal");
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      CAPTURE(l);
      CAPTURE(h);
      if (l != 0 || h != 2) CHECK(r.effect[static_cast<size_t>(l)][static_cast<size_t>(h)] < 0.35f);
      // The effect is the patched metric placed between corrupt (0) and clean (1).
      const float m_patched = r.patched[static_cast<size_t>(l)][static_cast<size_t>(h)];
      CHECK((m_patched - r.corrupt) / (r.clean - r.corrupt) ==
            doctest::Approx(r.effect[static_cast<size_t>(l)][static_cast<size_t>(h)]).epsilon(1e-5));
    }
  CHECK(r.patched_answer[0][0] == "street");
}

TEST_CASE("patch: by position, the first layer's input differs only at the word that differs: exactly 1 there, 0 elsewhere") {
  const Model m = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  const PatchResult r = patched(m, kTired, kWide, PatchBy::position);
  REQUIRE(r.effect.size() == 2);
  REQUIRE(r.effect[0].size() == 12);
  for (int t = 0; t < 12; ++t) {
    CAPTURE(t);
    CHECK(r.effect[0][static_cast<size_t>(t)] == (t == 10 ? 1.0f : 0.0f));
  }
  // Entering layer 2, what decides the answer has moved into "it" (#7): ROME's picture.
  CHECK(r.effect[1][7] > 0.9f);
  CHECK(r.effect[1][10] < 0.1f);
  CHECK(r.patched_answer[1][7] == "animal");
  CHECK(r.patched_answer[1][3] == "street");
}

TEST_CASE("patch: the GPT-2 fixture by head and by position, with the answer and wrong tokens defaulted or given") {
  const Model m = open_model(fixture_path("hf/gpt2_tiny"));
  const Trace clean = traced(m, kCat), corrupt = traced(m, kHat);
  REQUIRE(clean.n_queries() == 8);
  REQUIRE(corrupt.n_queries() == 8);
  auto clean_answer = model_answer(m, clean, kCat, 1);
  auto corrupt_answer = model_answer(m, corrupt, kHat, 1);
  REQUIRE(clean_answer.ok());
  REQUIRE(corrupt_answer.ok());
  const PatchResult r = patched(m, kCat, kHat, PatchBy::position);
  CHECK(r.metric == PatchMetric::logit_diff);
  CHECK(r.answer_id == clean_answer->predictions.front().top.front().id);
  CHECK(r.wrong_id == corrupt_answer->predictions.front().top.front().id);
  CHECK(r.answer_text == clean_answer->predictions.front().top.front().text);
  // Positions where the two texts' tokens are the same change nothing at the first layer.
  for (int t = 0; t < 8; ++t) {
    CAPTURE(t);
    if (clean.queries[static_cast<size_t>(t)].id == corrupt.queries[static_cast<size_t>(t)].id)
      CHECK(r.effect[0][static_cast<size_t>(t)] == 0.0f);
    else
      CHECK(r.effect[0][static_cast<size_t>(t)] != 0.0f);
  }
  // Under the causal mask nothing after the last position exists: patching the last row entering the
  // last layer moves only what that layer reads from itself.
  CHECK(std::isfinite(r.effect[1][7]));
  // The metric with tokens given: answer and wrong swapped flips its sign.
  const PatchResult swapped = patched(m, kCat, kHat, PatchBy::head, false, PatchTokens{r.wrong_id, r.answer_id});
  CHECK(swapped.clean == doctest::Approx(-r.clean).epsilon(1e-5));
  CHECK(swapped.corrupt == doctest::Approx(-r.corrupt).epsilon(1e-5));
  const PatchResult by_head = patched(m, kCat, kHat, PatchBy::head);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h)
      CHECK(swapped.effect[static_cast<size_t>(l)][static_cast<size_t>(h)] ==
            doctest::Approx(by_head.effect[static_cast<size_t>(l)][static_cast<size_t>(h)]).epsilon(1e-4));
}

TEST_CASE("patch: refusals say why — lengths, the same answer, a model that does not answer, a bad token, a cancel") {
  const Model coref = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  const PatchFailure lengths = failed(coref, kTired, "The animal didn't cross the street because it was tired.");
  CHECK(lengths.kind == PatchFailureKind::different_lengths);
  CHECK(patch_failure_english(lengths) ==
        "the clean text has 12 tokens and the corrupt text 11: patching needs texts of the same number of tokens");
  const PatchFailure same = failed(coref, kTired, "The animal didn't cross the street because it was too old.");
  CHECK(same.kind == PatchFailureKind::same_answer);
  CHECK(patch_failure_english(same) == "both texts give the same answer ('animal'): there is nothing to patch");
  const PatchFailure no_it = failed(coref, "The animal didn't cross the street because he was too tired.",
                                    "The animal didn't cross the street because he was too wide.");
  CHECK(no_it.kind == PatchFailureKind::no_answer);
  CHECK(no_it.no_answer.reason == NoAnswerReason::no_pronoun);

  const Model gather = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_gather");
  const std::string law = "The law will never be perfect, but its application should be just.";
  CHECK(failed(gather, law, law).kind == PatchFailureKind::unsupported);

  const Model sandbox = test::sized_model({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 0}, 3);
  CHECK(failed(sandbox, "a b c", "a b d", true).no_answer.reason == NoAnswerReason::no_output_head);

  const Model gpt2 = open_model(fixture_path("hf/gpt2_tiny"));
  const PatchFailure bad = failed(gpt2, kCat, kHat, false, PatchTokens{557, std::nullopt});
  CHECK(bad.kind == PatchFailureKind::bad_token);
  CHECK(patch_failure_english(bad) == "token id 557 is outside the model's vocabulary");

  std::atomic<bool> cancel{true};
  auto stopped = patch_run(coref, traced(coref, kTired), kTired, traced(coref, kWide), kWide, PatchBy::head, {}, &cancel);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.failure().kind == PatchFailureKind::cancelled);
}

TEST_CASE("patch: a run traced with heads switched off is refused (its heads' outputs are not the model's)") {
  const Model m = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  TraceInput in;
  in.text = kTired;
  in.ablation.heads = {{0, 2}};
  auto off = trace_run(m, in);
  REQUIRE(off.ok());
  auto r = patch_run(m, *off, kTired, traced(m, kWide), kWide, PatchBy::head);
  REQUIRE_FALSE(r.ok());
  CHECK(r.failure().kind == PatchFailureKind::ablated);
  CHECK(has(r.error(), "switch them on"));
}

TEST_CASE("patch: a token is given as its text with its leading space, and a text of several tokens names them") {
  const Model gpt2 = open_model(fixture_path("hf/gpt2_tiny"));
  auto on = token_id_parse(gpt2, " on");
  REQUIRE_MESSAGE(on.ok(), on.error());
  CHECK(*on == 345);
  auto two = token_id_parse(gpt2, " the street");
  REQUIRE_FALSE(two.ok());
  CHECK(has(two.error(), "' the street' is "));
  CHECK(has(two.error(), "'·the'"));
  auto none = token_id_parse(gpt2, "");
  REQUIRE_FALSE(none.ok());
  CHECK(has(none.error(), "is 0 tokens, not one"));
  const Model coref = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  auto animal = token_id_parse(coref, "animal");
  REQUIRE(animal.ok());
  CHECK(coref.vocab[static_cast<size_t>(*animal)] == "animal");
  CHECK_FALSE(token_id_parse(coref, "zebra").ok());
}

TEST_CASE("logit attribution: the parts add up to the model's own logit difference, and to its logits") {
  const Model m = open_model(fixture_path("hf/gpt2_tiny"));
  const Trace t = traced(m, kCat);
  auto a = logit_attribution(m, t);
  REQUIRE_MESSAGE(a.ok(), a.error());
  CHECK(a->position == 7);
  auto answer = model_answer(m, t, kCat, 2);
  REQUIRE(answer.ok());
  CHECK(a->answer_id == answer->predictions.front().top[0].id);
  CHECK(a->wrong_id == answer->predictions.front().top[1].id);
  CHECK(a->total == doctest::Approx(a->logit_diff).epsilon(1e-5).scale(1));
  CHECK(std::fabs(a->total - a->logit_diff) < 1e-4f);
  REQUIRE(a->heads.size() == 2);
  REQUIRE(a->mlps.size() == 2);
  double sum = a->embeddings + a->biases;
  for (const auto& row : a->heads)
    for (float v : row) sum += v;
  for (float v : a->mlps) sum += v;
  CHECK(std::fabs(sum - a->total) < 1e-4);

  // Given tokens: the difference is antisymmetric.
  auto swapped = logit_attribution(m, t, a->wrong_id, a->answer_id);
  REQUIRE(swapped.ok());
  CHECK(swapped->heads[1][2] == doctest::Approx(-a->heads[1][2]).epsilon(1e-4));

  // The parts as vectors: they sum to the residual, and their logits through the linearised norm plus
  // the norm's bias give the model's logits over the whole vocabulary.
  auto parts = residual_parts(m, t, 7);
  REQUIRE(parts.ok());
  RowVec sum_parts = parts->embeddings + parts->biases;
  RowVec logits = RowVec::Zero(557);
  const auto add = [&](const RowVec& v) {
    auto l = residual_write_logits(m, v, parts->residual);
    REQUIRE(l.ok());
    logits += *l;
  };
  add(parts->embeddings);
  add(parts->biases);
  for (const auto& layer : parts->heads)
    for (const RowVec& v : layer) {
      sum_parts += v;
      add(v);
    }
  for (const RowVec& v : parts->mlps) {
    sum_parts += v;
    add(v);
  }
  CHECK(max_abs_diff(Mat(sum_parts), Mat(parts->residual)) < 1e-5f);
  logits += m.weights.final_norm_b.transpose() * m.weights.tok_embed.transpose();
  auto own = output_logits(m, t.final.row(7));
  REQUIRE(own.ok());
  CHECK(max_abs_diff(Mat(logits), Mat(*own)) < 1e-4f);
}

TEST_CASE("logit attribution: refused where the residual is no sum of writes, or there is no next token") {
  ModelConfig post = test::sized_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 0});
  post.norm = NormPlacement::post;
  const Model sandbox = model_init_random(post, 5);
  auto parts = residual_parts(sandbox, traced(sandbox, "a b c"), 0);
  REQUIRE_FALSE(parts.ok());
  CHECK(has(parts.error(), "post-norm"));
  const Model coref = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  auto not_causal = logit_attribution(coref, traced(coref, kTired));
  REQUIRE_FALSE(not_causal.ok());
  CHECK(has(not_causal.error(), "under the causal mask"));
  const Model bert = open_model(fixture_path("hf/bert_mlm"));
  auto mlm = logit_attribution(bert, traced(bert, "the cat sat on the [MASK] ."));
  REQUIRE_FALSE(mlm.ok());
  CHECK(has(mlm.error(), "masked-LM head"));
  const Model gpt2 = open_model(fixture_path("hf/gpt2_tiny"));
  CHECK(has(logit_attribution(gpt2, traced(gpt2, kCat), 9999).error(), "token id 9999 is outside"));
}

TEST_CASE("logit lens: a row for the embeddings and after each layer, the last the model's own prediction") {
  const Model m = open_model(fixture_path("hf/gpt2_tiny"));
  const Trace t = traced(m, kCat);
  auto rows = logit_lens_at(m, t, 7, 5);
  REQUIRE_MESSAGE(rows.ok(), rows.error());
  REQUIRE(rows->size() == 3);
  CHECK(rows->front().after_layer == -1);
  CHECK(rows->back().after_layer == 1);
  auto answer = model_answer(m, t, kCat, 5);
  REQUIRE(answer.ok());
  const auto& own = answer->predictions.front().top;
  for (size_t i = 0; i < 5; ++i) {
    CHECK(rows->back().top[i].id == own[i].id);
    CHECK(rows->back().top[i].p == doctest::Approx(own[i].p).epsilon(1e-6));
  }
  // After layer 0 the residual is the embeddings plus layer 0's writes: read through ln_f by hand.
  const Mat normed = trace_final_of(m, Mat(t.layers[0].out.row(7)));
  auto logits = output_logits(m, normed.row(0));
  REQUIRE(logits.ok());
  Eigen::Index best = 0;
  logits->maxCoeff(&best);
  CHECK((*rows)[1].top[0].id == best);
  CHECK_FALSE(logit_lens_at(m, t, 8).ok());
  const Model coref = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  auto words = logit_lens_at(coref, traced(coref, kTired), 7, 3);  // a word model's output layer reads too
  REQUIRE(words.ok());
  CHECK(words->size() == 3);
}

TEST_CASE("head write: the tokens a head's write promotes and suppresses, as its share of the logits") {
  const Model m = open_model(fixture_path("hf/gpt2_tiny"));
  const Trace t = traced(m, kCat);
  auto w = head_write_tokens(m, t, 1, 2, 7, 5);
  REQUIRE_MESSAGE(w.ok(), w.error());
  REQUIRE(w->promoted.size() == 5);
  REQUIRE(w->suppressed.size() == 5);
  CHECK(w->promoted[0].logit >= w->promoted[4].logit);
  CHECK(w->suppressed[0].logit <= w->suppressed[4].logit);
  CHECK(w->promoted[4].logit > w->suppressed[4].logit);
  // The difference of two tokens' shares is the head's cell of the direct logit attribution.
  auto a = logit_attribution(m, t, w->promoted[0].id, w->suppressed[0].id);
  REQUIRE(a.ok());
  CHECK(a->heads[1][2] == doctest::Approx(w->promoted[0].logit - w->suppressed[0].logit).epsilon(1e-4));
  CHECK_FALSE(head_write_tokens(m, t, 2, 0, 7).ok());
}

TEST_CASE("query/key projection: the weight-preserving moves, the principal axes, the refusals") {
  const Model m = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  const Trace t = traced(m, kTired);
  const HeadTrace& h = t.head(1, 0);
  auto p = qk_projection(h);
  REQUIRE_MESSAGE(p.ok(), p.error());
  REQUIRE(p->queries.rows() == 12);
  REQUIRE(p->keys.rows() == 12);
  CHECK(p->explained[0] >= p->explained[1]);
  CHECK(p->explained[0] + p->explained[1] <= 1.0f + 1e-6f);
  CHECK(p->explained[1] > 0.0f);
  // Both sets together are centred on the two axes.
  const float mean0 = (p->queries.col(0).sum() + p->keys.col(0).sum()) / 24.0f;
  CHECK(std::fabs(mean0) < 1e-4f);
  // The moves keep every row's softmax: recompute the weights from the moved vectors in full dimension.
  Eigen::MatrixXd q = h.q.cast<double>() * p->key_scale, k = h.k.cast<double>();
  k.rowwise() += h.q.cast<double>().colwise().mean() - k.colwise().mean();
  k /= p->key_scale;
  Eigen::MatrixXd s = q * k.transpose() / std::sqrt(8.0);
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    Eigen::RowVectorXd row = (s.row(i).array() - s.row(i).maxCoeff()).exp();
    row /= row.sum();
    for (Eigen::Index j = 0; j < row.size(); ++j) CHECK(row(j) == doctest::Approx(h.weights_kept(i, j)).epsilon(1e-4));
  }
  // The same head twice: the same picture (the axes' signs are fixed).
  auto again = qk_projection(h);
  REQUIRE(again.ok());
  CHECK(again->queries == p->queries);
  HeadTrace additive = h;
  additive.score = ScoreKind::additive;
  CHECK(has(qk_projection(additive).error(), "additive"));
  HeadTrace empty;
  CHECK(has(qk_projection(empty).error(), "no query and key vectors"));
}

TEST_CASE("flow graph: from the answer backwards, shares of what each layer moves, every edge into a reached node") {
  const Model m = open_model(std::string(ATTNVIZ_ASSETS) + "/demo_coref");
  const Trace t = traced(m, kTired);
  auto g = flow_graph(m, t, 7, 0.1f);
  REQUIRE_MESSAGE(g.ok(), g.error());
  REQUIRE(g->reached.size() == 3);
  CHECK(g->reached[2][7]);
  int into_it_last = 0;
  for (const FlowEdge& e : g->edges) {
    CAPTURE(e.layer);
    CAPTURE(e.from);
    CAPTURE(e.to);
    CHECK(e.share >= 0.1f);
    CHECK(e.share <= 1.0f);
    CHECK(g->reached[static_cast<size_t>(e.layer + 1)][static_cast<size_t>(e.to)]);
    CHECK(g->reached[static_cast<size_t>(e.layer)][static_cast<size_t>(e.from)]);
    if (e.layer == 1 && e.to == 7) ++into_it_last;
  }
  CHECK(into_it_last > 0);
  // The shares into one node, over every head and key (threshold at its smallest), sum to 1.
  auto all = flow_graph(m, t, 7, 1e-9f);
  REQUIRE(all.ok());
  double sum = 0;
  for (const FlowEdge& e : all->edges)
    if (e.layer == 1 && e.to == 7) sum += e.share;
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-4));
  // Layer 1 head 3 (layer 0 head 2) moves "tired" (#10) into "it": an edge in the graph.
  bool tired = false;
  for (const FlowEdge& e : g->edges) tired = tired || (e.layer == 0 && e.head == 2 && e.from == 10 && e.to == 7);
  CHECK(tired);
  CHECK_FALSE(flow_graph(m, t, 12, 0.1f).ok());
  CHECK_FALSE(flow_graph(m, t, 7, 0.0f).ok());
  // Attribution reads a language model's logits: the coreference demo (post-norm pointer) has none to split.
  CHECK_FALSE(flow_graph(m, t, 7, 0.1f, FlowWeight::attribution).ok());
}

TEST_CASE("flow graph by attribution: edges into the answer's position split each head's direct attribution over its keys") {
  const Model m = open_model(fixture_path("hf/gpt2_tiny"));
  const Trace t = traced(m, "the cat sat on the", true);
  const int target = t.n_queries() - 1;
  auto all = flow_graph(m, t, target, 1e-9f, FlowWeight::attribution);
  REQUIRE_MESSAGE(all.ok(), all.error());
  auto a = logit_attribution(m, t);
  REQUIRE(a.ok());
  CHECK(all->answer_id == a->answer_id);
  CHECK(all->wrong_id == a->wrong_id);
  // Into the target: signed shares whose |sum| is 1 per layer, and which, scaled back by the layer's
  // Σ|·|, add up head by head to the attribution grid (checked against PyTorch in the reference tests).
  const int L = static_cast<int>(t.layers.size()), NH = t.config.n_heads;
  auto split = head_source_attribution(m, t, *a);
  REQUIRE(split.ok());
  for (int l = 0; l < L; ++l) {
    double abs_sum = 0, layer_total = 0;
    std::vector<double> by_head(static_cast<size_t>(NH), 0.0);
    for (const FlowEdge& e : all->edges)
      if (e.layer == l && e.to == target) {
        CHECK(e.weight == FlowWeight::attribution);
        abs_sum += std::abs(e.share);
        by_head[static_cast<size_t>(e.head)] += e.share;
      }
    CHECK(abs_sum == doctest::Approx(1.0).epsilon(1e-4));
    for (const RowVec& keys : (*split)[static_cast<size_t>(l)]) layer_total += keys.cwiseAbs().sum();
    for (int h = 0; h < NH; ++h)
      CHECK(by_head[static_cast<size_t>(h)] * layer_total ==
            doctest::Approx(a->heads[static_cast<size_t>(l)][static_cast<size_t>(h)]).epsilon(1e-3).scale(1e-4));
  }
  // Earlier hops (into other tokens) keep the value-norm shares, positive.
  bool earlier = false;
  for (const FlowEdge& e : all->edges)
    if (e.to != target) {
      earlier = true;
      CHECK(e.weight == FlowWeight::value_norm);
      CHECK(e.share > 0);
    }
  CHECK(earlier);
  // A threshold keeps the edges by their size, either sign.
  auto some = flow_graph(m, t, target, 0.1f, FlowWeight::attribution);
  REQUIRE(some.ok());
  for (const FlowEdge& e : some->edges) CHECK(std::abs(e.share) >= 0.1f);
  CHECK(name_of(FlowWeight::attribution) == "attribution");
}
