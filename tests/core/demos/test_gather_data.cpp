// The gather demo's sentences: seed 003's frame, four slot words found in typed text, 16 answers,
// 2,592 sentences split by word-position pattern so a held-out sentence's positions are never trained.
#include <set>

#include <doctest/doctest.h>

#include "demos/gather_data.h"

using namespace attnviz;

TEST_CASE("gather data: seed 003's sentence has its four words and answer") {
  const GatherExample e = gather_make("The law will never be perfect, but its application should be just");
  REQUIRE(e.tokens.size() == 13);
  CHECK(e.query == 8);
  CHECK(e.slot_token == std::array<int, kGatherSlots>{1, 5, 9, 12});
  CHECK(e.slot_choice == std::array<int, kGatherSlots>{0, 0, 0, 0});
  CHECK(e.answer == 0);
  CHECK(gather_answer_text(e.answer) == "law/perfect/application/just");
}

TEST_CASE("gather data: answers count the four choices, owner first") {
  const GatherExample e = gather_make("the old RULE will never be quite simple, but its meaning should be truly just.");
  CHECK(e.slot_choice == std::array<int, kGatherSlots>{1, 1, 1, 0});
  CHECK(e.answer == 8 + 4 + 2);
  CHECK(gather_answer_text(14) == "rule/simple/meaning/just");
  CHECK(gather_answer_choices(14) == std::array<int, kGatherSlots>{1, 1, 1, 0});
  CHECK(gather_answer_text(16) == "?");
  CHECK(gather_answer_text(-1) == "?");
}

TEST_CASE("gather data: text without its or a slot word has no answer") {
  CHECK(gather_make("The law will never be perfect").query == -1);
  const GatherExample e = gather_make("its application should be just");  // no owner before "its"
  CHECK(e.query == 0);
  CHECK(e.slot_token[0] == -1);
  CHECK(e.answer == -1);
  // The owner must come before "its": a "law" after it is not the owner.
  CHECK(gather_make("but its law should be just").slot_token[0] == -1);
  CHECK(gather_make("").tokens.empty());
}

TEST_CASE("gather data: the vocabulary holds every word and the 16 answers in order") {
  const std::vector<std::string> v = gather_vocabulary();
  CHECK(v[0] == "[PAD]");
  CHECK(v[1] == "[UNK]");
  for (int a = 0; a < kGatherAnswers; ++a) CHECK(gather_answer_id(v, a) == static_cast<int>(v.size()) - kGatherAnswers + a);
  const std::set<std::string> words(v.begin(), v.end());
  CHECK(words.size() == v.size());
  for (const GatherExample& e : gather_all())
    for (const Token& t : e.tokens) {
      std::string w = t.text;
      if (w == "The") w = "the";
      CHECK_MESSAGE(words.count(w) == 1, w);
    }
}

TEST_CASE("gather data: 2,592 sentences, every one with an answer, positions moved by optional words") {
  const std::vector<GatherExample> all = gather_all();
  CHECK(all.size() == 2592);
  std::set<int> queries, owned;
  std::vector<int> per_answer(kGatherAnswers, 0);
  for (const GatherExample& e : all) {
    REQUIRE(e.answer >= 0);
    ++per_answer[static_cast<size_t>(e.answer)];
    queries.insert(e.query);
    owned.insert(e.slot_token[2]);
    CHECK(e.tokens.size() <= 18);
  }
  for (int n : per_answer) CHECK(n == 162);
  CHECK(queries == std::set<int>{8, 9, 10});
  CHECK(owned == std::set<int>{9, 10, 11, 12});
}

TEST_CASE("gather data: the split holds out whole patterns, differs by seed and repeats for a seed") {
  const GatherSplit a = gather_generate(7), b = gather_generate(7), c = gather_generate(8);
  CHECK(a.heldout.size() == 32 * 16);
  CHECK(a.train.size() == 130 * 16);
  CHECK(a.train[0].text == b.train[0].text);
  CHECK(a.heldout.back().text == b.heldout.back().text);
  // A pattern is the sentence with the slot words replaced: none held out is ever trained.
  auto pattern = [](const GatherExample& e) {
    std::string p;
    for (size_t i = 0; i < e.tokens.size(); ++i) {
      bool slot = false;
      for (int k : e.slot_token) slot = slot || static_cast<size_t>(k) == i;
      p += slot ? std::string("_") : e.tokens[i].text;
      p += ' ';
    }
    return p;
  };
  std::set<std::string> trained;
  for (const GatherExample& e : a.train) trained.insert(pattern(e));
  for (const GatherExample& e : a.heldout) CHECK_MESSAGE(trained.count(pattern(e)) == 0, e.text);
  std::set<std::string> held_a, held_c;
  for (const GatherExample& e : a.heldout) held_a.insert(e.text);
  for (const GatherExample& e : c.heldout) held_c.insert(e.text);
  CHECK(held_a != held_c);
  CHECK(gather_generate(7, 0).heldout.empty());
  CHECK(gather_generate(7, 2.0).train.empty());
}
