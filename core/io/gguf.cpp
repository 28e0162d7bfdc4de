// The GGUF reader: a cursor over the file's bytes that checks each read against what is left, then
// the header, the metadata, the tensor infos and the tensors' byte ranges, in the file's order
// (ggml's docs/gguf.md). Counts are bounded by what the remaining bytes could hold before anything
// is allocated for them.
#include "io/gguf.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <set>

#include "base/bytes.h"
#include "base/file_map.h"

namespace attnviz {

namespace {

constexpr uint64_t kMaxDims = 4;  // GGML_MAX_DIMS
// The fewest bytes a metadata pair (an empty key, a type, a one-byte value) and a tensor info (an
// empty name, one dimension, a type, an offset) can take: their counts cannot exceed what is left
// divided by these.
constexpr uint64_t kMinPairBytes = 8 + 4 + 1, kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint64_t pos() const { return pos_; }
  uint64_t left() const { return bytes_.size() - pos_; }

  Result<uint64_t> uint(int n, const std::string& what) {
    if (left() < static_cast<uint64_t>(n))
      return make_error(what + ": the file ends " + std::to_string(left()) + " bytes after offset " + std::to_string(pos_) +
                        ", before its " + std::to_string(n) + " bytes");
    const uint64_t v = load_little_endian(bytes_.data() + pos_, n);
    pos_ += static_cast<uint64_t>(n);
    return v;
  }

  Result<std::string> string(const std::string& what) {
    auto n = uint(8, what + " (its length)");
    if (!n) return make_error(n.error());
    if (*n > left())
      return make_error(what + ": a string of " + std::to_string(*n) + " bytes, past the end of the file (" + std::to_string(left()) +
                        " bytes left)");
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), static_cast<size_t>(*n));
    pos_ += *n;
    return s;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

// The bytes one element of the type takes at least (a string: its length).
uint64_t min_size(GgufValueType t) {
  switch (t) {
    case GgufValueType::uint8: case GgufValueType::int8: case GgufValueType::boolean: return 1;
    case GgufValueType::uint16: case GgufValueType::int16: return 2;
    case GgufValueType::uint32: case GgufValueType::int32: case GgufValueType::float32: return 4;
    case GgufValueType::string: case GgufValueType::uint64: case GgufValueType::int64: case GgufValueType::float64: return 8;
    case GgufValueType::array: return 12;
  }
  return 1;
}

bool known_type(uint64_t t) { return t <= static_cast<uint64_t>(GgufValueType::float64); }

using Number = std::variant<int64_t, uint64_t, double, bool>;

// One integer, float or boolean of a scalar type, as the variant holds it.
Result<Number> read_number(Cursor& c, GgufValueType t, const std::string& what) {
  switch (t) {
    case GgufValueType::uint8: case GgufValueType::uint16: case GgufValueType::uint32: {
      auto v = c.uint(static_cast<int>(min_size(t)), what);
      if (!v) return make_error(v.error());
      return Number(static_cast<int64_t>(*v));
    }
    case GgufValueType::int8: case GgufValueType::int16: case GgufValueType::int32: case GgufValueType::int64: {
      const int n = static_cast<int>(min_size(t));
      auto v = c.uint(n, what);
      if (!v) return make_error(v.error());
      const int shift = 64 - 8 * n;  // sign-extend from n bytes
      return Number(static_cast<int64_t>(*v << shift) >> shift);
    }
    case GgufValueType::uint64: {
      auto v = c.uint(8, what);
      if (!v) return make_error(v.error());
      return Number(*v);
    }
    case GgufValueType::float32: {
      auto v = c.uint(4, what);
      if (!v) return make_error(v.error());
      return Number(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(*v))));
    }
    case GgufValueType::float64: {
      auto v = c.uint(8, what);
      if (!v) return make_error(v.error());
      return Number(std::bit_cast<double>(*v));
    }
    case GgufValueType::boolean: {
      auto v = c.uint(1, what);
      if (!v) return make_error(v.error());
      if (*v > 1) return make_error(what + ": a bool of " + std::to_string(*v) + " (0 or 1)");
      return Number(*v == 1);
    }
    case GgufValueType::string: case GgufValueType::array: break;
  }
  return make_error(what + ": not a number type");
}

