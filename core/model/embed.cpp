// Embedding lookup and positional encodings. Sinusoids are evaluated in double and rounded once.
#include "model/embed.h"

#include <cmath>
#include <unordered_map>
#include <vector>

#include "base/ascii.h"
#include "base/rng.h"
#include "model/kernels.h"

namespace attnviz {

Mat positions_sinusoidal(int n_tokens, int d_model) {
  Mat pe(n_tokens, d_model);
  std::vector<double> timescale(static_cast<size_t>(d_model));  // 10000^(2i/d), the same for every position
  for (int i = 0; i < d_model; ++i) timescale[static_cast<size_t>(i)] = std::pow(10000.0, 2.0 * (i / 2) / d_model);
  for (int pos = 0; pos < n_tokens; ++pos)
    for (int i = 0; i < d_model; ++i) {
      const double angle = pos / timescale[static_cast<size_t>(i)];
      pe(pos, i) = static_cast<float>(i % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

namespace {

// RoBERTa's position rows (create_position_ids_from_input_ids): tokens that are not padding count
// up from padding_idx + 1; padding tokens take row padding_idx.
std::vector<int> padded_positions(const std::vector<int>& ids, int padding_idx) {
  std::vector<int> rows(ids.size());
  int count = 0;
  for (size_t t = 0; t < ids.size(); ++t) rows[t] = ids[t] == padding_idx ? padding_idx : padding_idx + ++count;
  return rows;
}

// Adds positions, segment rows (all segment 0 when `segments` is empty) and the embedding
// LayerNorm to token vectors: what every model does after its token lookup. `ids` (may be null)
// are the token ids, which RoBERTa's positions depend on.
Status embed_finish(const Model& model, Mat& x, const std::vector<int>& segments, const std::vector<int>* ids) {
  const ModelConfig& c = model.config;
  const int T = static_cast<int>(x.rows());
  switch (c.positions) {
    case PositionEncoding::sinusoidal: x += positions_sinusoidal(T, c.d_model); break;
    case PositionEncoding::learned: {
      const WeightMat& table = model.weights.pos_embed;
      const int first = c.position_padding_idx >= 0 ? c.position_padding_idx + 1 : 0;
      if (first + T > table.rows())
        return make_error("the sentence has " + std::to_string(T) + " tokens but the model knows only " +
                          std::to_string(table.rows() - first) + " positions");
      if (c.position_padding_idx >= 0 && ids) {
        const std::vector<int> rows = padded_positions(*ids, c.position_padding_idx);
        for (int t = 0; t < T; ++t) x.row(t) += table.row(rows[static_cast<size_t>(t)]);
      } else {
        x += table.middleRows(first, T);
      }
      break;
    }
    case PositionEncoding::none:
    case PositionEncoding::rotary: break;  // rotary positions act inside attention, on Q and K
  }
  if (c.type_vocab > 0) {
    for (int t = 0; t < T; ++t) {
      const int s = segments.empty() ? 0 : segments[static_cast<size_t>(t)];
      if (s < 0 || s >= c.type_vocab)
        return make_error("segment " + std::to_string(s) + " is outside the model's " + std::to_string(c.type_vocab) +
                          " token types");
      x.row(t) += model.weights.type_embed.row(s);
    }
  }
  if (c.embed_norm) x = norm_apply(x, model.weights.embed_norm_w, model.weights.embed_norm_b, c);
  return Ok{};
}

}  // namespace

Result<Mat> embed_ids(const Model& model, const std::vector<int>& ids, const std::vector<int>& segments) {
  if (!segments.empty() && segments.size() != ids.size())
    return make_error("there must be one segment id per token id");
  const int64_t V = vocab_table_rows(model, VocabTable::tokens);
  if (V == 0) return make_error("this model has no token embedding table to look ids up in");
  Mat x(static_cast<Eigen::Index>(ids.size()), model.config.d_model);
  for (size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] < 0 || ids[t] >= V)
      return make_error("token id " + std::to_string(ids[t]) + " is outside the model's " + std::to_string(V) + " embeddings");
    auto row = vocab_table_row(model, VocabTable::tokens, ids[t]);  // decoded when kept encoded
    if (!row) return make_error(row.error());
    x.row(static_cast<Eigen::Index>(t)) = *row;
  }
  if (model.config.embed_multiplier != 1.0f) x *= model.config.embed_multiplier;  // Gemma: √C
  if (Status s = embed_finish(model, x, segments, &ids); !s) return make_error(s.error());
  return x;
}

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
  if (Status s = embed_finish(model, e.x, {}, nullptr); !s) return make_error(s.error());
  return e;
}

}  // namespace attnviz
