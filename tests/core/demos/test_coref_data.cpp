// Coreference data: the six Winograd example sentences, counts per frame, the held-out rule,
// determinism, vocabulary coverage, parsing typed text and label balance.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "demos/coref_data.h"

using namespace attnviz;

namespace {

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

const std::string& word(const CorefExample& e, int i) { return e.tokens[static_cast<size_t>(i)].text; }

// The key of the "never seen" rule: (agent or contained noun, place or container noun, property).
using Key = std::tuple<std::string, std::string, std::string>;
Key key_of(const CorefExample& e) {
  const bool b_first = e.frame == "crossed_by" || e.frame == "avoided_by" || e.frame == "hold";
  const std::string& first = word(e, e.candidate_a);
  const std::string& second = word(e, e.candidate_b);
  return {b_first ? second : first, b_first ? first : second, word(e, e.pronoun + 3)};
}

std::vector<std::string> texts(const std::vector<CorefExample>& v) {
  std::vector<std::string> out;
  for (const auto& e : v) out.push_back(e.text);
  return out;
}

}  // namespace

TEST_CASE("coref_data: the six Winograd example sentences are generated with the right referent") {
  const CorefSplit s = coref_generate(1);
  std::map<std::string, const CorefExample*> by_text;
  for (const auto* list : {&s.train, &s.heldout})
    for (const auto& e : *list) by_text[e.text] = &e;
  const std::pair<const char*, const char*> cases[] = {
      {"The animal didn't cross the street because it was too tired.", "animal"},
      {"The animal didn't cross the street because it was too wide.", "street"},
      {"The street was avoided by the dog because it was too busy.", "street"},
      {"The street was avoided by the dog because it was too scared.", "dog"},
      {"The trophy didn't fit in the suitcase because it was too big.", "trophy"},
      {"The trophy didn't fit in the suitcase because it was too small.", "suitcase"},
  };
  for (const auto& entry : cases) {
    const auto& text = entry.first;
    const auto& referent = entry.second;
    CAPTURE(text);
    REQUIRE(by_text.count(text) == 1);
    const CorefExample& e = *by_text[text];
    CHECK(word(e, e.referent) == referent);
    CHECK(word(e, e.pronoun) == "it");
  }
  const CorefExample& avoided = *by_text["The street was avoided by the dog because it was too scared."];
  CHECK(avoided.frame == "avoided_by");
  CHECK(avoided.candidate_a == 1);
  CHECK(avoided.candidate_b == 6);
  CHECK(avoided.referent == 6);
}

TEST_CASE("coref_data: counts per frame and split sizes") {
  const CorefSplit s = coref_generate(1);
  std::map<std::string, int> per_frame;
  for (const auto* list : {&s.train, &s.heldout})
    for (const auto& e : *list) ++per_frame[e.frame];
  // 10 agents x 6 places x 14 properties = 840 per verb; 4 x 4 x 4 = 64 per containment verb.
  CHECK(per_frame.size() == 6);
  CHECK(per_frame["cross"] == 4 * 840);
  CHECK(per_frame["avoided"] == 840);
  CHECK(per_frame["crossed_by"] == 3 * 840);
  CHECK(per_frame["avoided_by"] == 840);
  CHECK(per_frame["fit"] == 2 * 64);
  CHECK(per_frame["hold"] == 2 * 64);
  // Held out per property: 12 of 60 agent/place pairs (x 9 verbs), 3 of 16 containment pairs (x 4).
  CHECK(s.heldout.size() == 14 * 12 * 9 + 4 * 3 * 4);
  CHECK(s.train.size() + s.heldout.size() == 7816);
  CHECK(coref_generate(1, 0.0).heldout.empty());
  CHECK(coref_generate(1, 1.0).train.empty());
  CHECK(coref_generate(1, -3.0).train.size() == 7816);
}

TEST_CASE("coref_data: no held-out (noun, noun, property) key appears in train") {
  const CorefSplit s = coref_generate(3);
  std::set<Key> train_keys, held_keys;
  std::set<std::string> held_props, train_props;
  for (const auto& e : s.train) train_keys.insert(key_of(e));
  for (const auto& e : s.heldout) held_keys.insert(key_of(e));
  CHECK(train_keys.size() == 14 * 48 + 4 * 13);
  CHECK(held_keys.size() == 14 * 12 + 4 * 3);
  for (const Key& k : held_keys) CHECK(train_keys.count(k) == 0);
  // Every property still appears on both sides.
  for (const Key& k : held_keys) held_props.insert(std::get<2>(k));
  for (const Key& k : train_keys) train_props.insert(std::get<2>(k));
  CHECK(held_props.size() == 18);
  CHECK(train_props == held_props);
}

TEST_CASE("coref_data: same seed same lists, another seed another order of the same split") {
  const CorefSplit a = coref_generate(7), b = coref_generate(7), c = coref_generate(8);
  CHECK(texts(a.train) == texts(b.train));
  CHECK(texts(a.heldout) == texts(b.heldout));
  CHECK(texts(a.train) != texts(c.train));
  CHECK(texts(a.heldout) != texts(c.heldout));
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  CHECK(sorted(texts(a.heldout)) == sorted(texts(c.heldout)));
  CHECK(sorted(texts(a.train)) == sorted(texts(c.train)));
}

