#include "demos/translate_grammar.h"

#include <algorithm>
#include <sstream>

#include "base/ascii.h"
#include "demos/translate_lexicon_tsv.h"

namespace attnviz {

namespace {

constexpr std::string_view kKindNames[] = {"subject", "object", "verb", "adjective", "place"};

std::vector<std::string> split_tabs(std::string_view line) {
  std::vector<std::string> cols;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    cols.emplace_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return cols;
}

std::vector<std::string> split_spaces(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool is_noun(LexKind k) { return k == LexKind::subject || k == LexKind::object; }

// The place phrase's preposition and its word: "in the park" → "in", "park".
std::string_view phrase_first(const LexEntry& e) { return std::string_view(e.english_phrase).substr(0, e.english_phrase.find(' ')); }

}  // namespace

std::string_view lex_kind_name(LexKind kind) { return kKindNames[static_cast<int>(kind)]; }

std::vector<int> Lexicon::of(LexKind kind) const {
  std::vector<int> out;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].kind == kind) out.push_back(static_cast<int>(i));
  return out;
}

Result<Lexicon> lexicon_parse(std::string_view tsv) {
  Lexicon lex;
  size_t start = 0;
  int number = 0;
  while (start < tsv.size()) {
    const size_t end = std::min(tsv.find('\n', start), tsv.size());
    std::string_view line = tsv.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    const auto fail = [&](const std::string& what) { return make_error("lexicon line " + std::to_string(number) + ": " + what); };
    std::vector<std::string> cols = split_tabs(line);
    while (cols.size() < 5) cols.emplace_back();  // trailing empty columns may be left out
    if (cols.size() > 5) return fail("more than 5 columns");
    LexEntry e;
    const auto kind = std::find(std::begin(kKindNames), std::end(kKindNames), cols[0]);
    if (kind == std::end(kKindNames))
      return fail("unknown kind '" + cols[0] + "' (subject, object, verb, adjective or place)");
    e.kind = static_cast<LexKind>(kind - std::begin(kKindNames));
    e.english = cols[1];
    e.korean = cols[2];
    if (e.english.empty() || e.korean.empty()) return fail("an entry needs its English and Korean words");
    if (e.english.find(' ') != std::string::npos || e.korean.find(' ') != std::string::npos)
      return fail("'" + e.english + "': a word is one token, without spaces");
    if (is_noun(e.kind)) {
      if (cols[3] != "0" && cols[3] != "1") return fail("'" + e.english + "': batchim must be 0 or 1, it is '" + cols[3] + "'");
      e.batchim = cols[3] == "1";
    } else if (!cols[3].empty()) {
      return fail("'" + e.english + "': only subjects and objects have a batchim");
    }
    if (e.kind == LexKind::place) {
      e.english_phrase = cols[4];
      const std::vector<std::string> words = split_spaces(e.english_phrase);
      if (words.size() < 2 || words.back() != e.english || (words.size() == 3 && words[1] != "the") || words.size() > 3)
        return fail("'" + e.english + "': the phrase must be a preposition, maybe \"the\", and the place ('" +
                    e.english_phrase + "')");
    } else if (!cols[4].empty()) {
      return fail("'" + e.english + "': only places have an English phrase");
    }
    for (const LexEntry& other : lex.entries)
      if (other.english == e.english && (other.kind == e.kind || (is_noun(other.kind) && is_noun(e.kind))))
        return fail("'" + e.english + "' is listed twice");
    lex.entries.push_back(std::move(e));
  }
  for (LexKind k : {LexKind::subject, LexKind::object, LexKind::verb, LexKind::adjective, LexKind::place})
    if (lex.of(k).empty()) return make_error("lexicon: no " + std::string(lex_kind_name(k)));
  return lex;
}

const Lexicon& translate_lexicon() {
  static const Lexicon lex = [] {
    auto parsed = lexicon_parse(kTranslateLexiconTsv);
    return parsed ? std::move(*parsed) : Lexicon{};  // the built-in file is checked by the tests
  }();
  return lex;
}

