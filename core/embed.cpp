// Embedding lookup and positional encodings. Sinusoids are evaluated in double and rounded once.
#include "core/embed.h"

#include <cmath>
#include <unordered_map>

#include "core/rng.h"

namespace attnviz {

Mat positions_sinusoidal(int n_tokens, int d_model) {
  Mat pe(n_tokens, d_model);
  for (int pos = 0; pos < n_tokens; ++pos)
    for (int i = 0; i < d_model; ++i) {
      const int pair = i / 2;
      const double angle = pos / std::pow(10000.0, 2.0 * pair / d_model);
      pe(pos, i) = static_cast<float>(i % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

namespace {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

}  // namespace

RowVec embed_hashed(uint64_t seed, std::string_view token, int d_model) {
  Rng rng(seed_for(seed, "tok:" + ascii_lower(token)));
  RowVec v(d_model);
  for (int i = 0; i < d_model; ++i) v(i) = static_cast<float>(rng.normal());
  return v;
}

Result<Embedded> embed_tokens(const Model& model, const std::vector<std::string>& tokens) {
  const ModelConfig& c = model.config;
  const int T = static_cast<int>(tokens.size()), C = c.d_model;
  Embedded e;
  e.x.resize(T, C);
  e.in_vocab.assign(tokens.size(), 1);
  const bool has_vocab = model.weights.tok_embed.rows() > 0;
  if (has_vocab) {
    std::unordered_map<std::string, int> index;  // built per call: demo vocabularies are small
    for (size_t i = 0; i < model.vocab.size(); ++i) index.emplace(model.vocab[i], static_cast<int>(i));
    const auto unk = index.find("[UNK]");
    for (int t = 0; t < T; ++t) {
      auto it = index.find(tokens[static_cast<size_t>(t)]);
      if (it == index.end()) it = index.find(ascii_lower(tokens[static_cast<size_t>(t)]));
      if (it == index.end()) {
        if (unk == index.end())
          return make_error("the word '" + tokens[static_cast<size_t>(t)] +
                            "' is not in the model's vocabulary, which has no [UNK] entry");
        it = unk;
        e.in_vocab[static_cast<size_t>(t)] = 0;
      }
      e.x.row(t) = model.weights.tok_embed.row(it->second);
    }
  } else {
    for (int t = 0; t < T; ++t) e.x.row(t) = embed_hashed(model.seed, tokens[static_cast<size_t>(t)], C);
  }
  switch (c.positions) {
    case PositionEncoding::sinusoidal: e.x += positions_sinusoidal(T, C); break;
    case PositionEncoding::learned:
      if (T > model.weights.pos_embed.rows())
        return make_error("the sentence has " + std::to_string(T) + " tokens but the model knows only " +
                          std::to_string(model.weights.pos_embed.rows()) + " positions");
      e.x += model.weights.pos_embed.topRows(T);
      break;
    case PositionEncoding::none: break;
  }
  return e;
}

}  // namespace attnviz