TEST_CASE("coref_data: every generated token is in the vocabulary, which has the frames' 59 words") {
  const std::vector<std::string> vocab = coref_vocabulary();
  REQUIRE(vocab.size() >= 3);
  CHECK(vocab[0] == "[PAD]");
  CHECK(vocab[1] == "[UNK]");
  CHECK(vocab[2] == "[CLS]");
  CHECK(std::is_sorted(vocab.begin() + 3, vocab.end()));
  CHECK(std::adjacent_find(vocab.begin() + 3, vocab.end()) == vocab.end());
  const std::set<std::string> in(vocab.begin(), vocab.end());
  const CorefSplit s = coref_generate(1);
  for (const auto* list : {&s.train, &s.heldout})
    for (const auto& e : *list)
      for (const Token& t : e.tokens) REQUIRE(in.count(lower(t.text)) == 1);
  for (const char* w :
       {"animal", "dog", "cat", "horse", "cow", "chicken", "boy", "girl", "man", "woman", "street", "road",
        "river", "bridge", "field", "highway", "tired", "sleepy", "scared", "hungry", "lazy", "weak", "old",
        "wide", "busy", "long", "crowded", "icy", "narrow", "dangerous", "didn't", "did", "not", "cross",
        "couldn't", "refused", "to", "avoided", "was", "by", "trophy", "ball", "book", "box", "suitcase", "bag",
        "drawer", "big", "large", "small", "tiny", "fit", "in", "into", "it", "the", "because", "too", "."}) {
    CAPTURE(w);
    CHECK(in.count(w) == 1);
  }
  CHECK(in.count("The") == 0);  // lowercased: embed_tokens finds "the"
  // Beyond those 59 words, the generator adds only a fourth contained noun and the words of
  // the passive "crossed_by" and container-first "hold" frames.
  for (const char* w : {"lamp", "wasn't", "crossed", "be", "could", "hold"}) CHECK(in.count(w) == 1);
  CHECK(vocab.size() == 3 + 59 + 6);
}

TEST_CASE("coref_data: coref_make finds the pronoun and candidates in typed text") {
  const CorefExample e = coref_make("The animal didn't cross the street because it was too tired.");
  CHECK(e.tokens.size() == 12);
  CHECK(e.pronoun == 7);
  CHECK(e.candidate_a == 1);
  CHECK(e.candidate_b == 5);
  CHECK(e.property == 10);
  CHECK(e.referent == 1);  // "tired" points at the agent: the animal
  CHECK(e.frame.empty());
  // Case-insensitive, and only nouns before the pronoun count.
  const CorefExample f = coref_make("IT rained. The Horse saw the cat.");
  CHECK(f.pronoun == 0);
  CHECK(f.candidate_a == -1);
  CHECK(f.candidate_b == -1);
  const CorefExample g = coref_make("A cow");
  CHECK(g.pronoun == -1);
  CHECK(g.candidate_a == 1);
  CHECK(g.candidate_b == -1);
  const CorefExample h = coref_make("");
  CHECK(h.tokens.empty());
  CHECK(h.pronoun == -1);
}

TEST_CASE("coref_data: labels are balanced and both orders occur for every property") {
  const CorefSplit s = coref_generate(5);
  for (const auto* list : {&s.train, &s.heldout}) {
    size_t first = 0;
    for (const auto& e : *list) {
      REQUIRE((e.referent == e.candidate_a || e.referent == e.candidate_b));
      first += e.referent == e.candidate_a ? 1 : 0;
    }
    CHECK(2 * first == list->size());  // exactly half, by construction
  }
  // property -> {referent was first, referent was second}
  std::map<std::string, std::set<bool>> positions;
  for (const auto& e : s.train) positions[word(e, e.pronoun + 3)].insert(e.referent == e.candidate_a);
  CHECK(positions.size() == 18);
  for (const auto& entry : positions) {
    const std::string& prop = entry.first;
    const std::set<bool>& seen = entry.second;
    CAPTURE(prop);
    CHECK(seen.size() == 2);
  }
}

TEST_CASE("coref_data: typed text gets the rule's referent only when the rule decides") {
  CHECK(coref_make("The animal didn't cross the street because it was too wide.").referent == 5);
  CHECK(coref_make("The road was avoided by the cow because it was too Icy!").referent == 1);
  CHECK(coref_make("The trophy didn't fit in the suitcase because it was too small.").referent == 6);
  CHECK(coref_make("The suitcase couldn't hold the trophy because it was too big.").referent == 5);
  // Two agents: "tired" fits both, so there is no label; no property word: no label either.
  const CorefExample both = coref_make("The dog didn't cross the cat because it was too tired.");
  CHECK(both.property == 10);
  CHECK(both.referent == -1);
  const CorefExample none = coref_make("The animal didn't cross the street because it was raining.");
  CHECK(none.property == -1);
  CHECK(none.referent == -1);
  // Property words before the pronoun do not count.
  CHECK(coref_make("The tired animal didn't cross the street because it was late.").property == -1);
}

TEST_CASE("coref_data: the minimal pair swaps only the property word, keeping its case") {
  CHECK(coref_minimal_pair(coref_make("The animal didn't cross the street because it was too tired.")) ==
        "The animal didn't cross the street because it was too wide.");
  CHECK(coref_minimal_pair(coref_make("The animal didn't cross the street because it was too wide.")) ==
        "The animal didn't cross the street because it was too tired.");
  CHECK(coref_minimal_pair(coref_make("The ball didn't fit in the bag because it was too Large.")) ==
        "The ball didn't fit in the bag because it was too Tiny.");
  CHECK(coref_minimal_pair(coref_make("The animal didn't cross the street because it was raining.")).empty());
  CHECK(coref_minimal_pair(coref_make("")).empty());
  // Every property has a partner of the other role, and swapping twice gives the text back.
  const std::string text = "The cow avoided the river because it was too dangerous.";
  const std::string once = coref_minimal_pair(coref_make(text));
  CHECK(once == "The cow avoided the river because it was too old.");
  CHECK(coref_minimal_pair(coref_make(once)) == text);
  CHECK(coref_make(once).referent == 1);
  CHECK(coref_make(text).referent == 4);
}
