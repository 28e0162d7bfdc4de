// Word lists and frames for the coreference data. The label comes from the property word's role
// (agent/contained vs place/container) and the frame's order, never from a parse, so it is right
// by construction. "box" is only a container so no sentence has the same noun twice.
#include "demos/coref_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

#include "base/ascii.h"
#include "base/rng.h"
#include "base/utf8.h"

namespace attnviz {

namespace {

using Words = std::vector<std::string_view>;

struct Frame {
  std::string_view name;
  std::string_view verb;
  bool role_b_first;  // passive / container-first: the place or container is the subject
};

// One family of sentences: two noun roles and the properties that point at each.
struct Group {
  Words role_a, role_b;    // agents / contained things, places / containers
  Words props_a, props_b;  // "it" = role A noun, "it" = role B noun
  std::vector<Frame> frames;
};

std::array<Group, 2> coref_groups() {
  return {{
      {{"animal", "dog", "cat", "horse", "cow", "chicken", "boy", "girl", "man", "woman"},
       {"street", "road", "river", "bridge", "field", "highway"},
       {"tired", "sleepy", "scared", "hungry", "lazy", "weak", "old"},
       {"wide", "busy", "long", "crowded", "icy", "narrow", "dangerous"},
       {{"cross", "didn't cross", false},
        {"cross", "did not cross", false},
        {"cross", "couldn't cross", false},
        {"cross", "refused to cross", false},
        {"avoided", "avoided", false},
        // Passive frames so that place-first sentences are nearly as common as agent-first ones.
        {"crossed_by", "wasn't crossed by", true},
        {"crossed_by", "was not crossed by", true},
        {"crossed_by", "couldn't be crossed by", true},
        {"avoided_by", "was avoided by", true}}},
      {{"trophy", "ball", "book", "lamp"},
       {"suitcase", "bag", "drawer", "box"},
       {"big", "large"},
       {"small", "tiny"},
       {{"fit", "didn't fit in", false},
        {"fit", "did not fit into", false},
        {"hold", "couldn't hold", true},
        {"hold", "could not hold", true}}},
  }};
}

// Modulo bias is below 1e-15 for lists this short, and this keeps the order identical everywhere.
template <class T>
void list_shuffle(std::vector<T>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next_u64() % i]);
}

std::set<std::string_view> coref_nouns(const std::array<Group, 2>& groups) {
  std::set<std::string_view> nouns;
  for (const Group& g : groups) {
    nouns.insert(g.role_a.begin(), g.role_a.end());
    nouns.insert(g.role_b.begin(), g.role_b.end());
  }
  return nouns;
}

CorefExample coref_parse(std::string_view text, const std::set<std::string_view>& nouns) {
  CorefExample ex;
  ex.text = std::string(text);
  auto tokens = tokenize_words(text);
  if (!tokens.ok()) return ex;
  ex.tokens = std::move(tokens.value());
  const int n = static_cast<int>(ex.tokens.size());
  for (int i = 0; i < n && ex.pronoun < 0; ++i)
    if (ascii_lower(ex.tokens[static_cast<size_t>(i)].text) == "it") ex.pronoun = i;
  const int stop = ex.pronoun >= 0 ? ex.pronoun : n;
  for (int i = 0; i < stop && ex.candidate_b < 0; ++i) {
    if (nouns.count(ascii_lower(ex.tokens[static_cast<size_t>(i)].text)) == 0) continue;
    (ex.candidate_a < 0 ? ex.candidate_a : ex.candidate_b) = i;
  }
  return ex;
}

struct Generated {
  CorefExample example;
  bool heldout = false;
};

// Fixed so the held-out keys are the same for every training seed: results stay comparable.
constexpr uint64_t kSplitSeed = 0x636f726566ull;  // "coref"

