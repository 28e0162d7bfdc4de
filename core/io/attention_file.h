// Attention files: the attention weights of any model, saved from Python, read into a Trace whose heads
// carry only their weights (no model ran). Tensors attentions.{l} (H, T, T) or (1, H, T, T), optional
// cross_attentions.{l} (H, T, S); metadata tokens (JSON list of T strings), source_tokens, model. A
// token keeps the saved string as `piece`; its `text` shows BPE's Ġ and SentencePiece's ▁ as ·.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "io/safetensors.h"
#include "model/trace.h"

namespace attnviz {

// A row is flagged, not rejected, when its sum is further than this from 1: a fully masked query
// (sum 0), a model that renormalises differently, weights saved after dropout.
inline constexpr float kRowSumTolerance = 1e-3f;

// One flagged row: head `head` of layer `layer` (of the cross-attention when `cross`), query `row`.
struct OffRow {
  bool cross = false;
  int layer = 0, head = 0, row = 0;
  float sum = 0;
};

struct AttentionFile {
  Trace trace;                       // attentions.{l}: self-attention over the tokens, weights_only
  std::optional<Trace> cross_trace;  // cross_attentions.{l}: queries the tokens, keys the source tokens
  std::string model;                 // metadata "model", "" when absent
  std::vector<OffRow> off_rows;      // every row whose sum is off by more than kRowSumTolerance
};

// `name` labels the trace's model_source (the file name, with the model text when given). Every
// error names the tensor or metadata key it is about; unknown names list the known ones.
Result<AttentionFile> attention_file_parse(std::span<const uint8_t> bytes, const std::string& name);
Result<AttentionFile> attention_file_read(const std::string& path);
// What both of the above share: the checks and the conversion, on an already-read tensor file.
Result<AttentionFile> attention_file_from_tensors(const TensorFile& file, const std::string& name);

// Whether a safetensors file is an attention file (its header names attentions.0), read from the
// header alone: how a dropped or opened path is told apart from a model file. False when unreadable.
bool attention_file_sniff(const std::string& path);

// "layer 1 head 2 row 3 (sum 0.870)" for the first `max` flagged rows, "+ N more" after them.
std::string off_rows_summary(const std::vector<OffRow>& rows, size_t max = 3);

}  // namespace attnviz
