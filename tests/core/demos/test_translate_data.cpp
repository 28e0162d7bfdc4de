// The translation demo's data (core/demos/translate_data.h): vocabularies that hold every token,
// ids that round-trip, and a held-out set drawn apart from training, none of it a training sentence.
#include <doctest/doctest.h>

#include <set>

#include "demos/translate_data.h"

namespace attnviz {
namespace {

TEST_CASE("translate data: the vocabularies, specials first, every token found") {
  const auto src = translate_source_vocabulary(), tgt = translate_target_vocabulary();
  CHECK(src[0] == "[PAD]");
  CHECK(src[1] == "[UNK]");
  CHECK(tgt[kTranslatePad] == "[PAD]");
  CHECK(tgt[kTranslateBos] == "[BOS]");
  CHECK(tgt[kTranslateEos] == "[EOS]");
  // 14 + 10 + 10 + 8 + 5 words, "the", "and", ".", and the prepositions "in", "at".
  CHECK(src.size() == 2 + 47 + 5);
  // 47 Korean words less the second 집, 7 particles and marks.
  CHECK(tgt.size() == 3 + 46 + 7);
  CHECK(std::set<std::string>(tgt.begin(), tgt.end()).size() == tgt.size());
  const TranslateExample ex = translate_example(*translate_parse("the big cat chased the small dog in the park ."), src, tgt);
  REQUIRE(ex.source_ids.size() == 11);
  REQUIRE(ex.target_ids.size() == 10);
  for (size_t i = 0; i < ex.source_ids.size(); ++i) CHECK(src[static_cast<size_t>(ex.source_ids[i])] == ex.pair.source[i]);
  for (size_t i = 0; i < ex.target_ids.size(); ++i) CHECK(tgt[static_cast<size_t>(ex.target_ids[i])] == ex.pair.target[i]);
}

TEST_CASE("translate data: the split, thirds by length, held-out apart and never a training sentence") {
  const TranslateSplit a = translate_generate(1, 3000, 100), b = translate_generate(1, 3000, 100);
  REQUIRE(a.train.size() == 3000);
  REQUIRE(a.heldout.size() == 300);
  int by_length[4] = {};
  for (const TranslatePair& p : a.train) ++by_length[p.clauses.size()];
  CHECK(by_length[1] == 1000);
  CHECK(by_length[2] == 1000);
  CHECK(by_length[3] == 1000);
  std::set<std::string> trained;
  for (const TranslatePair& p : a.train) trained.insert(p.source_text());
  CHECK(trained.size() == 3000);  // no repeats
  for (size_t i = 0; i < a.heldout.size(); ++i) {
    CHECK(a.heldout[i].clauses.size() == i / 100 + 1);
    CHECK(trained.count(a.heldout[i].source_text()) == 0);
  }
  // The same seed, the same data; another seed, other data.
  CHECK(a.train[17].source_text() == b.train[17].source_text());
  CHECK(a.heldout[250].source_text() == b.heldout[250].source_text());
  CHECK(translate_generate(2, 3000, 100).train[17].source_text() != a.train[17].source_text());
}

}  // namespace
}  // namespace attnviz
