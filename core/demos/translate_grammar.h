// The translation demo's grammar (English → Korean; docs/TRANSLATION.md, the lexicon in
// data/translation_lexicon.tsv, built into the program): SVO English clauses joined by "and", and
// their one right Korean translation, SOV with the particles the nouns ask for (이/가, 을/를 by the
// noun's final consonant, 에서 after a place) and 그리고 between clauses. Every Korean token knows
// the English token it translates (the gold alignment the cross-attention heads are scored on).
// Parses typed English (refusing, by name, any word or order outside the grammar), makes sentences
// at random, and trains nothing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/rng.h"

namespace attnviz {

enum class LexKind { subject, object, verb, adjective, place };
std::string_view lex_kind_name(LexKind kind);

struct LexEntry {
  LexKind kind = LexKind::subject;
  std::string english, korean;
  bool batchim = false;        // nouns: the Korean word ends in a final consonant (takes 이 / 을)
  std::string english_phrase;  // places: "in the park", "at school", ...
};

struct Lexicon {
  std::vector<LexEntry> entries;  // in the file's order
  std::vector<int> of(LexKind kind) const;  // the entries' indices of that kind
};

// The TSV: comment lines (#) and rows `kind english korean batchim english_phrase` (tab-separated;
// batchim 0 or 1 for subjects and objects, empty otherwise; english_phrase for places only, ending
// in the place's word). Errors name the line and what is wrong: an unknown kind, a missing or
// stray column, a word listed twice under one kind.
Result<Lexicon> lexicon_parse(std::string_view tsv);
// data/translation_lexicon.tsv as built in.
const Lexicon& translate_lexicon();

// One clause: "the [adjective] SUBJECT VERB the [adjective] NOUN [PLACE]" (lexicon indices, -1:
// none). The noun is a subject or an object word: an animal can be chased, a book can be bought.
struct TranslateClause {
  int subject_adjective = -1, subject = -1, verb = -1, object_adjective = -1, object = -1, place = -1;
};

// What a Korean token is, for the alignment's score: content tokens must be fetched from the
// source; particles, 그리고 and "." can be placed from the decoder's own tokens.
enum class TargetRole { content, particle, conjunction, period };

struct TranslatePair {
  std::vector<TranslateClause> clauses;
  std::vector<std::string> source;   // English tokens, "." included
  std::vector<std::string> target;   // Korean tokens: words, particles, 그리고, "."
  std::vector<int> gold;             // per target token: the source token it aligns to
  std::vector<TargetRole> roles;     // per target token
  std::string source_text() const;   // the tokens joined by spaces
  std::string target_text() const;   // tokens joined by spaces: "큰 고양이 가 …"
  std::string korean_text() const;   // as written: particles joined to their word, "큰 고양이가 …"
};

inline constexpr int kTranslateMaxClauses = 3;

// The pair for 1 to 3 valid clauses.
TranslatePair translate_make(const std::vector<TranslateClause>& clauses, const Lexicon& lexicon = translate_lexicon());

// Typed English, any case, "." written apart or not ("the cat saw the dog."). Errors name every
// word outside the lexicon at once, or else the first place where the grammar fails and what it
// expected there.
Result<TranslatePair> translate_parse(std::string_view english, const Lexicon& lexicon = translate_lexicon());

// A clause drawn uniformly: each adjective slot empty with probability 1/2, the place with 1/2.
TranslateClause translate_random_clause(Rng& rng, const Lexicon& lexicon = translate_lexicon());

}  // namespace attnviz