Result<GgufArray> read_array(Cursor& c, const std::string& what) {
  auto element = c.uint(4, what + " (its element type)");
  if (!element) return make_error(element.error());
  if (!known_type(*element)) return make_error(what + ": an array of unknown value type " + std::to_string(*element));
  GgufArray a;
  a.element = static_cast<GgufValueType>(*element);
  if (a.element == GgufValueType::array) return make_error(what + ": an array of arrays, which no model's metadata needs and attnviz does not read");
  auto count = c.uint(8, what + " (its length)");
  if (!count) return make_error(count.error());
  if (*count > c.left() / min_size(a.element))
    return make_error(what + ": an array of " + std::to_string(*count) + " " + std::string(name_of(a.element)) + " values, more than the " +
                      std::to_string(c.left()) + " bytes left could hold");
  const size_t n = static_cast<size_t>(*count);
  for (size_t i = 0; i < n; ++i) {
    const std::string item = what + "[" + std::to_string(i) + "]";
    if (a.element == GgufValueType::string) {
      auto s = c.string(item);
      if (!s) return make_error(s.error());
      a.strings.push_back(std::move(*s));
      continue;
    }
    auto v = read_number(c, a.element, item);
    if (!v) return make_error(v.error());
    if (const auto* i64 = std::get_if<int64_t>(&*v)) a.ints.push_back(*i64);
    else if (const auto* u64 = std::get_if<uint64_t>(&*v)) a.uints.push_back(*u64);
    else if (const auto* d = std::get_if<double>(&*v)) a.floats.push_back(*d);
    else a.ints.push_back(std::get<bool>(*v) ? 1 : 0);
  }
  return a;
}

Result<GgufValue> read_value(Cursor& c, const std::string& what) {
  auto type = c.uint(4, what + " (its value type)");
  if (!type) return make_error(type.error());
  if (!known_type(*type)) return make_error(what + ": unknown value type " + std::to_string(*type) + " (GGUF has 0 to 12)");
  GgufValue v;
  v.type = static_cast<GgufValueType>(*type);
  if (v.type == GgufValueType::string) {
    auto s = c.string(what);
    if (!s) return make_error(s.error());
    v.value = std::move(*s);
  } else if (v.type == GgufValueType::array) {
    auto a = read_array(c, what);
    if (!a) return make_error(a.error());
    v.value = std::move(*a);
  } else {
    auto n = read_number(c, v.type, what);
    if (!n) return make_error(n.error());
    std::visit([&](auto x) { v.value = x; }, *n);
  }
  return v;
}

std::string supported_types() {
  std::string out;
  for (uint32_t id = 0; id < 64; ++id)
    if (ggml_type_info(id)) out += (out.empty() ? "" : ", ") + std::string(ggml_type_info(id)->name);
  return out;
}

Status read_tensor_info(Cursor& c, size_t index, GgufTensorInfo& t) {
  const std::string where = "tensor info " + std::to_string(index);
  auto name = c.string(where + " (its name)");
  if (!name) return make_error(name.error());
  t.name = std::move(*name);
  const std::string what = "tensor '" + t.name + "'";
  auto dims = c.uint(4, what + " (its number of dimensions)");
  if (!dims) return make_error(dims.error());
  if (*dims < 1 || *dims > kMaxDims) return make_error(what + ": " + std::to_string(*dims) + " dimensions (1 to 4)");
  int64_t numel = 1;
  for (uint64_t d = 0; d < *dims; ++d) {
    auto ne = c.uint(8, what + " (dimension " + std::to_string(d) + ")");
    if (!ne) return make_error(ne.error());
    if (*ne == 0 || *ne > (uint64_t{1} << 40)) return make_error(what + ": dimension " + std::to_string(d) + " is " + std::to_string(*ne));
    if (static_cast<uint64_t>(numel) > (uint64_t{1} << 62) / *ne) return make_error(what + ": more values than any file holds");
    numel *= static_cast<int64_t>(*ne);
    t.ne.push_back(static_cast<int64_t>(*ne));
  }
  auto type = c.uint(4, what + " (its type)");
  if (!type) return make_error(type.error());
  const GgmlTypeInfo* info = ggml_type_info(static_cast<uint32_t>(*type));
  if (!info)
    return make_error(what + " has type " + ggml_type_name(static_cast<uint32_t>(*type)) + ", which attnviz does not read (it reads " +
                      supported_types() + ")");
  t.type = info->type;
  if (t.ne[0] % info->block_values != 0)
    return make_error(what + ": its rows of " + std::to_string(t.ne[0]) + " values are not whole " + std::string(info->name) + " blocks of " +
                      std::to_string(info->block_values));
  t.bytes = static_cast<uint64_t>(numel / info->block_values) * static_cast<uint64_t>(info->block_bytes);
  auto offset = c.uint(8, what + " (its offset)");
  if (!offset) return make_error(offset.error());
  t.offset = *offset;
  return Ok{};
}

}  // namespace

