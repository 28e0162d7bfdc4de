// The translation demo's grammar (core/demos/translate_grammar.h) against docs/TRANSLATION.md: the
// built-in lexicon as the shared file has it, the one right Korean for a sentence (word order,
// particles by the final consonant, 에서, 그리고), the gold alignment table, and the refusals.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "demos/translate_grammar.h"

namespace attnviz {
namespace {

TEST_CASE("translate grammar: the built-in lexicon is the shared file's, 51 lines, every kind") {
  const Lexicon& lex = translate_lexicon();
  CHECK(lex.of(LexKind::subject).size() == 14);
  CHECK(lex.of(LexKind::object).size() == 10);
  CHECK(lex.of(LexKind::verb).size() == 10);
  CHECK(lex.of(LexKind::adjective).size() == 8);
  CHECK(lex.of(LexKind::place).size() == 5);
  const LexEntry& student = lex.entries[static_cast<size_t>(lex.of(LexKind::subject)[2])];
  CHECK(student.english == "student");
  CHECK(student.korean == "학생");
  CHECK(student.batchim);
  const LexEntry& market = lex.entries.back();
  CHECK(market.english == "market");
  CHECK(market.english_phrase == "at the market");
  CHECK(market.korean == "시장");
}

TEST_CASE("translate grammar: TRANSLATION.md's example, token by token, with its alignment") {
  auto p = translate_parse("the big cat chased the small dog in the park .");
  REQUIRE(p);
  CHECK(p->target_text() == "큰 고양이 가 공원 에서 작은 개 를 쫓았다 .");
  CHECK(p->korean_text() == "큰 고양이가 공원에서 작은 개를 쫓았다.");
  CHECK(p->source_text() == "the big cat chased the small dog in the park .");
  // source: the0 big1 cat2 chased3 the4 small5 dog6 in7 the8 park9 .10
  const std::vector<int> gold = {1, 2, 2, 9, 7, 5, 6, 6, 3, 10};
  CHECK(p->gold == gold);
  const std::vector<TargetRole> roles = {TargetRole::content, TargetRole::content,  TargetRole::particle,
                                         TargetRole::content, TargetRole::particle, TargetRole::content,
                                         TargetRole::content, TargetRole::particle, TargetRole::content,
                                         TargetRole::period};
  CHECK(p->roles == roles);
}

TEST_CASE("translate grammar: particles follow the noun's final consonant; objects may be animals") {
  CHECK(translate_parse("the student saw the book .")->target_text() == "학생 이 책 을 보았다 .");
  CHECK(translate_parse("the cat saw the apple .")->target_text() == "고양이 가 사과 를 보았다 .");
  CHECK(translate_parse("the horse helped the bear .")->target_text() == "말 이 곰 을 도왔다 .");
  CHECK(translate_parse("the tiger chased the rabbit at home .")->target_text() == "호랑이 가 집 에서 토끼 를 쫓았다 .");
  CHECK(translate_parse("the boy bought the house at school .")->target_text() == "소년 이 학교 에서 집 을 샀다 .");
}

TEST_CASE("translate grammar: three clauses joined by and / 그리고, case and a joined period accepted") {
  auto p = translate_parse("The girl drew the yellow flower and the dog found the ball in the garden and the doctor called the friend.");
  REQUIRE(p);
  CHECK(p->target_text() == "소녀 가 노란 꽃 을 그렸다 그리고 개 가 정원 에서 공 을 찾았다 그리고 의사 가 친구 를 불렀다 .");
  CHECK(p->clauses.size() == 3);
  // Each 그리고 aligns to its "and"; "the" aligns to nothing.
  for (size_t i = 0; i < p->target.size(); ++i) {
    if (p->target[i] == "그리고") CHECK(p->source[static_cast<size_t>(p->gold[i])] == "and");
    CHECK(p->source[static_cast<size_t>(p->gold[i])] != "the");
  }
}

TEST_CASE("translate grammar: refusals name the unknown words, or where the grammar fails") {
  CHECK(translate_parse("the cat ate the fish quickly .").error() == "not in the translation demo's lexicon: 'ate' 'fish' 'quickly'");
  CHECK(translate_parse("").error().find("nothing to translate") == 0);
  CHECK(translate_parse("the book saw the cat .").error() == "word 2: expected a subject (a person or an animal), found 'book'");
  CHECK(translate_parse("the cat saw the dog").error() == "word 6: expected \"and\" or \".\", found the end");
  CHECK(translate_parse("the cat saw dog .").error() == "word 4: expected \"the\" before the object, found 'dog'");
  CHECK(translate_parse("the cat saw the dog in the school .").error().find("word 6: expected a place") == 0);
  CHECK(translate_parse("the cat saw the dog . the dog saw the cat .").error() == "word 7: nothing may follow the final \".\"");
  CHECK(translate_parse("the cat saw the dog and the dog saw the cat and the cat saw the dog and the dog saw the cat .").error() ==
        "at most 3 clauses are joined by \"and\"");
}

TEST_CASE("translate grammar: random clauses are valid, reparse to themselves, and cover the lexicon") {
  Rng rng(7);
  std::set<std::string> targets;
  std::set<int> verbs, places;
  for (int i = 0; i < 400; ++i) {
    std::vector<TranslateClause> clauses;
    const int n = 1 + rng.below(kTranslateMaxClauses);
    for (int c = 0; c < n; ++c) clauses.push_back(translate_random_clause(rng));
    const TranslatePair made = translate_make(clauses);
    auto again = translate_parse(made.source_text());
    REQUIRE_MESSAGE(again, made.source_text());
    CHECK(again->target == made.target);
    CHECK(again->gold == made.gold);
    CHECK(made.target.size() == made.gold.size());
    targets.insert(made.target_text());
    for (const TranslateClause& c : clauses) verbs.insert(c.verb), places.insert(c.place);
  }
  CHECK(targets.size() > 390);  // 1.6 million clauses: repeats are rare
  CHECK(verbs.size() == 10);
  CHECK(places.size() == 6);  // five places and none
}

TEST_CASE("translate grammar: a bad lexicon is refused with its line") {
  CHECK(lexicon_parse("subject\tcat\t고양이\t2\n").error() == "lexicon line 1: 'cat': batchim must be 0 or 1, it is '2'");
  CHECK(lexicon_parse("# c\nanimal\tcat\t고양이\t0\n").error() ==
        "lexicon line 2: unknown kind 'animal' (subject, object, verb, adjective or place)");
  CHECK(lexicon_parse("subject\tcat\t고양이\t0\nobject\tcat\t고양이\t0\n").error() == "lexicon line 2: 'cat' is listed twice");
  CHECK(lexicon_parse("place\tpark\t공원\t\tin park now\n").error().find("lexicon line 1: 'park': the phrase must be") == 0);
  CHECK(lexicon_parse("subject\tcat\t고양이\t0\n").error() == "lexicon: no object");
}

}  // namespace
}  // namespace attnviz
