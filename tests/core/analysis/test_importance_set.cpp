// Importance over a set of sentences (analysis/importance_set.h) on the shipped coreference demo:
// the file's rules, the mean and spread as the single grids give them, the count of answers a
// head's absence changes, the sentences a head matters for, and a sentence without an answer
// refused by its line number.
#include <doctest/doctest.h>

#include <cmath>

#include "analysis/importance_set.h"
#include "io/model_file.h"
#include "support/coref_sentences.h"

using namespace attnviz;

namespace {

Model coref_demo() {
  auto m = model_load(std::string(ATTNVIZ_ASSETS) + "/demo_coref/model.safetensors", std::nullopt);
  REQUIRE_MESSAGE(m.ok(), m.error());
  return std::move(*m);
}

}  // namespace

TEST_CASE("importance set: one sentence a line, comments, blank lines, CR and other columns skipped") {
  auto s = sentence_set_parse("# minimal pairs\n\nThe cat sat.\tnote\r\n   \n# more\nIt rained.\r\nlast line without newline");
  REQUIRE(s.ok());
  REQUIRE(s->size() == 3);
  CHECK((*s)[0].line == 3);
  CHECK((*s)[0].text == "The cat sat.");
  CHECK((*s)[1].line == 6);
  CHECK((*s)[1].text == "It rained.");
  CHECK((*s)[2].line == 7);
  CHECK((*s)[2].text == "last line without newline");
  CHECK_FALSE(sentence_set_parse("# only comments\n\n").ok());
  CHECK(sentence_set_parse("").error().find("no sentence") != std::string::npos);
}

TEST_CASE("importance set: the mean and spread of the single grids, and the answers each head changes") {
  const Model m = coref_demo();
  const std::vector<SetSentence> set = {{1, test::kTired},
                                        {2, test::kWide},
                                        {3, "The horse didn't cross the bridge because it was too scared."},
                                        {4, "The girl didn't cross the road because it was too busy."}};
  auto g = importance_set(m, set);
  REQUIRE_MESSAGE(g.ok(), g.error());
  REQUIRE(g->per_sentence.size() == 4);
  const int L = m.config.n_layers, NH = m.config.n_heads;
  REQUIRE(static_cast<int>(g->mean.size()) == L);
  float best = -1e9f;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < NH; ++h) {
      CAPTURE(l);
      CAPTURE(h);
      // Each sentence's grid is importance_grid's on its own trace.
      double sum = 0, sq = 0;
      int changes = 0;
      for (size_t i = 0; i < set.size(); ++i) {
        TraceInput in;
        in.text = set[i].text;
        auto t = trace_run(m, in);
        REQUIRE(t.ok());
        if (l == 0 && h == 0) {
          auto one = importance_grid(m, *t, set[i].text);
          REQUIRE(one.ok());
          CHECK(one->drop == g->per_sentence[i].drop);
          CHECK(one->flips == g->per_sentence[i].flips);
        }
        sum += g->per_sentence[i].drop[static_cast<size_t>(l)][static_cast<size_t>(h)];
        changes += g->per_sentence[i].flips[static_cast<size_t>(l)][static_cast<size_t>(h)] ? 1 : 0;
      }
      const double mean = sum / 4;
      for (size_t i = 0; i < set.size(); ++i) {
        const double d = g->per_sentence[i].drop[static_cast<size_t>(l)][static_cast<size_t>(h)] - mean;
        sq += d * d;
      }
      CHECK(g->mean[static_cast<size_t>(l)][static_cast<size_t>(h)] == doctest::Approx(mean).epsilon(1e-6));
      CHECK(g->spread[static_cast<size_t>(l)][static_cast<size_t>(h)] == doctest::Approx(std::sqrt(sq / 4)).epsilon(1e-5));
      CHECK(g->answer_changes[static_cast<size_t>(l)][static_cast<size_t>(h)] == changes);
      best = std::max(best, g->mean[static_cast<size_t>(l)][static_cast<size_t>(h)]);
    }
  REQUIRE(g->best_layer >= 0);
  CHECK(g->mean[static_cast<size_t>(g->best_layer)][static_cast<size_t>(g->best_head)] == best);
  // The sentences the best head matters for, the largest drop first.
  const std::vector<int> for_best = importance_set_sentences_for(*g, g->best_layer, g->best_head, 0.0f);
  REQUIRE_FALSE(for_best.empty());
  for (size_t i = 1; i < for_best.size(); ++i)
    CHECK(g->per_sentence[static_cast<size_t>(for_best[i - 1])].drop[static_cast<size_t>(g->best_layer)][static_cast<size_t>(g->best_head)] >=
          g->per_sentence[static_cast<size_t>(for_best[i])].drop[static_cast<size_t>(g->best_layer)][static_cast<size_t>(g->best_head)]);
  CHECK(importance_set_sentences_for(*g, L, 0, 0.0f).empty());
}

TEST_CASE("importance set: a sentence without an answer is refused by its line") {
  const Model m = coref_demo();
  auto g = importance_set(m, {{2, test::kTired}, {5, "The animal didn't cross the street."}});
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().find("line 5: ") == 0);
  CHECK_FALSE(importance_set(m, {}).ok());
}