std::vector<Generated> coref_all(double heldout_fraction) {
  const std::array<Group, 2> groups = coref_groups();
  const std::set<std::string_view> nouns = coref_nouns(groups);
  std::vector<Generated> out;
  for (const Group& g : groups) {
    const size_t n_pairs = g.role_a.size() * g.role_b.size();
    const auto n_held = static_cast<size_t>(std::lround(heldout_fraction * static_cast<double>(n_pairs)));
    for (int side = 0; side < 2; ++side) {
      for (std::string_view prop : side == 0 ? g.props_a : g.props_b) {
        std::vector<size_t> order(n_pairs);
        for (size_t i = 0; i < n_pairs; ++i) order[i] = i;
        Rng split_rng(seed_for(kSplitSeed, prop));
        list_shuffle(order, split_rng);
        std::vector<bool> held(n_pairs, false);
        for (size_t i = 0; i < n_held; ++i) held[order[i]] = true;
        for (size_t pair = 0; pair < n_pairs; ++pair) {
          const std::string_view a = g.role_a[pair / g.role_b.size()];
          const std::string_view b = g.role_b[pair % g.role_b.size()];
          for (const Frame& f : g.frames) {
            const std::string_view first = f.role_b_first ? b : a, second = f.role_b_first ? a : b;
            std::string text = "The ";
            text.append(first).append(" ").append(f.verb).append(" the ").append(second);
            text.append(" because it was too ").append(prop).append(".");
            Generated gen{coref_parse(text, nouns), held[pair]};
            gen.example.frame = std::string(f.name);
            const bool refers_first = (side == 0) != f.role_b_first;
            gen.example.referent = refers_first ? gen.example.candidate_a : gen.example.candidate_b;
            out.push_back(std::move(gen));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

CorefSplit coref_generate(uint64_t seed, double heldout_fraction) {
  const double f = heldout_fraction > 0.0 ? std::min(heldout_fraction, 1.0) : 0.0;  // NaN -> 0
  CorefSplit split;
  for (Generated& g : coref_all(f)) (g.heldout ? split.heldout : split.train).push_back(std::move(g.example));
  Rng rng(seed);
  list_shuffle(split.train, rng);
  list_shuffle(split.heldout, rng);
  return split;
}

std::vector<std::string> coref_vocabulary() {
  std::set<std::string> words;
  for (const Generated& g : coref_all(0.0))
    for (const Token& t : g.example.tokens) words.insert(ascii_lower(t.text));
  std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]"};
  vocab.insert(vocab.end(), words.begin(), words.end());
  return vocab;
}

CorefExample coref_make(std::string_view text) {
  const std::array<Group, 2> groups = coref_groups();
  CorefExample ex = coref_parse(text, coref_nouns(groups));
  if (ex.pronoun < 0) return ex;
  auto in = [](const Words& words, std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  for (int i = ex.pronoun + 1; i < static_cast<int>(ex.tokens.size()) && ex.property < 0; ++i) {
    const std::string w = ascii_lower(ex.tokens[static_cast<size_t>(i)].text);
    for (const Group& g : groups) {
      const bool points_a = in(g.props_a, w), points_b = in(g.props_b, w);
      if (!points_a && !points_b) continue;
      ex.property = i;
      if (ex.candidate_b < 0) break;
      const Words& role = points_a ? g.role_a : g.role_b;
      const bool a_fits = in(role, ascii_lower(ex.tokens[static_cast<size_t>(ex.candidate_a)].text));
      const bool b_fits = in(role, ascii_lower(ex.tokens[static_cast<size_t>(ex.candidate_b)].text));
      if (a_fits != b_fits) ex.referent = a_fits ? ex.candidate_a : ex.candidate_b;
      break;
    }
  }
  return ex;
}

std::string coref_minimal_pair(const CorefExample& e) {
  if (e.property < 0 || e.property >= static_cast<int>(e.tokens.size())) return {};
  const Token& t = e.tokens[static_cast<size_t>(e.property)];
  const std::string w = ascii_lower(t.text);
  std::string partner;
  for (const Group& g : coref_groups())
    for (size_t i = 0; i < g.props_a.size() && i < g.props_b.size(); ++i) {
      if (w == g.props_a[i]) partner = g.props_b[i];
      if (w == g.props_b[i]) partner = g.props_a[i];
    }
  if (partner.empty()) return {};
  if (!t.text.empty() && t.text[0] >= 'A' && t.text[0] <= 'Z') partner[0] = static_cast<char>(partner[0] - 'a' + 'A');
  std::string out = utf8_sanitize(e.text);  // token offsets refer to the sanitized text
  if (t.end > out.size() || t.begin > t.end) return {};
  out.replace(t.begin, t.end - t.begin, partner);
  return out;
}

}  // namespace attnviz
