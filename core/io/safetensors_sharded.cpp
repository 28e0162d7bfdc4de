// The sharded form of a safetensors checkpoint: model.safetensors.index.json naming the shard that
// holds each tensor, read into one TensorFile (see safetensors.h).
#include <filesystem>
#include <map>
#include <set>

#include "base/file_io.h"
#include "io/safetensors.h"
#include "io/safetensors_detail.h"

namespace attnviz {

using namespace safetensors_detail;
using nlohmann::json;

namespace {

// Shard names come from the index: a name with a folder in it could point anywhere on disk.
bool shard_name_plain(std::string_view s) {
  return !s.empty() && s != "." && s != ".." && s.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

std::string shard_label(std::string_view name) { return "shard " + json_quote(name); }

Error fail_index(const std::string& index_path, const std::string& message) {
  return make_error("'" + index_path + "': safetensors index: " + message);
}

std::string index_duplicate(const JsonError& e) {
  const std::string* parent = duplicate_parent(e);
  if (parent && *parent == "weight_map") return "index 'weight_map' lists " + tensor_label(e.key) + " twice";
  return e.message;
}

}  // namespace

Result<ShardIndex> safetensors_index_parse(std::string_view text) {
  auto index = json_read(text, "index", index_duplicate);
  if (!index) return Error{index.error()};
  if (!index->is_object()) return safetensors_error("index is not a JSON object (it is " + std::string(index->type_name()) + ")");
  if (index->contains("metadata")) {
    const json& meta = (*index)["metadata"];
    if (!meta.is_object())
      return safetensors_error("index 'metadata' is not an object (it is " + std::string(meta.type_name()) + ")");
    if (meta.contains("total_size") && !meta["total_size"].is_number_unsigned())
      return safetensors_error("index 'metadata' field 'total_size' is " + meta["total_size"].dump() +
                  ", not a non-negative integer");
  }
  if (!index->contains("weight_map")) return safetensors_error("index has no 'weight_map'");
  const json& map = (*index)["weight_map"];
  if (!map.is_object()) return safetensors_error("index 'weight_map' is not an object (it is " + std::string(map.type_name()) + ")");
  if (map.empty()) return safetensors_error("index 'weight_map' is empty");

  ShardIndex out;
  std::set<std::string> shards;
  for (const auto& [name, file] : map.items()) {
    if (!file.is_string())
      return safetensors_error("index 'weight_map' entry for " + tensor_label(name) + " is not a file name (it is " +
                  std::string(file.type_name()) + ")");
    const auto& f = file.get_ref<const std::string&>();
    if (!shard_name_plain(f))
      return safetensors_error("index 'weight_map' puts " + tensor_label(name) + " in " + json_quote(f) +
                  ", which is not a plain file name");
    out.weight_map.emplace(name, f);
    shards.insert(f);
  }
  out.shards.assign(shards.begin(), shards.end());
  return out;
}

Result<TensorFile> safetensors_read_sharded(const std::string& index_path, bool mapped, MappedValues use) {
  // An index is a name list: the header bound is generous for it and keeps a wrong file cheap.
  auto bytes = file_read_bytes(index_path, kMaxSafetensorsHeader);
  if (!bytes) return Error{bytes.error()};
  auto index = safetensors_index_parse(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!index) return make_error("'" + index_path + "': " + index.error());

  const std::filesystem::path folder = std::filesystem::path(index_path).parent_path();
  for (const auto& shard : index->shards) {  // every shard present before any is read
    const std::string path = (folder / shard).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      return fail_index(index_path, shard_label(shard) + " does not exist (looked for '" + path + "')");
  }
  TensorFile out;
  std::map<std::string, std::string> holder;  // tensor name -> the shard it was found in
  for (const auto& shard : index->shards) {
    const std::string path = (folder / shard).string();
    auto file = mapped ? safetensors_map(path, use) : safetensors_read(path);
    if (!file) return Error{file.error()};
    for (auto& [k, v] : file->metadata) out.metadata.emplace(k, std::move(v));
    for (auto& t : file->tensors) {
      if (const auto [it, fresh] = holder.emplace(t.name, shard); !fresh)
        return fail_index(index_path, tensor_label(t.name) + " is in two shards, " + json_quote(it->second) + " and " +
                                          json_quote(shard));
      out.tensors.push_back(std::move(t));
    }
  }
  for (const auto& [name, shard] : index->weight_map) {
    const auto it = holder.find(name);
    if (it == holder.end())
      return fail_index(index_path, tensor_label(name) + " is listed in " + shard_label(shard) +
                                        " but that shard does not hold it");
    if (it->second != shard)
      return fail_index(index_path, tensor_label(name) + " is listed in " + shard_label(shard) + " but is in " +
                                        shard_label(it->second));
  }
  // Every listed name was found; any extra name is a tensor the map does not mention.
  for (const auto& [name, shard] : holder)
    if (!index->weight_map.contains(name))
      return fail_index(index_path,
                        shard_label(shard) + " holds " + tensor_label(name) + ", which 'weight_map' does not list");
  return out;
}

}  // namespace attnviz
