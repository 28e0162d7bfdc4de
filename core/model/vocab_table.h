// The vocabulary's two tables: the token embedding (V, C) and a separate output head (V, C). A model
// holds them in floats (ModelWeights::tok_embed, output_w), or, a GGUF file opened with its layers on
// demand, kept in the file's encoding (ModelWeights::tok_embed_encoded, output_w_encoded) and decoded
// a tile of rows at a time: Llama-3's 128,256 x 4,096 table is 2.1 GB in floats, 0.4 GB as Q6_K.
// Everything that reads a row or multiplies by a table goes through here; the numbers are the same
// either way, bit for bit (the products are the same, tile by tile).
#pragma once
#include <cstdint>
#include <string>

#include "base/result.h"
#include "base/tensor.h"

namespace attnviz {

struct Model;

// A (rows, cols) table kept in its file's encoding.
class EncodedRows {
 public:
  virtual ~EncodedRows() = default;
  virtual int64_t rows() const = 0;
  virtual int64_t cols() const = 0;
  virtual const std::string& name() const = 0;  // the file's tensor ("token_embd.weight")
  // Rows [first, first + n) into out (n x cols, row-major); an error names the tensor and the row
  // when a value is not finite (opening the file did not decode it).
  virtual Status decode(int64_t first, int64_t n, float* out) const = 0;
};

enum class VocabTable { tokens, output };

// The table's rows (0: the model has none of that kind) and width.
int64_t vocab_table_rows(const Model& model, VocabTable table);
bool vocab_table_encoded(const Model& model, VocabTable table);
// Row `id` (C); an error when it is outside the table or does not decode.
Result<RowVec> vocab_table_row(const Model& model, VocabTable table, int64_t id);
// h · Wᵀ (V): every row's dot product with h, kVocabTileRows rows decoded at a time.
Result<RowVec> vocab_table_times(const Model& model, VocabTable table, const RowVec& h);
inline constexpr int64_t kVocabTileRows = 4096;

}  // namespace attnviz
