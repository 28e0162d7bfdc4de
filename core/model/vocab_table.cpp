#include "model/vocab_table.h"

#include <algorithm>

#include "model/model.h"

namespace attnviz {

namespace {

const WeightMat& floats_of(const Model& model, VocabTable table) {
  return table == VocabTable::tokens ? model.weights.tok_embed : model.weights.output_w;
}

const EncodedRows* encoded_of(const Model& model, VocabTable table) {
  return (table == VocabTable::tokens ? model.weights.tok_embed_encoded : model.weights.output_w_encoded).get();
}

}  // namespace

int64_t vocab_table_rows(const Model& model, VocabTable table) {
  if (const EncodedRows* e = encoded_of(model, table)) return e->rows();
  return floats_of(model, table).rows();
}

bool vocab_table_encoded(const Model& model, VocabTable table) { return encoded_of(model, table) != nullptr; }

Result<RowVec> vocab_table_row(const Model& model, VocabTable table, int64_t id) {
  const int64_t V = vocab_table_rows(model, table);
  if (id < 0 || id >= V)
    return make_error("token id " + std::to_string(id) + " is outside the table's " + std::to_string(V) + " rows");
  const EncodedRows* e = encoded_of(model, table);
  if (!e) return RowVec(floats_of(model, table).row(id));
  RowVec row(e->cols());
  if (Status s = e->decode(id, 1, row.data()); !s) return make_error(s.error());
  return row;
}

Result<RowVec> vocab_table_times(const Model& model, VocabTable table, const RowVec& h) {
  const EncodedRows* e = encoded_of(model, table);
  const WeightMat& w = floats_of(model, table);
  const int64_t V = vocab_table_rows(model, table), C = e ? e->cols() : w.cols();
  if (h.size() != C) return make_error("a hidden state of " + std::to_string(h.size()) + " values for a table " +
                                       std::to_string(C) + " wide");
  RowVec out(V);
  Mat tile;
  // The same product for every tile, decoded or not: each logit is one row's dot product with h.
  for (int64_t first = 0; first < V; first += kVocabTileRows) {
    const int64_t n = std::min(kVocabTileRows, V - first);
    if (e) {
      tile.resize(n, C);
      if (Status s = e->decode(first, n, tile.data()); !s) return make_error(s.error());
      out.segment(first, n).noalias() = h * tile.transpose();
    } else {
      out.segment(first, n).noalias() = h * w.middleRows(first, n).transpose();
    }
  }
  return out;
}

}  // namespace attnviz
