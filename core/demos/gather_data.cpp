// The sentence frame is seed 003's: "The law will never be perfect, but its application should be
// just." Each noun may take "old" / "new" and each adjective "quite" / "truly" before it, and the
// sentence a final ".", so the four words "its" needs sit at 3-4 positions each.
#include "demos/gather_data.h"

#include <algorithm>
#include <set>
#include <utility>

#include "base/rng.h"
#include "base/ascii.h"

namespace attnviz {

namespace {

constexpr std::array<std::array<std::string_view, kGatherChoices>, kGatherSlots> kSlotWords{{
    {"law", "rule"}, {"perfect", "simple"}, {"application", "meaning"}, {"just", "fair"}}};
constexpr std::array<std::string_view, kGatherSlots> kSlotNames{"owner", "owner_trait", "owned", "owned_trait"};
// The optional word before each slot's word: nouns take an adjective, adjectives an adverb.
constexpr std::array<std::array<std::string_view, 2>, kGatherSlots> kOptional{{
    {"old", "new"}, {"quite", "truly"}, {"old", "new"}, {"quite", "truly"}}};
constexpr int kPatterns = 81 * 2;  // 3 ^ 4 optional-word choices x with or without the final "."

size_t slot_index(GatherSlot s) { return static_cast<size_t>(s); }

// Pattern p: digit k (base 3) of p / 2 is slot k's optional word (0: none), p % 2 the final ".".
std::string sentence_text(int answer, int pattern) {
  const std::array<int, kGatherSlots> choice = gather_answer_choices(answer);
  int digits = pattern / 2;
  std::array<std::string, kGatherSlots> words;
  for (size_t k = 0; k < kGatherSlots; ++k, digits /= 3) {
    const int opt = digits % 3;
    words[k] = opt == 0 ? std::string() : std::string(kOptional[k][static_cast<size_t>(opt - 1)]) + " ";
    words[k] += kSlotWords[k][static_cast<size_t>(choice[k])];
  }
  std::string text = "The " + words[0] + " will never be " + words[1] + ", but its " + words[2] + " should be " + words[3];
  if (pattern % 2 == 1) text += ".";
  return text;
}

}  // namespace

const std::array<std::string_view, kGatherChoices>& gather_slot_words(GatherSlot slot) {
  return kSlotWords[slot_index(slot)];
}

std::string_view gather_slot_name(GatherSlot slot) { return kSlotNames[slot_index(slot)]; }

std::array<int, kGatherSlots> gather_answer_choices(int answer) {
  std::array<int, kGatherSlots> out{};
  for (int k = kGatherSlots - 1; k >= 0; --k, answer /= kGatherChoices) out[static_cast<size_t>(k)] = answer % kGatherChoices;
  return out;
}

std::string gather_answer_text(int answer) {
  if (answer < 0 || answer >= kGatherAnswers) return "?";
  const std::array<int, kGatherSlots> choice = gather_answer_choices(answer);
  std::string out;
  for (size_t k = 0; k < kGatherSlots; ++k) {
    if (k > 0) out += '/';
    out += kSlotWords[k][static_cast<size_t>(choice[k])];
  }
  return out;
}

std::vector<std::string> gather_vocabulary() {
  std::set<std::string> words{"the", "will", "never", "be", ",", "but", "its", "should", "."};
  for (size_t k = 0; k < kGatherSlots; ++k)
    for (std::string_view w : kSlotWords[k]) words.emplace(w);
  for (const auto& opt : kOptional)
    for (std::string_view w : opt) words.emplace(w);
  std::vector<std::string> vocab{"[PAD]", "[UNK]"};
  vocab.insert(vocab.end(), words.begin(), words.end());
  for (int a = 0; a < kGatherAnswers; ++a) vocab.push_back(gather_answer_text(a));
  return vocab;
}

int gather_answer_id(const std::vector<std::string>& vocab, int answer) {
  const std::string text = gather_answer_text(answer);
  for (size_t i = 0; i < vocab.size(); ++i)
    if (vocab[i] == text) return static_cast<int>(i);
  return -1;
}

GatherExample gather_make(std::string_view text) {
  GatherExample ex;
  ex.text = std::string(text);
  auto tokens = tokenize_words(text);
  if (!tokens) return ex;
  ex.tokens = std::move(*tokens);
  const int n = static_cast<int>(ex.tokens.size());
  std::vector<std::string> lower;
  for (const Token& t : ex.tokens) lower.push_back(ascii_lower(t.text));
  for (int i = 0; i < n && ex.query < 0; ++i)
    if (lower[static_cast<size_t>(i)] == kGatherQuery) ex.query = i;
  if (ex.query < 0) return ex;
  for (size_t k = 0; k < kGatherSlots; ++k) {
    const bool before = k < 2;  // the owner and its trait come before "its"
    for (int i = before ? 0 : ex.query + 1; i < (before ? ex.query : n) && ex.slot_token[k] < 0; ++i)
      for (int c = 0; c < kGatherChoices; ++c)
        if (lower[static_cast<size_t>(i)] == kSlotWords[k][static_cast<size_t>(c)]) {
          ex.slot_token[k] = i;
          ex.slot_choice[k] = c;
        }
  }
  if (std::all_of(ex.slot_choice.begin(), ex.slot_choice.end(), [](int c) { return c >= 0; })) {
    ex.answer = 0;
    for (int c : ex.slot_choice) ex.answer = ex.answer * kGatherChoices + c;
  }
  return ex;
}

std::vector<GatherExample> gather_all() {
  std::vector<GatherExample> out;
  for (int p = 0; p < kPatterns; ++p)
    for (int a = 0; a < kGatherAnswers; ++a) out.push_back(gather_make(sentence_text(a, p)));
  return out;
}

GatherSplit gather_generate(uint64_t seed, double heldout_fraction) {
  if (!(heldout_fraction > 0)) heldout_fraction = 0;
  heldout_fraction = std::min(heldout_fraction, 1.0);
  Rng rng(seed_for(seed, "gather.split"));
  std::vector<int> patterns(kPatterns);
  for (int p = 0; p < kPatterns; ++p) patterns[static_cast<size_t>(p)] = p;
  for (int i = kPatterns - 1; i > 0; --i) std::swap(patterns[static_cast<size_t>(i)], patterns[static_cast<size_t>(rng.below(i + 1))]);
  const int held = static_cast<int>(heldout_fraction * kPatterns + 0.5);
  GatherSplit split;
  for (int i = 0; i < kPatterns; ++i)
    for (int a = 0; a < kGatherAnswers; ++a)
      (i < held ? split.heldout : split.train).push_back(gather_make(sentence_text(a, patterns[static_cast<size_t>(i)])));
  auto shuffle = [&rng](std::vector<GatherExample>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(rng.below(static_cast<int>(i)))]);
  };
  shuffle(split.train);
  shuffle(split.heldout);
  return split;
}

}  // namespace attnviz
