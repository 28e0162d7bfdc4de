// libFuzzer target: safetensors_parse on arbitrary bytes, then every tensor it accepted through
// tensor_to_mat / tensor_to_vec, a write-and-read-back of what it accepted, the same bytes as an
// attention file (attention_file_parse) and as a sharded checkpoint's index (safetensors_index_parse).
// Reads memory only; never touches a file.
#include <algorithm>
#include <cstring>
#include <set>

#include "fuzz/fuzz_check.h"
#include "io/attention_file.h"
#include "io/safetensors.h"

namespace attnviz::fuzz {

namespace safetensors_target {

std::string check_tensor(const Tensor& t) {
  // numel() is unchecked by design; the parser must have bounded it by the bytes it was given.
  if (t.numel() < 0 || static_cast<uint64_t>(t.numel()) != t.data.size())
    return "tensor " + t.name + " holds " + std::to_string(t.data.size()) + " values for its shape";
  auto m = tensor_to_mat(t);
  if (!m.ok()) {
    if (t.shape.size() <= 2) return "tensor_to_mat refused a tensor of rank <= 2: " + m.error();
    return error_needs_message(m.error(), "tensor_to_mat");
  }
  if (m->size() != t.numel()) return "tensor_to_mat changed the element count of " + t.name;
  if (m->size() > 0 && std::memcmp(m->data(), t.data.data(), t.data.size() * sizeof(float)) != 0)
    return "tensor_to_mat changed the values of " + t.name;
  auto v = tensor_to_vec(t);
  if (t.shape.size() == 1 && (!v.ok() || v->size() != t.numel())) return "tensor_to_vec refused 1-D " + t.name;
  if (t.shape.size() != 1 && v.ok()) return "tensor_to_vec accepted rank " + std::to_string(t.shape.size());
  return {};
}

// What was accepted and passes the writer's check must come back bit for bit (the writer stores F32,
// and every stored dtype was already widened to float on reading).
std::string check_round_trip(const TensorFile& file) {
  if (!tensor_file_check(file).ok()) return {};
  auto again = safetensors_parse(safetensors_serialize(file));
  if (!again.ok()) return "a written file was refused on reading: " + again.error();
  if (again->metadata != file.metadata) return "metadata changed in a write and read";
  if (again->tensors.size() != file.tensors.size()) return "tensor count changed in a write and read";
  for (const Tensor& t : file.tensors) {
    const Tensor* u = again->find(t.name);
    if (u == nullptr) return "tensor " + t.name + " was lost in a write and read";
    if (u->shape != t.shape || u->data.size() != t.data.size() ||
        (!t.data.empty() && std::memcmp(u->data.data(), t.data.data(), t.data.size() * sizeof(float)) != 0))
      return "tensor " + t.name + " changed in a write and read";
  }
  return {};
}

// An accepted attention file holds what its checks promise: square self-attention over the tokens,
// (T, S) cross-attention, only finite non-negative weights, flagged rows that exist.
std::string check_attention(Bytes bytes) {
  auto file = attention_file_parse(bytes, "fuzz");
  if (!file.ok()) return error_needs_message(file.error(), "attention_file_parse");
  for (const Trace* t : {&file->trace, file->cross_trace ? &*file->cross_trace : nullptr}) {
    if (!t) continue;
    if (!t->weights_only || t->layers.empty() || static_cast<int>(t->layers.size()) != t->config.n_layers)
      return "attention file: the trace's layers disagree with its config";
    for (const LayerTrace& l : t->layers) {
      if (static_cast<int>(l.attn.heads.size()) != t->config.n_heads) return "attention file: a layer's head count differs";
      for (const HeadTrace& h : l.attn.heads) {
        if (h.weights_kept.rows() != t->n_queries() || h.weights_kept.cols() != t->n_keys()) return "attention file: a head's shape differs";
        if (h.weights_kept.size() > 0 && (!h.weights_kept.allFinite() || h.weights_kept.minCoeff() < 0))
          return "attention file: a NaN, infinite or negative weight was accepted";
      }
    }
  }
  for (const OffRow& r : file->off_rows) {
    const Trace& t = r.cross ? *file->cross_trace : file->trace;
    if (r.layer >= t.config.n_layers || r.head >= t.config.n_heads || r.row >= t.n_queries())
      return "attention file: a flagged row lies outside the trace";
  }
  return {};
}

std::string check_index(std::string_view text) {
  auto index = safetensors_index_parse(text);
  if (!index.ok()) return error_needs_message(index.error(), "safetensors_index_parse");
  const std::set<std::string> shards(index->shards.begin(), index->shards.end());
  if (shards.size() != index->shards.size() || !std::is_sorted(index->shards.begin(), index->shards.end()))
    return "index shards are not sorted and distinct";
  for (const auto& [name, shard] : index->weight_map)
    if (!shards.count(shard)) return "tensor " + name + " maps to an unlisted shard";
  return {};
}

}  // namespace safetensors_target

std::string fuzz_safetensors(Bytes bytes) {
  using namespace safetensors_target;
  auto file = safetensors_parse(bytes);
  if (!file.ok()) {
    if (std::string e = error_needs_message(file.error(), "safetensors_parse"); !e.empty()) return e;
  } else {
    for (const Tensor& t : file->tensors)
      if (std::string e = check_tensor(t); !e.empty()) return e;
    if (std::string e = check_round_trip(*file); !e.empty()) return e;
    if (std::string e = check_attention(bytes); !e.empty()) return e;
  }
  return check_index(bytes_text(bytes));
}

}  // namespace attnviz::fuzz

ATTNVIZ_FUZZ_TARGET(fuzz_safetensors)