std::string TranslatePair::source_text() const {
  std::string s;
  for (const std::string& t : source) s += (s.empty() ? "" : " ") + t;
  return s;
}

std::string TranslatePair::target_text() const {
  std::string s;
  for (const std::string& t : target) s += (s.empty() ? "" : " ") + t;
  return s;
}

std::string TranslatePair::korean_text() const {
  std::string s;
  for (size_t i = 0; i < target.size(); ++i) {
    const bool joined = i > 0 && (roles[i] == TargetRole::particle || roles[i] == TargetRole::period);
    s += (s.empty() || joined ? "" : " ") + target[i];
  }
  return s;
}

TranslatePair translate_make(const std::vector<TranslateClause>& clauses, const Lexicon& lex) {
  TranslatePair p;
  p.clauses = clauses;
  const auto src = [&](const std::string& word) {
    p.source.push_back(word);
    return static_cast<int>(p.source.size()) - 1;
  };
  const auto tgt = [&](const std::string& token, int gold, TargetRole role) {
    p.target.push_back(token);
    p.gold.push_back(gold);
    p.roles.push_back(role);
  };
  const auto word = [&](int i) -> const LexEntry& { return lex.entries[static_cast<size_t>(i)]; };
  for (size_t c = 0; c < clauses.size(); ++c) {
    const TranslateClause& cl = clauses[c];
    if (c > 0) tgt("그리고", src("and"), TargetRole::conjunction);
    src("the");
    const int s_adj = cl.subject_adjective >= 0 ? src(word(cl.subject_adjective).english) : -1;
    const int s = src(word(cl.subject).english);
    const int v = src(word(cl.verb).english);
    src("the");
    const int o_adj = cl.object_adjective >= 0 ? src(word(cl.object_adjective).english) : -1;
    const int o = src(word(cl.object).english);
    int prep = -1, place = -1;
    if (cl.place >= 0) {
      const std::vector<std::string> phrase = split_spaces(word(cl.place).english_phrase);
      prep = src(phrase.front());
      for (size_t i = 1; i + 1 < phrase.size(); ++i) src(phrase[i]);
      place = src(phrase.back());
    }
    if (s_adj >= 0) tgt(word(cl.subject_adjective).korean, s_adj, TargetRole::content);
    tgt(word(cl.subject).korean, s, TargetRole::content);
    tgt(word(cl.subject).batchim ? "이" : "가", s, TargetRole::particle);
    if (place >= 0) {
      tgt(word(cl.place).korean, place, TargetRole::content);
      tgt("에서", prep, TargetRole::particle);
    }
    if (o_adj >= 0) tgt(word(cl.object_adjective).korean, o_adj, TargetRole::content);
    tgt(word(cl.object).korean, o, TargetRole::content);
    tgt(word(cl.object).batchim ? "을" : "를", o, TargetRole::particle);
    tgt(word(cl.verb).korean, v, TargetRole::content);
  }
  // The "." and the joining "and"s: source order puts "and" between clauses, as built above.
  tgt(".", src("."), TargetRole::period);
  return p;
}

