// safetensors reader and writer. The reader is strict (every malformed case gets its own message)
// because it is the door for foreign checkpoints: all sizes are checked in 64-bit arithmetic before
// anything is allocated, and data bytes are assembled one by one, never reinterpreted in place.
// It does not decide what tensors a model needs; the model loader does. Reading a tensor's values
// (converted, transposed, in place) is tensor_values.cpp's.
#include "io/safetensors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <sys/mman.h>


#include <nlohmann/json.hpp>

#include "base/bytes.h"
#include "base/file_io.h"
#include "base/file_map.h"
#include "base/json.h"
#include "io/safetensors_detail.h"
#include "base/utf8.h"

namespace attnviz {

namespace safetensors_detail {

Error safetensors_error(const std::string& message) { return make_error("safetensors: " + message); }

std::string tensor_label(std::string_view name) { return "tensor " + json_quote(name); }

// A real header nests three deep (object > entry > shape); an index two.
constexpr int kMaxHeaderDepth = 16;

Result<nlohmann::json> json_read(std::string_view text, const std::string& subject, std::string (*duplicate)(const JsonError&)) {
  JsonError e;
  auto j = json_parse_strict(text, subject, kMaxHeaderDepth, &e);
  if (j) return j;
  switch (e.fault) {
    case JsonFault::invalid_utf8:
      return safetensors_error(subject + " is not valid UTF-8 (bad byte at " + subject + " offset " + std::to_string(e.offset) + ")");
    case JsonFault::too_deep:
      return safetensors_error(subject + " is not a valid " + subject + " (JSON nested deeper than " +
                  std::to_string(kMaxHeaderDepth) + " levels)");
    case JsonFault::syntax:
      return safetensors_error(subject + " is not JSON (" + e.reason + ")");
    case JsonFault::duplicate_key:
      break;
  }
  return safetensors_error(duplicate(e));
}

const std::string* duplicate_parent(const JsonError& e) {
  return e.path.size() == 1 ? std::get_if<std::string>(&e.path[0]) : nullptr;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace safetensors_detail

using namespace safetensors_detail;  // this file's own wording, shared with safetensors_sharded.cpp

namespace {

using nlohmann::json;

struct DTypeInfo {
  std::string_view name;
  DType dtype;
  uint64_t size;
};

constexpr std::array<DTypeInfo, 13> kSupported{{{"F32", DType::F32, 4},
                                                {"F16", DType::F16, 2},
                                                {"BF16", DType::BF16, 2},
                                                {"F64", DType::F64, 8},
                                                {"BOOL", DType::BOOL, 1},
                                                {"U8", DType::U8, 1},
                                                {"I8", DType::I8, 1},
                                                {"I16", DType::I16, 2},
                                                {"U16", DType::U16, 2},
                                                {"I32", DType::I32, 4},
                                                {"U32", DType::U32, 4},
                                                {"I64", DType::I64, 8},
                                                {"U64", DType::U64, 8}}};

// dtypes the format defines but attnviz does not read; anything else is "unknown".
constexpr std::array<std::string_view, 7> kUnsupported{"C64", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2"};

struct Entry {
  std::string name;
  DTypeInfo dtype;
  std::vector<int64_t> shape;
  uint64_t numel = 1;
  uint64_t begin = 0, end = 0;
};

std::optional<DTypeInfo> dtype_lookup(std::string_view s) {
  for (const auto& d : kSupported)
    if (d.name == s) return d;
  return std::nullopt;
}

Result<std::map<std::string, std::string>> metadata_parse(const json& j) {
  if (!j.is_object()) return safetensors_error("'__metadata__' is not an object of strings (it is " + std::string(j.type_name()) + ")");
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string())
      return safetensors_error("'__metadata__' is not an object of strings (key " + json_quote(k) + " holds " +
                  std::string(v.type_name()) + ")");
    out.emplace(k, v.get<std::string>());
  }
  return out;
}

Result<Entry> entry_parse(const std::string& name, const json& j) {
  const std::string who = tensor_label(name);
  if (!j.is_object()) return safetensors_error(who + " entry is not an object (it is " + std::string(j.type_name()) + ")");
  for (const auto& [k, v] : j.items())
    if (k != "dtype" && k != "shape" && k != "data_offsets")
      return safetensors_error(who + " has unexpected field " + json_quote(k) + " (known: dtype, shape, data_offsets)");
  for (const char* k : {"dtype", "shape", "data_offsets"})
    if (!j.contains(k)) return safetensors_error(who + " is missing field '" + k + "'");

  Entry e;
  e.name = name;
  const json& dt = j["dtype"];
  if (!dt.is_string()) return safetensors_error(who + " field 'dtype' is not a string");
  const auto& dts = dt.get_ref<const std::string&>();
  if (auto d = dtype_lookup(dts)) {
    e.dtype = *d;
  } else if (std::find(kUnsupported.begin(), kUnsupported.end(), dts) != kUnsupported.end()) {
    return safetensors_error(who + " has unsupported dtype " + dts + " (attnviz reads float, integer and boolean tensors)");
  } else {
    return safetensors_error(who + " has unknown dtype " + json_quote(dts));
  }

  const json& sh = j["shape"];
  if (!sh.is_array()) return safetensors_error(who + " field 'shape' is not an array");
  for (size_t i = 0; i < sh.size(); ++i) {
    const json& d = sh[i];
    if (!d.is_number_unsigned())
      return safetensors_error(who + " shape entry " + std::to_string(i) + " is " + d.dump() + ", not a non-negative integer");
    const auto v = d.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return safetensors_error(who + " shape entry " + std::to_string(i) + " (" + std::to_string(v) + ") is too large");
    e.shape.push_back(static_cast<int64_t>(v));
  }

  const json& off = j["data_offsets"];
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
    return safetensors_error(who + " field 'data_offsets' is not two non-negative integers (it is " + off.dump() + ")");
  e.begin = off[0].get<uint64_t>();
  e.end = off[1].get<uint64_t>();
  if (e.begin > e.end)
    return safetensors_error(who + " data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                "] end before they begin");

  // Checked: a shape like [2^40, 2^40] must be an error, not a wrapped-around small number.
  uint64_t bytes = e.dtype.size;
  for (const int64_t d : e.shape) {
    const auto u = static_cast<uint64_t>(d);
    if (u != 0 && e.numel > std::numeric_limits<uint64_t>::max() / u)
      return safetensors_error(who + " shape " + shape_text(e.shape) + " has more values than 64 bits can count");
    e.numel *= u;
  }
  if (e.numel > std::numeric_limits<uint64_t>::max() / e.dtype.size)
    return safetensors_error(who + " shape " + shape_text(e.shape) + " overflows 64 bits in bytes of dtype " +
                std::string(e.dtype.name));
  bytes *= e.numel;
  if (bytes != e.end - e.begin)
    return safetensors_error(who + " has " + std::to_string(e.numel) + " values but its " + std::to_string(e.end - e.begin) +
                " bytes do not match dtype " + std::string(e.dtype.name));
  return e;
}

void entry_convert(const Entry& e, const uint8_t* p, std::vector<float>& out) {
  out.resize(static_cast<size_t>(e.numel));
  values_convert(e.dtype.dtype, p, out.data(), out.size());
}

std::string header_duplicate(const JsonError& e) {
  const std::string* parent = duplicate_parent(e);
  if (e.path.empty() && e.key == "__metadata__") return "header has two '__metadata__' entries";
  if (e.path.empty()) return "duplicate tensor name " + json_quote(e.key);
  if (parent && *parent == "__metadata__") return "'__metadata__' has duplicate key " + json_quote(e.key);
  if (parent) return tensor_label(*parent) + " has duplicate field " + json_quote(e.key);
  return e.message;
}

Result<json> header_parse(std::string_view text) {
  auto header = json_read(text, "header", header_duplicate);
  if (!header) return header;
  if (!header->is_object()) return safetensors_error("header is not a JSON object (it is " + std::string(header->type_name()) + ")");
  return header;
}

}  // namespace

uint64_t dtype_size(DType d) {
  for (const auto& info : kSupported)
    if (info.dtype == d) return info.size;
  return 4;
}

int64_t Tensor::numel() const {
  // The reader bounds every product by the bytes it was given, except when a dimension is 0: then
  // [2^32, 2^31, 0] is a valid empty tensor whose leading product would overflow int64.
  if (std::find(shape.begin(), shape.end(), int64_t{0}) != shape.end()) return 0;
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

const Tensor* TensorFile::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string_view dtype_name(DType d) {
  for (const auto& info : kSupported)
    if (info.dtype == d) return info.name;
  return "?";
}

float f16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits = 0;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // inf, or NaN with its payload kept
  } else if (exp != 0) {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal half: normalise the mantissa; every half subnormal is a normal float.
    exp = 127 - 15 + 1;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

float bf16_to_float(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

void safetensors_detail::values_convert(DType dtype, const uint8_t* p, float* out, size_t n) {
  const uint64_t size = dtype_size(dtype);
  const int width = static_cast<int>(size);
  switch (dtype) {
    case DType::F32:
      if constexpr (std::endian::native == std::endian::little) {
        if (n > 0) std::memcpy(out, p, n * 4);  // unaligned source is fine for memcpy
      } else {
        for (size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(static_cast<uint32_t>(load_little_endian(p + 4 * i, 4)));
      }
      break;
    case DType::F64:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(std::bit_cast<double>(load_little_endian(p + 8 * i, 8)));
      break;
    case DType::F16:
      for (size_t i = 0; i < n; ++i) out[i] = f16_to_float(static_cast<uint16_t>(load_little_endian(p + 2 * i, 2)));
      break;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) out[i] = bf16_to_float(static_cast<uint16_t>(load_little_endian(p + 2 * i, 2)));
      break;
    case DType::BOOL:
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
      for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load_little_endian(p + size * i, width));
      break;
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64: {
      // Sign-extend by shifting the value to the top of 64 bits and back (arithmetic shift).
      const int shift = 64 - 8 * width;
      for (size_t i = 0; i < n; ++i) {
        const uint64_t raw = load_little_endian(p + size * i, width);
        out[i] = static_cast<float>(static_cast<int64_t>(raw << shift) >> shift);
      }
      break;
    }
  }
}

namespace {

// Validates everything; `deferred` leaves each tensor's bytes in place (Tensor::raw) unconverted.
Result<TensorFile> parse(std::span<const uint8_t> bytes, bool deferred) {
  if (bytes.size() < 8)
    return safetensors_error("file is " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length");
  const uint64_t n = load_little_endian(bytes.data(), 8);
  if (n == 0) return safetensors_error("header length is 0");
  if (n > kMaxSafetensorsHeader)
    return safetensors_error("header length " + std::to_string(n) + " is over the " + std::to_string(kMaxSafetensorsHeader) +
                "-byte limit");
  if (n > bytes.size() - 8)
    return safetensors_error("header length " + std::to_string(n) + " runs beyond the end of the " + std::to_string(bytes.size()) +
                "-byte file");

  // The reference writer pads the header with spaces; JSON treats them as whitespace.
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), static_cast<size_t>(n));
  auto header = header_parse(text);
  if (!header) return Error{header.error()};

  TensorFile file;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header->items()) {
    if (name == "__metadata__") {
      auto meta = metadata_parse(value);
      if (!meta) return Error{meta.error()};
      file.metadata = std::move(*meta);
      continue;
    }
    auto e = entry_parse(name, value);
    if (!e) return Error{e.error()};
    entries.push_back(std::move(*e));
  }

  // Sort by (begin, end) so empty tensors sharing an offset come before the one that starts there.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) {
              return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
            });
  uint64_t expected = 0;
  for (const auto& e : entries) {
    if (e.begin > expected)
      return safetensors_error(tensor_label(e.name) + " starts at byte " + std::to_string(e.begin) +
                  " but the data before it ends at byte " + std::to_string(expected) + " (a gap)");
    if (e.begin < expected)
      return safetensors_error(tensor_label(e.name) + " starts at byte " + std::to_string(e.begin) +
                  " but the data before it ends at byte " + std::to_string(expected) + " (an overlap)");
    expected = e.end;
  }
  const uint64_t buffer_size = bytes.size() - 8 - n;
  if (expected > buffer_size)
    return safetensors_error("file is truncated: the tensors need " + std::to_string(expected) + " data bytes but only " +
                std::to_string(buffer_size) + " follow the header");
  if (expected < buffer_size)
    return safetensors_error(std::to_string(buffer_size - expected) + " trailing bytes after the last tensor (data ends at byte " +
                std::to_string(expected) + " of " + std::to_string(buffer_size) + ")");

