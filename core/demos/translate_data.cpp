#include "demos/translate_data.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_set>

#include "base/rng.h"

namespace attnviz {

namespace {

std::vector<std::string> with_specials(std::vector<std::string> specials, const std::set<std::string>& words) {
  specials.insert(specials.end(), words.begin(), words.end());
  return specials;
}

int id_of(const std::vector<std::string>& vocab, const std::string& token) {
  const auto it = std::find(vocab.begin(), vocab.end(), token);
  return it == vocab.end() ? -1 : static_cast<int>(it - vocab.begin());
}

}  // namespace

std::vector<std::string> translate_source_vocabulary(const Lexicon& lex) {
  std::set<std::string> words{"the", "and", "."};
  for (const LexEntry& e : lex.entries) {
    words.insert(e.english);
    if (e.kind == LexKind::place) {
      std::istringstream phrase(e.english_phrase);
      for (std::string w; phrase >> w;) words.insert(w);
    }
  }
  return with_specials({"[PAD]", "[UNK]"}, words);
}

std::vector<std::string> translate_target_vocabulary(const Lexicon& lex) {
  std::set<std::string> words{"이", "가", "을", "를", "에서", "그리고", "."};
  for (const LexEntry& e : lex.entries) words.insert(e.korean);
  return with_specials({"[PAD]", "[BOS]", "[EOS]"}, words);
}

TranslateExample translate_example(const TranslatePair& pair, const std::vector<std::string>& source_vocab,
                                   const std::vector<std::string>& target_vocab) {
  TranslateExample ex;
  ex.pair = pair;
  for (const std::string& t : pair.source) ex.source_ids.push_back(id_of(source_vocab, t));
  for (const std::string& t : pair.target) ex.target_ids.push_back(id_of(target_vocab, t));
  return ex;
}

std::vector<TranslatePair> translate_draw(uint64_t stream, int n, int clauses, const std::vector<std::string>& exclude) {
  Rng rng(stream);
  std::unordered_set<std::string> seen(exclude.begin(), exclude.end());
  std::vector<TranslatePair> out;
  // 1-clause sentences number 14 x 9 x 10 x 24 x 9 x 6 = 1.6 million: n far below that always fills.
  while (static_cast<int>(out.size()) < n) {
    std::vector<TranslateClause> cl;
    for (int c = 0; c < clauses; ++c) cl.push_back(translate_random_clause(rng));
    TranslatePair p = translate_make(cl);
    if (!seen.insert(p.source_text()).second) continue;
    out.push_back(std::move(p));
  }
  return out;
}

TranslateSplit translate_generate(uint64_t seed, int n_train, int heldout_per_length) {
  TranslateSplit split;
  const uint64_t train_stream = seed_for(seed, "translate train");
  for (int clauses = 1; clauses <= kTranslateMaxClauses; ++clauses) {
    const int n = n_train / kTranslateMaxClauses + (clauses <= n_train % kTranslateMaxClauses ? 1 : 0);
    std::vector<TranslatePair> part = translate_draw(train_stream + static_cast<uint64_t>(clauses), n, clauses);
    split.train.insert(split.train.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  Rng shuffle(seed_for(seed, "translate shuffle"));
  for (size_t i = split.train.size(); i > 1; --i) std::swap(split.train[i - 1], split.train[static_cast<size_t>(shuffle.below(static_cast<int>(i)))]);
  std::vector<std::string> trained;
  trained.reserve(split.train.size());
  for (const TranslatePair& p : split.train) trained.push_back(p.source_text());
  const uint64_t heldout_stream = seed_for(seed, "translate heldout");
  for (int clauses = 1; clauses <= kTranslateMaxClauses; ++clauses) {
    std::vector<TranslatePair> part = translate_draw(heldout_stream + static_cast<uint64_t>(clauses), heldout_per_length, clauses, trained);
    split.heldout.insert(split.heldout.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  return split;
}

}  // namespace attnviz