std::string_view name_of(GgufValueType type) {
  static constexpr std::string_view kNames[] = {"uint8", "int8",   "uint16", "int16",  "uint32", "int32", "float32",
                                                "bool",  "string", "array",  "uint64", "int64",  "float64"};
  const auto i = static_cast<size_t>(type);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

size_t GgufArray::size() const { return ints.size() + uints.size() + floats.size() + strings.size(); }

int64_t GgufTensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : ne) n *= d;
  return n;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

const GgufTensorInfo* GgufFile::tensor(std::string_view name) const {
  for (const GgufTensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

namespace {

Result<const GgufValue*> typed(const GgufFile& f, std::string_view key, bool ok_for(GgufValueType), const char* wanted) {
  const GgufValue* v = f.find(key);
  if (!v) return make_error("GGUF metadata has no '" + std::string(key) + "'");
  if (!ok_for(v->type))
    return make_error("GGUF metadata '" + std::string(key) + "' is a " + std::string(name_of(v->type)) + ", not " + wanted);
  return v;
}

bool is_string(GgufValueType t) { return t == GgufValueType::string; }
bool is_int(GgufValueType t) {
  return t == GgufValueType::uint8 || t == GgufValueType::int8 || t == GgufValueType::uint16 || t == GgufValueType::int16 ||
         t == GgufValueType::uint32 || t == GgufValueType::int32 || t == GgufValueType::uint64 || t == GgufValueType::int64;
}
bool is_float(GgufValueType t) { return t == GgufValueType::float32 || t == GgufValueType::float64; }
bool is_array(GgufValueType t) { return t == GgufValueType::array; }
bool is_bool(GgufValueType t) { return t == GgufValueType::boolean; }

}  // namespace

Result<std::string> GgufFile::string_value(std::string_view key) const {
  auto v = typed(*this, key, is_string, "a string");
  if (!v) return make_error(v.error());
  return std::get<std::string>((*v)->value);
}

Result<int64_t> GgufFile::int_value(std::string_view key) const {
  auto v = typed(*this, key, is_int, "an integer");
  if (!v) return make_error(v.error());
  if (const auto* u = std::get_if<uint64_t>(&(*v)->value)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return make_error("GGUF metadata '" + std::string(key) + "' is " + std::to_string(*u) + ", larger than any count or size attnviz reads");
    return static_cast<int64_t>(*u);
  }
  return std::get<int64_t>((*v)->value);
}

Result<double> GgufFile::float_value(std::string_view key) const {
  auto v = typed(*this, key, is_float, "a float");
  if (!v) return make_error(v.error());
  return std::get<double>((*v)->value);
}

Result<bool> GgufFile::bool_value(std::string_view key) const {
  auto v = typed(*this, key, is_bool, "a boolean");
  if (!v) return make_error(v.error());
  return std::get<bool>((*v)->value);
}

Result<const GgufArray*> GgufFile::array_value(std::string_view key) const {
  auto v = typed(*this, key, is_array, "an array");
  if (!v) return make_error(v.error());
  return &std::get<GgufArray>((*v)->value);
}

bool gguf_magic(std::span<const uint8_t> first_bytes) {
  return first_bytes.size() >= 4 && std::memcmp(first_bytes.data(), "GGUF", 4) == 0;
}

Result<GgufFile> gguf_parse(std::span<const uint8_t> bytes) {
  auto fail = [](const std::string& why) { return make_error("GGUF: " + why); };
  if (!gguf_magic(bytes)) return fail("the file does not start with \"GGUF\"");
  Cursor c(bytes);
  (void)c.uint(4, "magic");
  GgufFile f;
  f.file_size = bytes.size();
  auto version = c.uint(4, "the version");
  if (!version) return fail(version.error());
  if (*version == 0x02000000u || *version == 0x03000000u) return fail("a big-endian file, which attnviz does not read");
  if (*version == 1) return fail("version 1 (from before August 2023), which attnviz does not read: convert the model again");
  if (*version != 2 && *version != 3) return fail("version " + std::to_string(*version) + " (attnviz reads 2 and 3)");
  f.version = static_cast<uint32_t>(*version);
  auto tensor_count = c.uint(8, "the tensor count");
  if (!tensor_count) return fail(tensor_count.error());
  auto pair_count = c.uint(8, "the metadata count");
  if (!pair_count) return fail(pair_count.error());
  if (*pair_count > c.left() / kMinPairBytes)
    return fail(std::to_string(*pair_count) + " metadata entries, more than the " + std::to_string(c.left()) + " bytes left could hold");
  std::set<std::string, std::less<>> keys;
  for (uint64_t i = 0; i < *pair_count; ++i) {
    auto key = c.string("metadata entry " + std::to_string(i) + " (its key)");
    if (!key) return fail(key.error());
    if (!keys.insert(*key).second) return fail("the metadata key '" + *key + "' appears twice");
    auto value = read_value(c, "metadata '" + *key + "'");
    if (!value) return fail(value.error());
    f.metadata.emplace_back(std::move(*key), std::move(*value));
  }
  if (const GgufValue* a = f.find("general.alignment")) {
    if (a->type != GgufValueType::uint32) return fail("general.alignment is a " + std::string(name_of(a->type)) + ", not a uint32");
    const auto align = static_cast<uint64_t>(std::get<int64_t>(a->value));
    if (align == 0 || !std::has_single_bit(align)) return fail("general.alignment is " + std::to_string(align) + ", not a power of two");
    f.alignment = align;
  }
  if (*tensor_count > c.left() / kMinTensorInfoBytes)
    return fail(std::to_string(*tensor_count) + " tensors, more than the " + std::to_string(c.left()) + " bytes left could hold");
  std::set<std::string, std::less<>> names;
  for (uint64_t i = 0; i < *tensor_count; ++i) {
    GgufTensorInfo t;
    if (Status s = read_tensor_info(c, static_cast<size_t>(i), t); !s) return fail(s.error());
    if (!names.insert(t.name).second) return fail("the tensor '" + t.name + "' appears twice");
    f.tensors.push_back(std::move(t));
  }
  // The data section starts at the next multiple of the alignment.
  const uint64_t end = c.pos();
  f.data_offset = (end + f.alignment - 1) / f.alignment * f.alignment;
  if (f.data_offset > f.file_size && !f.tensors.empty())
    return fail("the data section would start at " + std::to_string(f.data_offset) + ", past the end of the file (" + std::to_string(f.file_size) +
                " bytes)");
  const uint64_t data_size = f.file_size > f.data_offset ? f.file_size - f.data_offset : 0;
  for (const GgufTensorInfo& t : f.tensors) {
    const std::string what = "tensor '" + t.name + "'";
    if (t.offset % f.alignment != 0)
      return fail(what + ": its offset " + std::to_string(t.offset) + " is not a multiple of the alignment " + std::to_string(f.alignment));
    if (t.offset > data_size || t.bytes > data_size - t.offset)
      return fail(what + ": its " + std::to_string(t.bytes) + " bytes at offset " + std::to_string(t.offset) + " run past the end of the data (" +
                  std::to_string(data_size) + " bytes)");
  }
  return f;
}

std::span<const uint8_t> GgufMapped::tensor_bytes(const GgufTensorInfo& t) const {
  return bytes.subspan(static_cast<size_t>(file.data_offset + t.offset), static_cast<size_t>(t.bytes));
}

Result<GgufMapped> gguf_map(const std::string& path) {
  size_t size = 0;
  FileMapAccess access = FileMapAccess::read_only;
  auto mapping = file_map(path, size, access);
  if (!mapping) return make_error(mapping.error());
  GgufMapped m;
  m.mapping = *mapping;
  const auto* base = static_cast<const uint8_t*>(m.mapping.get());
  m.bytes = std::span<const uint8_t>(base, base ? size : 0);
  auto file = gguf_parse(m.bytes);
  if (!file) return make_error("'" + path + "': " + file.error());
  m.file = std::move(*file);
  return m;
}

}  // namespace attnviz
