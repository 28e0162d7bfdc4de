// Data for the translation demo (core/demos/translate_grammar.h): the source and target
// vocabularies and the sentence pairs a model trains on and is judged by. The held-out sentences are
// drawn from a stream of their own, independently of the training data, and none of them is a
// training sentence: a model that translates them learned the grammar, not the list.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "demos/translate_grammar.h"

namespace attnviz {

// The source side: "[PAD]", "[UNK]", then every English token the grammar uses (the lexicon's
// words, "the", "and", the places' prepositions, "."), sorted bytewise.
std::vector<std::string> translate_source_vocabulary(const Lexicon& lexicon = translate_lexicon());
// The target side: "[PAD]", "[BOS]", "[EOS]", then every Korean token (the lexicon's words once
// each — 집 is a house and a home —, the particles 이 가 을 를 에서, 그리고, "."), sorted bytewise.
std::vector<std::string> translate_target_vocabulary(const Lexicon& lexicon = translate_lexicon());
inline constexpr int kTranslatePad = 0, kTranslateBos = 1, kTranslateEos = 2;  // target ids

struct TranslateExample {
  TranslatePair pair;
  std::vector<int> source_ids;  // one per source token
  std::vector<int> target_ids;  // one per target token (no [BOS] / [EOS]: the trainer adds them)
};

// Ids of a pair's tokens in the two vocabularies (built by translate_*_vocabulary, so every token
// is found).
TranslateExample translate_example(const TranslatePair& pair, const std::vector<std::string>& source_vocab,
                                   const std::vector<std::string>& target_vocab);

// n sentences of `clauses` clauses each (1 to 3), drawn with Rng(stream); skipping any whose
// source text is in `exclude`, and never repeating one.
std::vector<TranslatePair> translate_draw(uint64_t stream, int n, int clauses, const std::vector<std::string>& exclude = {});

struct TranslateSplit {
  std::vector<TranslatePair> train;    // equal thirds of 1, 2 and 3 clauses, shuffled
  std::vector<TranslatePair> heldout;  // `heldout_per_length` of each length, in order of length
};
// Training pairs from seed_for(seed, "translate train"); held-out ones from seed_for(seed,
// "translate heldout"), none equal to a training sentence.
TranslateSplit translate_generate(uint64_t seed, int n_train, int heldout_per_length);

}  // namespace attnviz