  // Every size is now known to lie inside the buffer, so these allocations are bounded by the file.
  const uint8_t* buffer = bytes.data() + 8 + n;
  file.tensors.reserve(entries.size());
  for (auto& e : entries) {
    Tensor t;
    t.name = std::move(e.name);
    t.shape = std::move(e.shape);
    t.stored = e.dtype.dtype;
    if (deferred) t.raw = buffer + e.begin;
    else entry_convert(e, buffer + e.begin, t.data);
    file.tensors.push_back(std::move(t));
  }
  return file;
}

}  // namespace

Result<TensorFile> safetensors_parse(std::span<const uint8_t> bytes) { return parse(bytes, false); }

Result<TensorFile> safetensors_map(const std::string& path, MappedValues use) {
  size_t size = 0;
  FileMapAccess access = use == MappedValues::in_place ? FileMapAccess::copy_on_write : FileMapAccess::read_only;
  auto mapping = file_map(path, size, access);
  if (!mapping) return Error{mapping.error()};
  use = access == FileMapAccess::copy_on_write ? MappedValues::in_place : MappedValues::copied;
  const auto* base = static_cast<const uint8_t*>(mapping->get());
  auto file = parse(std::span<const uint8_t>(base, base ? size : 0), true);
  if (!file) return make_error("'" + path + "': " + file.error());
  for (Tensor& t : file->tensors) {
    t.mapping = *mapping;
    t.in_place_allowed = use == MappedValues::in_place;
  }
  return file;
}

