// Data for the gather demo, there to show why several heads help (seed 003's "its" example): in
// "The law will never be perfect, but its application should be just." the word "its" is trained to
// name four words of its sentence at once: its owner (law / rule), what the owner will never be
// (perfect / simple), what it owns (application / meaning) and what that should be (just / fair).
// One answer token stands for the four choices (16 in all), so one head must share its attention
// among four words while h heads can give each word a head of its own. Optional words (old / new
// before a noun, quite / truly before an adjective, a final ".") move the four words around.
// Makes sentences, the vocabulary and the train / held-out split; it trains nothing.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/word_tokenizer.h"

namespace attnviz {

// The four words "its" needs, in sentence order, each a choice of two.
enum class GatherSlot { owner, owner_trait, owned, owned_trait };
inline constexpr int kGatherSlots = 4;
inline constexpr int kGatherChoices = 2;                // words per slot
inline constexpr int kGatherAnswers = 16;               // kGatherChoices ^ kGatherSlots
inline constexpr std::string_view kGatherQuery = "its";
// Seed 003's sentence, the demo's first sentence in the app.
inline constexpr std::string_view kGatherSentence = "The law will never be perfect, but its application should be just.";

// The slot's two words: {"law", "rule"}, {"perfect", "simple"}, {"application", "meaning"}, {"just", "fair"}.
const std::array<std::string_view, kGatherChoices>& gather_slot_words(GatherSlot slot);
// "owner", "owner_trait", "owned", "owned_trait".
std::string_view gather_slot_name(GatherSlot slot);

struct GatherExample {
  std::string text;
  std::vector<Token> tokens;                 // tokenize_words(text)
  int query = -1;                            // token index of "its"
  std::array<int, kGatherSlots> slot_token{-1, -1, -1, -1};   // token index of each slot's word
  std::array<int, kGatherSlots> slot_choice{-1, -1, -1, -1};  // which of the slot's two words
  int answer = -1;  // 0..15: the four choices (owner most significant), -1 unless every slot is found
};

// The answer token's text: the four words joined by '/' ("law/perfect/application/just").
std::string gather_answer_text(int answer);
// The answer's four choices, owner first.
std::array<int, kGatherSlots> gather_answer_choices(int answer);

// "[PAD]", "[UNK]", then every word the sentences use (lowercase, sorted bytewise), then the 16
// answer tokens in answer order: gather_answer_id(vocab, a) is the id of answer a.
std::vector<std::string> gather_vocabulary();
int gather_answer_id(const std::vector<std::string>& vocab, int answer);

// Every sentence the generator makes: 16 answers x 3 x 3 x 3 x 3 optional-word patterns x with or
// without the final "." (2,592), in a fixed order.
std::vector<GatherExample> gather_all();

// The split: each (optional-word pattern, final ".") is held out for all 16 answers or for none, so
// a held-out sentence's word positions never occur in training; `heldout_fraction` of the 162
// patterns are held out, chosen by a shuffle with Rng(seed). The lists are in a seed-shuffled order.
struct GatherSplit {
  std::vector<GatherExample> train, heldout;
};
GatherSplit gather_generate(uint64_t seed, double heldout_fraction = 0.2);

// Parses typed text: query = the first "its" (any case); each slot's word is the first of its two
// words after the query (traits and owned) or before it (owner, owner_trait). answer is set when
// all four are found. tokens stay empty when the text cannot be tokenized.
GatherExample gather_make(std::string_view text);

}  // namespace attnviz
