// Winograd-style training data for the coreference demo: "The animal didn't cross the street
// because it was too tired." with "it" labelled as the animal (tired) or the street (wide).
// Generates every combination of nouns, verbs and property words and splits it train/held-out.
// It does not train anything, assign vocabulary ids or guess the referent of typed text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/word_tokenizer.h"

namespace attnviz {

struct CorefExample {
  std::string text;                        // the sentence
  std::vector<Token> tokens;               // tokenize_words(text)
  int pronoun = -1;                        // token index of "it"
  int candidate_a = -1, candidate_b = -1;  // token indices of the two nouns, in sentence order
  int referent = -1;                       // == candidate_a or candidate_b; -1 when unknown
  int property = -1;                       // token index of the property word ("tired"), -1: none
  std::string frame;                       // "cross", "avoided", "crossed_by", "avoided_by", "fit",
                                           // "hold"; empty for typed text
};

struct CorefSplit {
  std::vector<CorefExample> train, heldout;
};

// Every combination of (frame verb, noun, noun, property). Each noun has one role: the agent or
// contained thing (role A) and the place or container (role B); agent properties and big/large
// make "it" role A, place properties and small/tiny make it role B. Frames "crossed_by",
// "avoided_by" and "hold" put role B first, so both candidate orders occur for every property.
//
// "Never seen": a held-out example's key (role-A noun, role-B noun, property) occurs in no
// training example, in any frame, verb or order. The held-out keys do not depend on seed: for
// each property, round(heldout_fraction * pairs) of its noun pairs are held out, chosen by a fixed
// internal shuffle, so every property appears in both lists. Only the order of each list depends
// on seed (Fisher-Yates with Rng(seed)). heldout_fraction is clamped to [0, 1]; NaN counts as 0.
CorefSplit coref_generate(uint64_t seed, double heldout_fraction = 0.2);

// "[PAD]", "[UNK]", "[CLS]" (ids 0, 1, 2), then every token the generator emits, lowercased,
// sorted bytewise and without repeats ("the", not "The": embed_tokens falls back to lowercase).
std::vector<std::string> coref_vocabulary();

// Parses any sentence: pronoun = the first "it" (any case); candidates = the first two
// vocabulary nouns before it (in the whole text when there is no "it"); property = the first
// property word after the pronoun. referent follows the generator's rule when it decides: the
// property points at one role and exactly one candidate has that role ("tired" -> the agent);
// otherwise -1. frame is empty. Fields stay -1 when absent; tokens stay empty when the text cannot
// be tokenized (over the tokenizer's limits).
CorefExample coref_make(std::string_view text);

// The minimal pair: the text with its property word replaced by its partner of the other role
// (tired <-> wide, big <-> small, ...; a capital first letter is kept), so "it" changes referent
// and nothing else changes. Empty when the example has no property word.
std::string coref_minimal_pair(const CorefExample& example);

}  // namespace attnviz