void tensor_release(Tensor& t) {
  std::vector<float>().swap(t.data);
  if (!t.raw) return;
  // Drop the mapped pages this tensor's bytes lie on entirely (the file's page cache keeps them).
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(t.raw);
  const uintptr_t end = begin + static_cast<uintptr_t>(t.numel()) * dtype_size(t.stored);
  const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

Result<TensorFile> safetensors_read(const std::string& path) { return file_parse(path, safetensors_parse); }

Status tensor_file_check(const TensorFile& file) {
  std::set<std::string_view> names;
  for (const auto& [k, v] : file.metadata)
    if (!utf8_is_valid(k) || !utf8_is_valid(v))
      return safetensors_error("metadata key " + json_quote(k) + " or its value is not valid UTF-8");
  for (const auto& t : file.tensors) {
    if (t.name == "__metadata__") return safetensors_error("a tensor cannot be named '__metadata__'");
    if (!utf8_is_valid(t.name)) return safetensors_error(tensor_label(t.name) + " name is not valid UTF-8");
    if (!names.insert(t.name).second) return safetensors_error("duplicate tensor name " + json_quote(t.name));
    uint64_t n = 1;
    for (const int64_t d : t.shape) {
      if (d < 0) return safetensors_error(tensor_label(t.name) + " has negative shape " + shape_text(t.shape));
      const auto u = static_cast<uint64_t>(d);
      if (u != 0 && n > std::numeric_limits<uint64_t>::max() / u)
        return safetensors_error(tensor_label(t.name) + " shape " + shape_text(t.shape) + " is too large");
      n *= u;
    }
    if (n != t.data.size())
      return safetensors_error(tensor_label(t.name) + " has shape " + shape_text(t.shape) + " but " + std::to_string(t.data.size()) +
                  " values");
  }
  return Ok{};
}

std::vector<uint8_t> safetensors_serialize(const TensorFile& file) {
  // ordered_json keeps "__metadata__" first and the tensors in vector order, as readers expect.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    auto meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : file.metadata) meta[k] = v;
    header["__metadata__"] = std::move(meta);
  }
  uint64_t offset = 0;
  for (const auto& t : file.tensors) {
    const uint64_t size = uint64_t{4} * t.data.size();
    auto entry = nlohmann::ordered_json::object();
    entry["dtype"] = "F32";
    entry["shape"] = t.shape;
    entry["data_offsets"] = nlohmann::ordered_json::array({offset, offset + size});
    header[t.name] = std::move(entry);
    offset += size;
  }
  // `replace` so that dump never throws; tensor_file_check rejects invalid UTF-8 up front.
  std::string text = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data buffer 8-byte aligned

  std::vector<uint8_t> out;
  out.reserve(8 + text.size() + offset);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(text.size()) >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const auto& t : file.tensors)
    for (const float f : t.data) {
      const auto u = std::bit_cast<uint32_t>(f);
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(u >> (8 * i)));
    }
  return out;
}

Status safetensors_write(const std::string& path, const TensorFile& file) {
  if (Status s = tensor_file_check(file); !s) return s;
  const auto bytes = safetensors_serialize(file);
  return file_write_atomic(path, std::span<const uint8_t>(bytes));
}

Tensor tensor_from_mat(std::string name, MatRef m) {
  Tensor t;
  t.name = std::move(name);
  t.shape = {static_cast<int64_t>(m.rows()), static_cast<int64_t>(m.cols())};
  t.data.resize(static_cast<size_t>(m.size()));
  Eigen::Map<Mat>(t.data.data(), m.rows(), m.cols()) = m;  // row-major, as safetensors is
  return t;
}

Tensor tensor_from_vec(std::string name, const Vec& v) {
  Tensor t;
  t.name = std::move(name);
  t.shape = {static_cast<int64_t>(v.size())};
  t.data.assign(v.data(), v.data() + v.size());
  return t;
}

}  // namespace attnviz
