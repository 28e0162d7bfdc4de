// Turning tokens into the first layer's input X (T, C): a token vector plus a position vector.
// Models with a vocabulary look tokens up in tok_embed; the sandbox (no vocabulary) gives every
// distinct word its own fixed random vector, derived from the model seed and the lowercased word,
// so "it" is the same vector wherever it occurs.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/tensor.h"
#include "model/model.h"

namespace attnviz {

// The paper's encoding: PE(pos, 2i) = sin(pos / 10000^(2i/C)), PE(pos, 2i+1) = cos(same).
Mat positions_sinusoidal(int n_tokens, int d_model);

// N(0, 1) entries from a stream seeded by (seed, lowercased token).
RowVec embed_hashed(uint64_t seed, std::string_view token, int d_model);

struct Embedded {
  Mat x;                          // (T, C) token vectors + positions
  std::vector<uint8_t> in_vocab;  // per token: 0 when it fell back to [UNK]
};

// Looks each token up exactly, then lowercased, then falls back to [UNK].
// Fails when a learned position table is too short, or a token is out of vocabulary and the
// vocabulary has no [UNK] entry.
Result<Embedded> embed_tokens(const Model& model, const std::vector<std::string>& tokens);

// A checkpoint's embedding by vocabulary id: tok_embed rows + positions + the segment's token-type
// row (when the model has them), then the embedding LayerNorm (when it has one), as BERT and GPT-2
// do. `segments` is empty (all 0) or one per id. Ids outside tok_embed, segments outside the
// token-type table and sentences longer than the position table are errors.
Result<Mat> embed_ids(const Model& model, const std::vector<int>& ids, const std::vector<int>& segments);

}  // namespace attnviz
