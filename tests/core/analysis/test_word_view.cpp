// Word-level views on the GPT-2, BERT and Llama fixtures: pieces join their word (columns summed,
// rows averaged), special tokens can be hidden with every row renormalised, and the result is a
// trace every exporter reads.
#include <doctest/doctest.h>

#include "analysis/word_view.h"
#include "io/model_open.h"
#include "support/fixture_util.h"

namespace attnviz {
namespace {

using namespace test;

Trace trace_of(const std::string& folder, const std::string& text, const std::string& text_b = "") {
  auto m = model_open(fixture_path(folder));
  REQUIRE_MESSAGE(m.ok(), m.error());
  TraceInput in;
  in.text = text;
  in.text_b = text_b;
  auto t = trace_run(*m, in);
  REQUIRE_MESSAGE(t.ok(), t.error());
  return std::move(*t);
}

// Every word's row against the pieces it came from: columns summed, rows averaged.
void check_against_pieces(const Trace& t, const WordViewOptions& o) {
  auto w = trace_word_view(t, o);
  REQUIRE_MESSAGE(w.ok(), w.error());
  const WordGroups rows = word_groups(t.queries, o), cols = word_groups(t.keys, o);
  REQUIRE(w->n_queries() == static_cast<int>(rows.groups.size()));
  for (size_t l = 0; l < t.layers.size(); ++l)
    for (int h = 0; h < t.config.n_heads; ++h) {
      const Mat& pieces = t.head(static_cast<int>(l), h).weights_kept;
      const Mat& words = w->head(static_cast<int>(l), h).weights_kept;
      for (int r = 0; r < words.rows(); ++r) {
        if (o.hide_special) CHECK(words.row(r).sum() == doctest::Approx(1.0).epsilon(1e-5));
        for (int c = 0; c < words.cols(); ++c) {
          double want = 0;
          int n = 0;
          for (int i = 0; i < pieces.rows(); ++i) {
            if (rows.group_of[static_cast<size_t>(i)] != r) continue;
            double kept = 0, cell = 0;
            for (int j = 0; j < pieces.cols(); ++j) {
              if (cols.group_of[static_cast<size_t>(j)] < 0) continue;
              kept += pieces(i, j);
              if (cols.group_of[static_cast<size_t>(j)] == c) cell += pieces(i, j);
            }
            want += o.hide_special && kept > 0 ? cell / kept : cell;
            ++n;
          }
          CHECK(words(r, c) == doctest::Approx(want / n).epsilon(1e-5));
        }
      }
    }
}

TEST_CASE("word view: BERT's pair without [CLS]/[SEP], rows renormalised") {
  const Trace t = trace_of("hf/bert_tiny", "The animal didn't cross the street.", "It was too tired.");
  const WordViewOptions o{.merge_pieces = true, .hide_special = true};
  check_against_pieces(t, o);
  auto w = trace_word_view(t, o);
  REQUIRE(w.ok());
  for (const TraceToken& q : w->queries) CHECK(q.kind != TokenKind::special);
  CHECK(w->n_queries() == t.n_queries() - 3);  // [CLS] and two [SEP]
  CHECK(w->layers[0].attn.heads[0].q.size() == 0);  // weights only
}

TEST_CASE("word view: GPT-2's pieces join their words, columns sum, rows average") {
  const Trace t = trace_of("hf/gpt2_tiny", "Attention heads attend unbelievably.");
  const WordViewOptions o{.merge_pieces = true};
  int continued = 0;
  for (const TraceToken& q : t.queries) continued += q.continues;
  REQUIRE(continued > 0);  // the tiny vocabulary splits these words
  check_against_pieces(t, o);
  auto w = trace_word_view(t, o);
  REQUIRE(w.ok());
  CHECK(w->n_queries() == t.n_queries() - continued);
  // Causal stays causal in words: a word never sees a later word.
  const Mat& m = w->head(1, 2).weights_kept;
  for (int r = 0; r < m.rows(); ++r)
    for (int c = r + 1; c < m.cols(); ++c) CHECK(m(r, c) == 0.0f);
}

TEST_CASE("word view: Llama's BOS hidden, and a sentence of special tokens only is an error") {
  const Trace t = trace_of("families/llama3_tokenized", "The animal didn't cross the street.");
  check_against_pieces(t, {.merge_pieces = true, .hide_special = true});
  check_against_pieces(t, {.hide_special = true});
  auto w = trace_word_view(t, {.hide_special = true});
  REQUIRE(w.ok());
  CHECK(w->queries.front().text == "The");
  const Trace only = trace_of("families/llama3_tokenized", "");
  CHECK(trace_word_view(only, {.hide_special = true}).error() ==
        "every token is a special token: nothing is left to show");
}

}  // namespace
}  // namespace attnviz