Result<TranslatePair> translate_parse(std::string_view english, const Lexicon& lex) {
  std::vector<std::string> tokens;
  for (std::string w : split_spaces(english)) {
    w = ascii_lower(w);
    const bool period = w.size() > 1 && w.back() == '.';
    if (period) w.pop_back();
    tokens.push_back(w);
    if (period) tokens.emplace_back(".");
  }
  if (tokens.empty()) return make_error("nothing to translate: type an English sentence such as \"the cat saw the dog .\"");
  // Every word the grammar knows: the lexicon's, "the", "and", ".", and the places' prepositions.
  std::vector<std::string> known = {"the", "and", "."};
  for (const LexEntry& e : lex.entries) {
    known.push_back(e.english);
    if (e.kind == LexKind::place) known.emplace_back(phrase_first(e));
  }
  std::vector<std::string> unknown;
  for (const std::string& t : tokens)
    if (std::find(known.begin(), known.end(), t) == known.end() && std::find(unknown.begin(), unknown.end(), t) == unknown.end())
      unknown.push_back(t);
  if (!unknown.empty()) {
    std::string m = "not in the translation demo's lexicon:";
    for (const std::string& u : unknown) m += " '" + u + "'";
    return make_error(m);
  }
  const auto find = [&](const std::string& w, bool (*fits)(LexKind)) {
    for (size_t i = 0; i < lex.entries.size(); ++i)
      if (lex.entries[i].english == w && fits(lex.entries[i].kind)) return static_cast<int>(i);
    return -1;
  };
  size_t at = 0;
  const auto here = [&]() -> std::string { return at < tokens.size() ? "'" + tokens[at] + "'" : "the end"; };
  const auto expected = [&](const std::string& what) {
    return make_error("word " + std::to_string(at + 1) + ": expected " + what + ", found " + here());
  };
  const auto take = [&](const std::string& w) {
    if (at < tokens.size() && tokens[at] == w) return ++at, true;
    return false;
  };
  const auto take_kind = [&](bool (*fits)(LexKind)) {
    const int i = at < tokens.size() ? find(tokens[at], fits) : -1;
    if (i >= 0) ++at;
    return i;
  };
  std::vector<TranslateClause> clauses;
  while (true) {
    TranslateClause c;
    if (!take("the")) return expected("\"the\" to begin a clause");
    c.subject_adjective = take_kind([](LexKind k) { return k == LexKind::adjective; });
    c.subject = take_kind([](LexKind k) { return k == LexKind::subject; });
    if (c.subject < 0) return expected("a subject (a person or an animal)");
    c.verb = take_kind([](LexKind k) { return k == LexKind::verb; });
    if (c.verb < 0) return expected("a verb");
    if (!take("the")) return expected("\"the\" before the object");
    c.object_adjective = take_kind([](LexKind k) { return k == LexKind::adjective; });
    c.object = take_kind(is_noun);
    if (c.object < 0) return expected("an object (a person, an animal or a thing)");
    if (at < tokens.size() && tokens[at] != "and" && tokens[at] != ".") {
      for (const int p : lex.of(LexKind::place)) {
        const std::vector<std::string> phrase = split_spaces(lex.entries[static_cast<size_t>(p)].english_phrase);
        if (at + phrase.size() <= tokens.size() && std::equal(phrase.begin(), phrase.end(), tokens.begin() + static_cast<long>(at))) {
          c.place = p;
          at += phrase.size();
          break;
        }
      }
      if (c.place < 0) return expected("a place (\"in the park\", \"at school\", …), \"and\" or \".\"");
    }
    clauses.push_back(c);
    if (take(".")) break;
    if (!take("and")) return expected("\"and\" or \".\"");
    if (clauses.size() == kTranslateMaxClauses) return make_error("at most 3 clauses are joined by \"and\"");
  }
  if (at < tokens.size()) return make_error("word " + std::to_string(at + 1) + ": nothing may follow the final \".\"");
  return translate_make(clauses, lex);
}

TranslateClause translate_random_clause(Rng& rng, const Lexicon& lex) {
  const std::vector<int> subjects = lex.of(LexKind::subject), objects = lex.of(LexKind::object),
                         verbs = lex.of(LexKind::verb), adjectives = lex.of(LexKind::adjective),
                         places = lex.of(LexKind::place);
  const auto pick = [&](const std::vector<int>& from) { return from[static_cast<size_t>(rng.below(static_cast<int>(from.size())))]; };
  TranslateClause c;
  c.subject_adjective = rng.below(2) ? pick(adjectives) : -1;
  c.subject = pick(subjects);
  c.verb = pick(verbs);
  c.object_adjective = rng.below(2) ? pick(adjectives) : -1;
  const int nouns = static_cast<int>(subjects.size() + objects.size());
  const int n = rng.below(nouns);
  c.object = n < static_cast<int>(subjects.size()) ? subjects[static_cast<size_t>(n)] : objects[static_cast<size_t>(n) - subjects.size()];
  c.place = rng.below(2) ? pick(places) : -1;
  return c;
}

}  // namespace attnviz
